"""Notebook 01's exercise 4, Erlang-B of the learner's own: the shared candidates, the template and the
course's own cell, and anything else, each judged in one line by the grid of pools and loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from writes import define
from writes.n01_erlang_b import CANDIDATES

from bulkhead_lab import sizing, sizing_facts
from bulkhead_lab.course.littles_law_sizing import exercises as ex

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / CANDIDATES.notebook
EXERCISE = ex.write_erlang_b
HINT = f" Hint: {EXERCISE.hint}"
RIGHT = (
    "Right: your erlang_b(load, slots) is Erlang-B at all 84 points tried (slots 0 to 500, load 0 to 400 "
    "erlangs), within 1e-09 of B plus 1e-12: 8 slots at 5.83 erlangs refuse 11.25%."
)


def _template() -> object:
    """What notebook 01's template cell (the code cell defining ``my_erlang_b``) defines."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    (source,) = [s for s in sources if s.startswith(f"def {CANDIDATES.name}(")]
    return define(source, CANDIDATES.name)


def _one_line(candidate: object) -> str:
    said = EXERCISE.check(candidate).message
    assert "\n" not in said and "Traceback" not in said
    return said


def test_the_exercise_is_number_4_its_alias_and_its_box_holds_the_templates_name() -> None:
    assert ex.exercise_4 is EXERCISE and EXERCISE.number == CANDIDATES.number == 4
    assert getattr(ex, CANDIDATES.exercise) is EXERCISE
    assert EXERCISE.typed == CANDIDATES.name == "my_erlang_b"


def test_the_courses_own_cell_in_the_exercises_argument_order_and_the_shared_right_source_are_right() -> None:
    for candidate in (
        lambda load, slots: sizing.erlang_b(slots, load),
        define(CANDIDATES.right, CANDIDATES.name),
    ):
        assert _one_line(candidate) == RIGHT


def test_the_courses_own_cell_as_it_stands_is_told_to_swap_its_arguments() -> None:
    assert _one_line(sizing.erlang_b).startswith(
        "Not yet: your function takes (slots, load), like sizing.erlang_b"
    )


def test_the_grid_holds_no_slots_no_load_and_500_slots_and_the_tolerance_is_stated() -> None:
    points = sizing_facts.grid()
    assert (0.0, 0) in points and max(s for _, s in points) == 500 and any(a == 0 for a, s in points if s)
    assert (sizing_facts.RELATIVE, sizing_facts.ABSOLUTE) == (1e-9, 1e-12)


def test_the_notebooks_template_cell_is_not_yet_at_no_slots() -> None:
    said = _one_line(_template())
    assert (
        said
        == f"Not yet: at load=0, slots=0 you returned 0: a pool of no slots refuses every call, B = 1.{HINT}"
    )


@pytest.mark.parametrize("source", list(CANDIDATES.broken), ids=range(len(CANDIDATES.broken)))
def test_each_broken_candidate_is_not_yet_naming_its_mistake(source: str) -> None:
    said = _one_line(define(source, CANDIDATES.name))
    assert said.startswith("Not yet: ") and said.endswith(HINT)
    assert CANDIDATES.broken[source] in said


def test_a_value_off_by_more_than_the_tolerance_is_not_yet_and_within_it_is_right() -> None:
    right = define(CANDIDATES.right, CANDIDATES.name)
    assert _one_line(lambda load, slots: right(load, slots) * (1 + 1e-11)) == RIGHT
    said = _one_line(lambda load, slots: right(load, slots) * (1 + 1e-7))
    assert said.startswith("Not yet: at load=0, slots=0 you returned 1.0000001: a pool of no slots")


def forever(load, slots):
    while True:
        pass


def raises(load, slots):
    raise LookupError("no such pool")


@pytest.mark.parametrize(
    ("answer", "line"),
    [
        (None, None),
        ("  ", None),
        (3, "Not yet: 3 is not a function: pass the function itself, e.g. check(my_erlang_b)."),
        (sizing, "Not yet: <module 'bulkhead_lab.sizing' from"),
        ("not a name", "Not yet: 'not a name' is not a name: type your function's name"),
        ("my_erlang_b", "Not yet: nothing is called my_erlang_b in this notebook yet: run the cell"),
        (forever, "Not yet: it was still running after 2 s."),
        (raises, "Not yet: raises(0.0, 0) raised LookupError: no such pool."),
        (lambda load, slots: "0.5", "Not yet: <lambda>(0.0, 0) returned '0.5', not a number"),
        (lambda load, slots: None, "Not yet: <lambda>(0.0, 0) returned None, not a number"),
        (lambda load, slots: math_inf(), "Not yet: a factorial formula overflows at slots=0"),
    ],
)  # fmt: skip
def test_anything_else_gets_one_line(answer: object, line: str | None) -> None:
    said = _one_line(answer)
    if line is None:
        assert said.startswith("No answer yet. Hint: ")
        return
    assert said.startswith(line) and said.endswith(HINT)


def math_inf() -> float:
    return float("inf")


def test_the_worked_answer_shows_the_courses_own_cell() -> None:
    assert "def erlang_b(slots: int, offered: float) -> float:" in EXERCISE.worked_answer()[1]
