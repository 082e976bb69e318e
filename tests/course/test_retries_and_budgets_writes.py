"""Notebook 06's exercise 4, a retry budget of the learner's own: the shared candidates, the template and
the course's own cell, and anything else, each judged in one line by section 2's loop, every call refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from writes import define
from writes.n06_budget import CANDIDATES

from bulkhead_lab.course.retries_and_budgets import exercises as ex
from bulkhead_lab.retries.budgets import RetryBudget

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / CANDIDATES.notebook
EXERCISE = ex.write_budget
HINT = f" Hint: {EXERCISE.hint}"


def _template() -> object:
    """What notebook 06's template cell (the code cell defining ``class MyBudget``) defines."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    (source,) = [s for s in sources if s.startswith(f"class {CANDIDATES.name}")]
    return define(source.split("\nexercises.")[0], CANDIDATES.name)  # the class, not a check after it


def _one_line(candidate: object) -> str:
    said = EXERCISE.check(candidate).message
    assert "\n" not in said and "Traceback" not in said
    return said


def test_the_exercise_is_number_4_its_alias_and_its_box_holds_the_templates_name() -> None:
    assert ex.exercise_4 is EXERCISE and EXERCISE.number == CANDIDATES.number == 4
    assert getattr(ex, CANDIDATES.exercise) is EXERCISE
    assert EXERCISE.typed == CANDIDATES.name == "MyBudget"


def test_the_courses_own_cell_and_the_shared_right_source_are_right_at_the_replays_load() -> None:
    load = ex.worst_case_with(RetryBudget)
    for candidate in (RetryBudget, define(CANDIDATES.right, CANDIDATES.name)):
        said = _one_line(candidate)
        assert said.startswith(f"Right: every call refused, your budget holds the load at {load:.3f} calls")


def test_the_notebooks_template_cell_is_not_yet_it_lets_no_retry_through() -> None:
    said = _one_line(_template())
    assert said.startswith("Not yet: your budget let no retry through: 1.000 calls per request.")
    assert said.endswith(HINT)


@pytest.mark.parametrize("source", list(CANDIDATES.broken), ids=range(len(CANDIDATES.broken)))
def test_each_broken_candidate_is_not_yet_naming_what_its_budget_did(source: str) -> None:
    said = _one_line(define(source, CANDIDATES.name))
    assert said.startswith("Not yet: ") and said.endswith(HINT)
    assert CANDIDATES.broken[source] in said


class Forever:
    def __init__(self, ratio):
        pass

    def on_request(self):
        pass

    def can_retry(self):
        while True:
            pass

    def on_retry(self):
        pass


class Raises(Forever):
    def can_retry(self):
        raise LookupError("no such budget")


class InitRaises(Forever):
    def __init__(self, ratio):
        raise RuntimeError("no budget today")


class SaysString(Forever):
    def can_retry(self):
        return "maybe"


@pytest.mark.parametrize(
    ("answer", "line"),
    [
        (None, None),
        ("  ", None),
        (3, "Not yet: 3 is not a class: pass the class itself"),
        (print, "Not yet: <built-in function print> is not a class"),
        ("not a name", "Not yet: 'not a name' is not a class"),
        ("MyBudget", "Not yet: nothing is called MyBudget in this notebook yet: run the cell"),
        (Forever, "Not yet: it was still running after 2 s."),
        (Raises, "Not yet: it raised LookupError: no such budget."),
        (InitRaises, "Not yet: InitRaises(0.1) raised RuntimeError: no budget today."),
        (SaysString, "Not yet: your budget let every retry through"),  # "maybe" is true: every retry goes
    ],
)  # fmt: skip
def test_anything_else_gets_one_line(answer: object, line: str | None) -> None:
    said = _one_line(answer)
    if line is None:
        assert said.startswith("No answer yet. Hint: ")
        return
    assert said.startswith(line) and said.endswith(HINT)


def test_the_worked_answer_shows_the_courses_own_cell() -> None:
    assert "class RetryBudget:" in EXERCISE.worked_answer()[0]
