"""Notebook 05's exercise 3, an AIMD limiter of the learner's own: the shared candidates, the template and
the course's own cell, and anything else, each judged in one line by the hand-worked trace replayed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from writes import define
from writes.n05_aimd import CANDIDATES

from bulkhead_lab.adaptive.limits import AIMDLimit
from bulkhead_lab.course.adaptive_limits import exercises as ex

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / CANDIDATES.notebook
EXERCISE = ex.write_aimd
HINT = f" Hint: {EXERCISE.hint}"


def _template() -> object:
    """What notebook 05's template cell (the code cell defining ``class MyAIMD``) defines."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    (source,) = [s for s in sources if s.startswith(f"class {CANDIDATES.name}")]
    return define(source, CANDIDATES.name)


def _one_line(candidate: object) -> str:
    said = EXERCISE.check(candidate).message
    assert "\n" not in said and "Traceback" not in said
    return said


def test_the_exercise_is_number_3_its_alias_and_its_box_holds_the_templates_name() -> None:
    assert ex.exercise_3 is EXERCISE and EXERCISE.number == CANDIDATES.number == 3
    assert getattr(ex, CANDIDATES.exercise) is EXERCISE
    assert EXERCISE.typed == CANDIDATES.name == "MyAIMD"


def test_the_courses_own_cell_and_the_shared_right_source_are_right_over_every_sample() -> None:
    for candidate in (AIMDLimit, define(CANDIDATES.right, CANDIDATES.name)):
        assert (
            _one_line(candidate)
            == f"Right: your AIMD gives the hand-worked limit after each of the {len(ex.TRACE)} samples."
        )


def test_the_notebooks_template_cell_is_not_yet_at_the_first_sample_that_moves_the_limit() -> None:
    said = _one_line(_template())
    assert said.startswith(
        "Not yet: after sample 1 (a success with 12 in flight at limit 20) the limit should be 21"
    )
    assert said.endswith(HINT)


@pytest.mark.parametrize("source", list(CANDIDATES.broken), ids=range(len(CANDIDATES.broken)))
def test_each_broken_candidate_is_not_yet_naming_the_first_sample_it_gets_wrong(source: str) -> None:
    said = _one_line(define(source, CANDIDATES.name))
    assert said.startswith("Not yet: ") and said.endswith(HINT)
    assert CANDIDATES.broken[source] in said


class Forever:
    def __init__(self, initial, min_limit, max_limit):
        pass

    def on_sample(self, rtt, inflight, dropped):
        while True:
            pass


class Raises:
    def __init__(self, initial, min_limit, max_limit):
        pass

    def on_sample(self, rtt, inflight, dropped):
        raise LookupError("no such sample")


class InitRaises:
    def __init__(self, initial, min_limit, max_limit):
        raise RuntimeError("not today")


class SaysString(Forever):
    def on_sample(self, rtt, inflight, dropped):
        return "twenty"


@pytest.mark.parametrize(
    ("answer", "line"),
    [
        (None, None),
        ("  ", None),
        (3, "Not yet: 3 is not a class: pass the class itself"),
        (len, "Not yet: <built-in function len> is not a class"),
        ("not a name", "Not yet: 'not a name' is not a name: type your class's name, as its cell"),
        ("MyAIMD", "Not yet: nothing is called MyAIMD in this notebook yet: run the cell that defines it."),
        (Forever, "Not yet: it was still running after 2 s."),
        (Raises, "Not yet: it raised LookupError: no such sample."),
        (InitRaises, "Not yet: InitRaises(20, 15, 22) raised RuntimeError: not today."),
        (SaysString, "Not yet: after sample 1 (a success with 12 in flight at limit 20) on_sample returned"),
    ],
)  # fmt: skip
def test_anything_else_gets_one_line(answer: object, line: str | None) -> None:
    said = _one_line(answer)
    if line is None:
        assert said.startswith("No answer yet. Hint: ")
        return
    assert said.startswith(line) and said.endswith(HINT)


def test_the_worked_answer_shows_the_courses_own_cell() -> None:
    assert "class AIMDLimit(AdaptiveLimit):" in EXERCISE.worked_answer()[1]
