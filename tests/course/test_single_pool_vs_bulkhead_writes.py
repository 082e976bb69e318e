"""Notebook 02's exercise 4, the round's admission of the learner's own: what tests/course/test_writes.py
does not pin. The judge against the course's own admit, the boundaries its rounds reach, numpy's counts
accepted, each mistake named at a round to paste, the lesson's rounds, and a learner's exit or async def
answered in one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from writes import define
from writes.n02_admit import ALL_OR_NOTHING, BEYOND_FREE, CANDIDATES, COUNTS_NOT_ORDER, IGNORES_SPLIT

from bulkhead_lab.course.judges import admit as judge
from bulkhead_lab.course.single_pool_vs_bulkhead import exercises as ex
from bulkhead_lab.pool import rounds
from bulkhead_lab.pool.params import LESSON_SPLIT, MODES, Params

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / CANDIDATES.notebook
EXERCISE = ex.write_admit
RIGHT = define(CANDIDATES.right, CANDIDATES.name)


def _said(candidate: object) -> str:
    said = EXERCISE.check(candidate).message
    assert "\n" not in said and "Traceback" not in said and "Hint:" not in said, said
    return said


def test_the_courses_own_admission_is_right_saying_what_was_checked() -> None:
    said = _said(judge.lesson_takes)
    assert said == _said(RIGHT)
    assert said.startswith(f"Right: checked {len(judge.SCENARIOS)} generated scenarios: each returns the")
    assert f"rounds 990 to 1099 ({3 * len(judge.WINDOW)} rounds)" in said


def test_the_oracle_is_notebook_02s_admit_on_a_scratch_pool() -> None:
    pool = rounds.Pool(5, [rounds.Slots(3, 4, 10), rounds.Slots(3, 6, 10)])
    order = (1, 0, 1, 1, 0, 0, 1)
    assert judge.lesson_takes(order, 5, (3, 3)) == rounds.admit(pool, 0, order, 3, 4) == (2, 3)


def test_the_rounds_reach_the_boundaries_the_prose_states() -> None:
    cases = judge.SCENARIOS
    assert any(not c.order for c in cases) and any(len(c.order) == judge.MOST for c in cases)
    assert sum(c.free == 0 and bool(c.order) for c in cases) >= 10
    assert sum(c.room[0] == 0 and 0 in c.order for c in cases) >= 10
    assert sum(c.room[1] == 0 and 1 in c.order for c in cases) >= 10
    assert sum(len(c.order) > c.free for c in cases) >= 100  # more arrivals than free slots
    assert sum(c.order.count(0) > c.room[0] for c in cases) >= 50  # more than a flow's room
    assert sum(c.room[0] + c.room[1] == c.free for c in cases) >= 100  # the bulkhead's shape
    assert sum(min(c.room) > c.free for c in cases) >= 50  # the single pool's
    assert sum(c.order.index(1) < c.order.index(0) for c in cases if {0, 1} <= set(c.order)) >= 50


def test_the_lessons_rounds_are_its_three_days_around_the_slowdown_in_order() -> None:
    lesson = judge.lesson_rounds()
    assert judge.DAYS == (*(Params(split=LESSON_SPLIT, mode=m) for m in MODES), Params(mode="slowdown"))
    assert [r.where for r in lesson[:2]] == ["24/8, healthy day, round 990", "24/8, healthy day, round 991"]
    assert lesson[-1].where == "single pool (32), slowdown day, round 1099"
    assert sum(r.takes != (r.order.count(0), r.order.count(1)) for r in lesson) >= 30  # some are refused


@pytest.mark.parametrize(
    "returns",
    [
        lambda pair: (np.int64(pair[0]), np.int64(pair[1])),
        lambda pair: np.array(pair),
        lambda pair: list(pair),
    ],
    ids=["numpy-ints", "numpy-array", "list"],
)
def test_two_counts_in_any_container_numpys_too_are_right(returns) -> None:
    assert _said(lambda order, free, room: returns(RIGHT(order, free, room))).startswith("Right:")


@pytest.mark.parametrize(
    ("source", "said"),
    [
        (
            COUNTS_NOT_ORDER,
            "my_admit((1, 0), 1, (1, 1)): it returned (1, 0), where the round admits (0, 1): in order: event "
            "takes a slot, tracking is dropped (no free slot). Replay: my_admit((1, 0), 1, (1, 1))",
        ),
        (IGNORES_SPLIT, "past its room of 0 under its limit"),
        (BEYOND_FREE, "slot taken in all, past the 0 free slots"),
        (
            ALL_OR_NOTHING,
            ": in order: tracking takes a slot, tracking is dropped (no room left under its limit)",
        ),
    ],
    ids=["order", "room", "free", "all-or-nothing"],
)
def test_a_mistake_is_named_at_the_smallest_round_with_a_call_to_paste(source: str, said: str) -> None:
    line = _said(define(source, CANDIDATES.name))
    assert line.startswith("Not yet: my_admit(") and said in line, line
    call = line.removeprefix("Not yet: ").split(": it ")[0]
    assert line.endswith(f"Replay: {call}"), line


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (None, "it returned None: not two slot counts (tracking, event)"),
        ("0, 0", "it returned '0, 0': not two slot counts"),
        ((0, 0, 0), "it returned (0, 0, 0): 3 values, not two slot counts"),
        ((0.0, 0), "it returned (0.0, 0): tracking is 0.0, a float: a count of slots is an int"),
        ((0.5, 0), "it returned (0.5, 0): tracking is 0.5, not a whole number"),
        ((0, -1), "it returned (0, -1): event is -1: a flow takes 0 slots or more"),
        ((True, False), "it returned (True, False): tracking is True, not a whole number"),
    ],
)
def test_anything_but_two_counts_is_named(value: object, said: str) -> None:
    line = _said(lambda order, free, room: value)
    assert line.startswith(f"Not yet: my_admit((), 0, (0, 0)): {said}"), line


def test_a_function_that_goes_wrong_only_in_the_lessons_rounds_is_named_at_its_day_and_round() -> None:
    calls = []

    def tired(order, free, room):
        calls.append(order)
        return (0, 0) if len(calls) > len(judge.SCENARIOS) + 5 else RIGHT(order, free, room)

    said = _said(tired)
    assert said.startswith("Not yet: 24/8, healthy day, round 995: tired("), said


def test_a_learners_exit_or_async_def_is_one_line_and_nothing_is_printed_later(capsys) -> None:
    def exits(order, free, room):
        raise SystemExit("bye")

    async def coroutine(order, free, room):
        return 0, 0

    assert _said(exits).startswith(
        "Not yet: exits((), 0, (0, 0)): it raised SystemExit: bye, where the round"
    )
    said = _said(coroutine)
    assert said.startswith("Not yet: <function ") and "is an async def: this asks for a plain def" in said
    assert _said(lambda order, free, room: coroutine(order, free, room)).startswith(
        "Not yet: my_admit((), 0, (0, 0)): it returned a coroutine"
    )
    assert capsys.readouterr() == ("", "")


def test_the_notebooks_template_cell_is_not_yet_at_a_round_it_drops_for_nothing() -> None:
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    (source,) = [s for s in sources if s.startswith(f"def {CANDIDATES.name}(")]
    said = _said(define(source, CANDIDATES.name))
    assert said == (
        "Not yet: my_admit((0,), 1, (1, 0)): it returned (0, 0), where the round admits (1, 0): in order: "
        "tracking takes a slot. Replay: my_admit((0,), 1, (1, 0))"
    )


def test_the_worked_answer_shows_the_courses_own_cell() -> None:
    assert "def admit(pool: Pool, t: int, order: tuple[int, ...]" in EXERCISE.worked_answer()[1]
