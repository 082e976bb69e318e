"""Notebook 07's exercise 4, a deadline drop of the learner's own: what tests/course/test_writes.py does not
pin. The judge against the course's own rule and storm, the boundaries the notebook states, the smallest
case and its replay line, the template's verdict, and anything else in one line with nothing left behind."""

from __future__ import annotations

import contextlib
import io
import json
from collections import deque
from pathlib import Path

import numpy as np
import pytest
from writes import define
from writes.n07_deadline_drop import CANDIDATES

from bulkhead_lab.course.judges import deadline_drop as judge
from bulkhead_lab.course.timeouts_and_queues import exercises as ex
from bulkhead_lab.queues.calls import Call
from bulkhead_lab.queues.fixes import with_fix
from bulkhead_lab.queues.rounds import kept_run

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / CANDIDATES.notebook
EXERCISE = ex.write_deadline_drop


def _cell_defining(name: str) -> str:
    """The source of notebook 07's code cell that defines ``name``."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    (source,) = [s for s in sources if f"def {name}(" in s]
    return source


def _one_line(candidate: object) -> str:
    said = EXERCISE.check(candidate).message
    assert "\n" not in said and "Traceback" not in said and "Hint:" not in said, said
    return said


def _step(body: str) -> object:
    """A step whose body is ``body`` (indented by four), as a learner's cell defines it."""
    source = "def my_take_next(queue, now, service):\n" + "".join(
        f"    {line}\n" for line in body.splitlines()
    )
    return define(source, "my_take_next")


def test_the_exercise_is_number_4_its_alias_and_its_box_holds_the_templates_name() -> None:
    assert ex.exercise_4 is EXERCISE and EXERCISE.number == CANDIDATES.number == 4
    assert getattr(ex, CANDIDATES.exercise) is EXERCISE
    assert EXERCISE.typed == CANDIDATES.name == "my_take_next"


def test_the_courses_own_step_replays_the_courses_deadline_drop_round_for_round() -> None:
    storm = judge.judged_storm(judge.take_next)
    assert storm.broke is None and storm.run is not None and storm.steps > 1500
    assert storm.run.trace == kept_run(with_fix(judge.STORM, "deadline drop")).trace


def test_the_courses_own_step_is_right_and_the_line_says_what_was_checked() -> None:
    said = _one_line(judge.take_next)
    assert said.startswith(f"Right: checked {len(judge.grid()) + judge.EXAMPLES} generated scenarios: ")
    assert "then section 2's storm to round 2000 with it in every worker: its " in said


def test_the_oracle_is_section_2s_may_start_and_agrees_with_the_worked_answer_on_the_grid() -> None:
    for deadlines, now, service in judge.grid():
        queue = judge.queue_of(deadlines, now)
        calls = list(queue)
        took = judge.take_next(queue, now, service)
        i = judge.course_takes(calls, now, service)
        assert took is (calls[i] if i < len(calls) else None) and list(queue) == calls[i + 1 :]


def test_the_grid_holds_every_boundary_the_notebook_states() -> None:
    cases = set(judge.grid())
    assert ((), 120, 6) in cases  # an empty queue
    assert ((30, 119, 120), 120, 6) in cases  # every call expired, long ago and just now
    assert ((126,), 120, 6) in cases and ((142,), 120, 22) in cases  # answered exactly at the deadline
    assert ((125,), 120, 6) in cases and ((141,), 120, 22) in cases  # one round short
    assert ((150,), 120, 31) in cases and ((150,), 120, 30) in cases  # service past and at the timeout


def _takes_when(fits: str) -> object:
    """The course's step with ``fits`` for its test of whether a call can finish in time."""
    return _step(
        f"while queue:\n    call = queue.popleft()\n    if {fits}:\n        return call\nreturn None"
    )


NO_GUARD = (
    "call = queue.popleft()\nwhile now + service > call.deadline:\n    call = queue.popleft()\nreturn call"
)


ONE_BOUNDARY = {  # a step wrong at one boundary only -> what its verdict names
    "empty queue": (_step(NO_GUARD), "with q empty: it raised IndexError"),
    "exactly at the deadline": (
        _takes_when("now + service < call.deadline"),
        "call 1 (due 126) would be answered in round 126, in time",
    ),
    "one round short": (
        _takes_when("now + service - 1 <= call.deadline"),
        "call 1 (due 125) is answered in round 126, 1 round after its caller gives up",
    ),
    "service past the timeout": (
        _takes_when("now + min(service, 30) <= call.deadline"),
        "service=31) with q = 1 call due at rounds [150]",
    ),
    "expired": (
        _takes_when("now + service <= call.deadline or now >= call.deadline"),
        "call 1 (due 120) is answered in round 126, 6 rounds after its caller gives up (it has already gone)",
    ),
}


@pytest.mark.parametrize(("step", "named"), list(ONE_BOUNDARY.values()), ids=list(ONE_BOUNDARY))
def test_a_step_wrong_only_at_one_boundary_is_not_yet_on_the_smallest_queue_there(
    step: object, named: str
) -> None:
    said = _one_line(step)
    assert said.startswith("Not yet: my_take_next(q, now=120, ") and named in said


def test_the_template_cell_is_not_yet_naming_a_call_answered_after_its_caller_gives_up() -> None:
    said = _one_line(define(_cell_defining(CANDIDATES.name), CANDIDATES.name))
    assert said == (
        "Not yet: my_take_next(q, now=120, service=6) with q = 1 call due at rounds [125], oldest first: it "
        "returned call 1 (due 125) and left q = [], where the deadline drop drops call 1 (due 125), returns "
        "None and leaves q = []: call 1 (due 125) is answered in round 126, 1 round after its caller gives "
        "up. Replay: exercises.replay_step(my_take_next, [125], now=120, service=6)"
    )


def test_the_replay_line_replays_the_case_in_a_cell_with_numpy_numbers_too() -> None:
    step = define(_cell_defining(CANDIDATES.name), CANDIDATES.name)
    replay = _one_line(step).split("Replay: ")[1]
    shown = eval(replay, {"exercises": ex, "my_take_next": step})  # what the learner pastes
    assert not shown.ok and "it returned call 1 (due 125) and left q = []" in repr(shown)
    again = ex.replay_step(step, [np.int64(125)], now=np.int64(120), service=np.int32(6))
    assert repr(again) == repr(shown)
    right = ex.replay_step(judge.take_next, [125, 126], now=120, service=6)
    assert right.ok and "it returned call 2 (due 126), dropped call 1 (due 125)" in repr(right)


def test_a_step_that_goes_wrong_only_late_is_not_yet_in_section_2s_storm() -> None:
    calls, enough = [0], len(judge.grid()) + 2 * judge.EXAMPLES  # past the grid's and the search's calls

    def tires(queue: deque[Call], now: int, service: int) -> Call | None:
        calls[0] += 1
        if calls[0] > enough:  # it serves the front, as the storm does
            return queue.popleft() if queue else None
        return judge.take_next(queue, now, service)

    said = _one_line(tires)
    assert said.startswith("Not yet: in section 2's storm (no fix, your step in every worker), round 1")
    assert "Replay: exercises.replay_step(tires, [" in said


def test_a_step_wrong_once_in_the_storm_and_never_again_is_named_as_depending_on_its_earlier_calls() -> None:
    state, enough = {"calls": 0, "used": False}, len(judge.grid()) + 2 * judge.EXAMPLES

    def once(queue: deque[Call], now: int, service: int) -> Call | None:
        state["calls"] += 1
        if state["calls"] > enough and not state["used"] and queue and now + service > queue[0].deadline:
            state["used"] = True
            return queue.popleft()  # one call that ends late, then never again
        return judge.take_next(queue, now, service)

    said = _one_line(once)
    assert said.startswith("Not yet: in section 2's storm (no fix, your step in every worker), round 1")
    assert said.endswith("(on a fresh queue of the same calls it does as the course does: it depends on its "
                         "earlier calls).")  # fmt: skip


def test_a_step_that_changes_a_deadline_is_not_yet_naming_the_field() -> None:
    said = _one_line(
        _step("call = queue.popleft() if queue else None\nif call:\n    call.deadline += 1\nreturn call")
    )
    assert "it changed call 1 (due 125)'s deadline from 125 to 126" in said


def test_a_step_that_puts_a_call_back_is_not_yet() -> None:
    said = _one_line(_step(
        "while queue and now + service > queue[0].deadline:\n    queue.popleft()\n"
        "if queue:\n    queue.rotate(-1)\n    return queue[-1]"
    ))  # fmt: skip
    assert "is still in q too: a worker would serve it twice" in said


def test_a_step_that_exits_is_one_line_and_prints_nothing_later() -> None:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        said = _one_line(_step("import sys\nsys.exit(3)"))
        said_too = _one_line(_step("raise KeyboardInterrupt"))
    assert said.endswith(
        "with q empty: it raised SystemExit: 3, where the deadline drop returns None and "
        "leaves q = []. Replay: exercises.replay_step(my_take_next, [], now=120, service=6)"
    )
    assert "it raised KeyboardInterrupt, where" in said_too and printed.getvalue() == ""  # fmt: skip


async def async_step(queue: deque[Call], now: int, service: int) -> Call | None:
    return None


class Worker:
    pass


@pytest.mark.parametrize(
    ("answer", "line"),
    [
        (None, "No answer yet. Type your function's name, then press Check (Hint helps)."),
        ("  ", "No answer yet. Type your function's name, then press Check (Hint helps)."),
        (3, "Not yet: 3 is not a function: pass the function itself, e.g. check(my_take_next)."),
        (Worker, "Not yet: <class '"),
        (async_step, "Not yet: <function async_step at "),
        ("not a name", "Not yet: 'not a name' is not a name: type your function's name, as its cell"),
        ("my_take_next", "Not yet: nothing is called my_take_next in this notebook yet: run the cell that"),
        (lambda queue, now, service: "oldest",
         "Not yet: my_take_next(q, now=120, service=6) with q empty: it returned 'oldest', not a call"),
    ],
)  # fmt: skip
def test_anything_else_gets_one_line(answer: object, line: str) -> None:
    said = EXERCISE.check(answer).message
    assert "\n" not in said and said.startswith(line), said


def test_the_worked_answer_shows_the_courses_own_step() -> None:
    heading, code = EXERCISE.worked_answer()
    assert isinstance(heading, str) and heading.startswith("**The course's own step**")
    assert (
        isinstance(code, str) and "def take_next(queue" in code and "now + service <= call.deadline" in code
    )
