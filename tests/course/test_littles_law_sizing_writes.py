"""Notebook 01's exercise 4, Erlang-B of the learner's own: what tests/course/test_writes.py does not pin.
The judge against the course's own cell, the range and boundaries it samples, numpy's numbers in and out,
each known mistake named by a call to paste, and a learner's exit or async def answered in one line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from writes import define
from writes.n01_erlang_b import CANDIDATES, FACTORIAL, PERCENT, POISSON_ABOVE, POISSON_TAIL, SWAPPED

from bulkhead_lab import sizing
from bulkhead_lab.course.judges import erlang_b as judge
from bulkhead_lab.course.littles_law_sizing import exercises as ex

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / CANDIDATES.notebook
EXERCISE = ex.write_erlang_b
RIGHT = define(CANDIDATES.right, CANDIDATES.name)


def _said(candidate: object) -> str:
    said = EXERCISE.check(candidate).message
    assert "\n" not in said and "Traceback" not in said and "Hint:" not in said, said
    return said


def _seen() -> list[judge.Case]:
    """Every case the judge calls a right function on, in order."""
    seen: list[judge.Case] = []

    def recording(load: float, slots: int) -> float:
        seen.append(judge.Case(float(load), int(slots), isinstance(slots, np.integer)))
        return sizing.erlang_b(slots, load)

    assert judge.check(recording).ok
    return seen


def test_the_courses_own_cell_in_the_exercises_order_is_right_saying_what_was_checked() -> None:
    said = _said(lambda load, slots: sizing.erlang_b(slots, load))
    assert said == _said(RIGHT)
    assert said.startswith(f"Right: checked {len(_seen())} generated scenarios: each value within 1e-09")
    assert "0 to 3000 slots" in said and "numpy's" in said


def test_the_courses_own_cell_as_it_stands_is_told_it_takes_slots_first() -> None:
    said = _said(sizing.erlang_b)
    assert said.startswith("Not yet: erlang_b(0.0, 0): it raised ValueError"), said
    assert "called the other way round, erlang_b(0, 0.0) is Erlang-B: yours takes (slots, load)" in said


def test_the_cases_reach_the_stated_range_and_its_boundaries() -> None:
    cases = _seen()
    slots = {c.slots for c in cases}
    loads = [c.load for c in cases]
    assert {0, 1} <= slots and max(slots) >= 3000 and sum(s >= 1000 for s in slots) >= 5
    assert 0.0 in loads and max(loads) >= 2900 and sum(load >= 745 for load in loads) >= 10
    assert sum(load != int(load) for load in loads) >= 50  # fractional loads
    assert any(c.slots >= 10 and 0.8 <= c.load / c.slots <= 1.2 for c in cases)  # near the pool's size
    assert sum(c.numpy for c in cases) >= 20 and sum(not c.numpy for c in cases) >= 20


def test_the_issues_case_800_erlangs_on_1000_slots_is_judged() -> None:
    assert judge.Case(800.0, 1000) in _seen()


def test_numpy_numbers_returned_are_numbers() -> None:
    assert _said(lambda load, slots: np.float64(sizing.erlang_b(slots, load))).startswith("Right:")


@pytest.mark.parametrize(
    ("source", "said"),
    [
        (FACTORIAL, ": it raised OverflowError"),
        (PERCENT, "yours is 100 times it, a percent"),
        (POISSON_TAIL, "yours is the Poisson tail P(N >= "),
        (SWAPPED, "yours takes (slots, load)"),
    ],
    ids=["overflow", "percent", "poisson", "swapped"],
)
def test_a_known_mistake_is_named_at_a_call_to_paste(source: str, said: str) -> None:
    line = _said(define(source, CANDIDATES.name))
    assert line.startswith("Not yet: my_erlang_b(") and said in line, line
    call = line.removeprefix("Not yet: ").split(":")[0]
    assert f"Replay: {call}, erlang_b(" in line


def test_the_factorial_form_is_told_what_passes_the_largest_float() -> None:
    line = _said(define(FACTORIAL, CANDIDATES.name))
    assert "past the largest float, 1.798e+308" in line, line


def test_the_poisson_tail_above_slots_is_told_no_slots_refuse_every_call() -> None:
    line = _said(define(POISSON_ABOVE, CANDIDATES.name))
    assert line.startswith("Not yet: my_erlang_b(0.0, 0): it returned 0, where Erlang-B is 1: a pool of no")


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (math.nan, "it returned nan, where Erlang-B is"),
        (math.inf, "it returned inf, where Erlang-B is"),
        (-0.5, "it returned -0.5, where Erlang-B is 1: a share refused is from 0 to 1"),
        (1.5, "it returned 1.5, where Erlang-B is 1: a share refused is from 0 to 1"),
        (None, "it returned None, not a number, where Erlang-B is 1"),
        ("0.5", "it returned '0.5', not a number"),
        (True, "it returned True, not a number"),
    ],
)
def test_no_share_is_named(value: object, said: str) -> None:
    line = _said(lambda load, slots: value)
    assert line.startswith(f"Not yet: my_erlang_b(0.0, 0): {said}"), line


def test_a_value_off_by_more_than_the_tolerance_is_not_yet_and_within_it_is_right() -> None:
    assert _said(lambda load, slots: RIGHT(load, slots) * (1 + 1e-11)).startswith("Right:")
    said = _said(lambda load, slots: RIGHT(load, slots) * (1 + 1e-7))
    assert said.startswith("Not yet: my_erlang_b(0.0, 0): it returned 1.0000001, where Erlang-B is 1:"), said


def test_a_numpy_only_failure_is_replayed_with_numpys_numbers() -> None:
    def ints_only(load: float, slots: int) -> float:
        if not isinstance(slots, int):
            raise TypeError("slots must be an int")
        return sizing.erlang_b(slots, load)

    said = _said(ints_only)
    assert "ints_only(np.float64(0.0), np.int64(0)): it raised TypeError" in said
    assert "Replay: import numpy as np; ints_only(np.float64(0.0), np.int64(0))" in said


def test_a_learners_exit_or_async_def_is_one_line_and_nothing_is_printed_later(capsys) -> None:
    def exits(load: float, slots: int) -> float:
        raise SystemExit(3)

    async def coroutine(load: float, slots: int) -> float:
        return 1.0

    assert _said(exits).startswith("Not yet: exits(0.0, 0): it raised SystemExit: 3, where Erlang-B is 1")
    said = _said(coroutine)
    assert said.startswith("Not yet: <function ") and "is an async def: this asks for a plain def" in said
    assert _said(lambda load, slots: coroutine(load, slots)).startswith(
        "Not yet: my_erlang_b(0.0, 0): it returned a coroutine"
    )
    assert capsys.readouterr() == ("", "")


def test_the_notebooks_template_cell_is_not_yet_at_no_slots() -> None:
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    (source,) = [s for s in sources if s.startswith(f"def {CANDIDATES.name}(")]
    said = _said(define(source, CANDIDATES.name))
    assert said == (
        "Not yet: my_erlang_b(0.0, 0): it returned 0, where Erlang-B is 1: a pool of no slots refuses every "
        "call. Replay: my_erlang_b(0.0, 0), erlang_b(0, 0.0)"
    )


def test_the_worked_answer_shows_the_courses_own_cell() -> None:
    assert "def erlang_b(slots: int, offered: float) -> float:" in EXERCISE.worked_answer()[1]
