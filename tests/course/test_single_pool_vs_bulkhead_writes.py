"""Notebook 02's exercise 4, the round's admission of the learner's own: what tests/course/test_writes.py
does not pin (it judges every candidate in tests/writes, its exits and its async def). The oracle is the
course's admit, the rounds reach the boundaries the prose states and the lesson's own rounds are judged,
two counts in numpy's containers are an answer, each replay returns what its line says, and the template's
verdict."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from writes import define
from writes.n02_admit import CANDIDATES

from bulkhead_lab.course.judges import admit as judge
from bulkhead_lab.course.single_pool_vs_bulkhead import exercises as ex
from bulkhead_lab.pool import rounds
from bulkhead_lab.pool.params import LESSON_SPLIT, MODES, Params

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / CANDIDATES.notebook
EXERCISE = ex.write_admit
RIGHT = define(CANDIDATES.right, CANDIDATES.name)


def test_the_oracle_is_notebook_02s_admit() -> None:
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


def test_the_lessons_three_days_around_the_slowdown_are_judged_and_named_at_their_round() -> None:
    lesson = judge.lesson_rounds()
    assert judge.DAYS == (*(Params(split=LESSON_SPLIT, mode=m) for m in MODES), Params(mode="slowdown"))
    assert [r.where for r in lesson[:2]] == ["24/8, healthy day, round 990", "24/8, healthy day, round 991"]
    assert lesson[-1].where == "single pool (32), slowdown day, round 1099"
    assert sum(r.takes != (r.order.count(0), r.order.count(1)) for r in lesson) >= 30  # some are refused
    calls = []

    def tired(order, free, room):  # right on every generated scenario, wrong from the lesson's 6th round
        calls.append(order)
        return (0, 0) if len(calls) > len(judge.SCENARIOS) + 5 else RIGHT(order, free, room)

    said = EXERCISE.check(tired).message
    assert said.startswith("Not yet: 24/8, healthy day, round 995: tired("), said


@pytest.mark.parametrize(
    "returns",
    [lambda pair: np.array(pair), lambda pair: list(pair)],
    ids=["numpy-array", "list"],
)
def test_two_counts_in_a_numpy_array_or_a_list_are_right(returns) -> None:
    assert EXERCISE.check(lambda order, free, room: returns(RIGHT(order, free, room))).ok is True


@pytest.mark.parametrize("source", list(CANDIDATES.broken), ids=list(CANDIDATES.broken.values()))
def test_each_replay_run_in_a_fresh_cell_returns_what_the_line_says(source: str) -> None:
    """A replay line may be two calls (a function that keeps counts between calls): the last returns it."""
    said = EXERCISE.check(define(source, CANDIDATES.name)).message
    returned = re.search(r"(?:: it|the second) returned (.*?)(?:, where|: )", said)
    assert returned is not None, said
    calls = said.split(" Replay: ")[1].split("; ")
    fresh = {CANDIDATES.name: define(source, CANDIDATES.name)}
    shown = [eval(call, fresh) for call in calls][-1]
    assert repr(shown) == returned.group(1), said


def test_the_notebooks_template_cell_is_not_yet_at_a_round_it_drops_for_nothing() -> None:
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    (source,) = [s for s in sources if s.startswith(f"def {CANDIDATES.name}(")]
    assert EXERCISE.check(define(source, CANDIDATES.name)).message == (
        "Not yet: my_admit((0,), 1, (1, 0)): it returned (0, 0), where the round admits (1, 0): in order: "
        "tracking takes a slot. Replay: my_admit((0,), 1, (1, 0))"
    )
