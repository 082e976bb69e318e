"""Notebook 07's exercise 4, a deadline drop of the learner's own: the shared candidates, the template and
the course's own cells, and anything else, each judged in one line by section 2's storm replayed."""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path

import pytest
from writes import define
from writes.n07_deadline_drop import CANDIDATES

from bulkhead_lab.course.timeouts_and_queues import exercises as ex
from bulkhead_lab.queues import deadline_facts
from bulkhead_lab.queues.calls import Call
from bulkhead_lab.queues.fixes import with_fix
from bulkhead_lab.queues.recovery import storm
from bulkhead_lab.queues.rounds import kept_run

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / CANDIDATES.notebook
EXERCISE = ex.write_deadline_drop
HINT = f" Hint: {EXERCISE.hint}"


def _cell_defining(name: str) -> str:
    """The source of notebook 07's code cell that defines ``name``."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    (source,) = [s for s in sources if f"def {name}(" in s]
    return source


def _one_line(candidate: object) -> str:
    said = EXERCISE.check(candidate).message
    assert "\n" not in said and "Traceback" not in said
    return said


def test_the_exercise_is_number_4_its_alias_and_its_box_holds_the_templates_name() -> None:
    assert ex.exercise_4 is EXERCISE and EXERCISE.number == CANDIDATES.number == 4
    assert getattr(ex, CANDIDATES.exercise) is EXERCISE
    assert EXERCISE.typed == CANDIDATES.name == "my_take_next"


def test_the_courses_own_step_replays_the_courses_deadline_drop_round_for_round() -> None:
    mine, notes = deadline_facts.replay(deadline_facts.take_next)
    assert mine.run.trace == kept_run(with_fix(deadline_facts.DEFAULT, "deadline drop")).trace
    assert notes.late is None and notes.bad_drop is None and notes.dropped > 0


def test_the_courses_own_step_and_the_shared_right_source_are_right_with_the_replays_numbers() -> None:
    own = storm(with_fix(deadline_facts.DEFAULT, "deadline drop"))
    for candidate in (deadline_facts.take_next, define(CANDIDATES.right, CANDIDATES.name)):
        said = _one_line(candidate)
        assert said.startswith(f"Right: goodput is back {own.recovery} rounds after the slowdown's end")
        assert f"{own.after('goodput')} answered in time after the slowdown" in said


def test_the_notebooks_template_cell_is_not_yet_and_names_the_first_late_start() -> None:
    template = define(_cell_defining(CANDIDATES.name), CANDIDATES.name)
    said = _one_line(template)
    assert said.startswith("Not yet: in round ") and "a worker started a call that ends in round" in said
    assert said.endswith(HINT)


@pytest.mark.parametrize("source", list(CANDIDATES.broken), ids=range(len(CANDIDATES.broken)))
def test_each_broken_candidate_is_not_yet_naming_what_broke(source: str) -> None:
    said = _one_line(define(source, CANDIDATES.name))
    assert said.startswith("Not yet: ") and said.endswith(HINT)
    assert CANDIDATES.broken[source] in said


def test_the_first_broken_candidate_is_exercise_2s_half_fix_and_names_the_round_it_went_wrong() -> None:
    first = next(iter(CANDIDATES.broken))
    assert "now < call.deadline" in first
    said = _one_line(define(first, CANDIDATES.name))
    assert said.startswith("Not yet: in round 1")  # during the slowdown (rounds 1000 .. 1499)


def test_a_step_that_changes_a_deadline_is_not_yet() -> None:
    def stretches(queue: deque[Call], now: int, service: int) -> Call | None:
        call = queue.popleft()
        call.deadline += service
        return call

    assert "it changed a call's deadline" in _one_line(stretches)


def test_a_step_that_puts_a_call_back_is_not_yet() -> None:
    def rotates(queue: deque[Call], now: int, service: int) -> Call | None:
        queue.append(queue.popleft())
        return queue[0]

    assert "a worker would serve it twice" in _one_line(rotates)


def test_a_step_that_never_starts_a_call_is_not_yet_goodput_never_came_back() -> None:
    said = _one_line(lambda queue, now, service: None)
    assert said.startswith("Not yet: goodput never came back after the slowdown's end (round 1500): 0 calls")


def forever(queue: deque[Call], now: int, service: int) -> Call | None:
    while True:
        pass


def raises(queue: deque[Call], now: int, service: int) -> Call | None:
    raise LookupError("no such call")


class Worker:
    pass


@pytest.mark.parametrize(
    ("answer", "line"),
    [
        (None, None),
        ("  ", None),
        (3, "Not yet: 3 is not a function: pass the function itself, e.g. check(my_take_next)."),
        (Worker, "Not yet: <class '"),
        ("not a name", "Not yet: 'not a name' is not a name: type your function's name, as its cell"),
        ("my_take_next", "Not yet: nothing is called my_take_next in this notebook yet: run the cell that"),
        (forever, "Not yet: it was still running after 2 s."),
        (raises, "Not yet: in round 0 raises(a queue of 1 call, 0, 6) raised LookupError: no such call."),
        (lambda queue, now, service: "oldest", "Not yet: in round 0 it returned 'oldest', not a call from"),
    ],
)  # fmt: skip
def test_anything_else_gets_one_line(answer: object, line: str | None) -> None:
    said = _one_line(answer)
    if line is None:
        assert said.startswith("No answer yet. Hint: ")
        return
    assert said.startswith(line) and said.endswith(HINT)


def test_the_worked_answer_shows_the_courses_own_step() -> None:
    heading, code = EXERCISE.worked_answer()
    assert isinstance(heading, str) and heading.startswith("**The course's own step**")
    assert (
        isinstance(code, str) and "def take_next(queue" in code and "now + service <= call.deadline" in code
    )
