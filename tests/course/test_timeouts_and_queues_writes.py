"""Notebook 07's exercise 4, a deadline drop of the learner's own: what tests/course/test_writes.py does not
pin (it judges every candidate in tests/writes, its exits and its async def). The course's own step
replays section 2's storm round for round; the oracle on the grid and the
boundaries the notebook states; section 2's storm judged; the template's verdict and its replay line,
numpy's numbers too."""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path

import numpy as np
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


def _said(candidate: object) -> str:
    return EXERCISE.check(candidate).message


def test_the_courses_own_step_replays_the_courses_deadline_drop_round_for_round() -> None:
    storm = judge.judged_storm(judge.take_next)
    assert storm.broke is None and storm.run is not None and storm.steps > 1500
    assert storm.run.trace == kept_run(with_fix(judge.STORM, "deadline drop")).trace


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


def test_the_template_cell_is_not_yet_naming_a_call_answered_after_its_caller_gives_up() -> None:
    said = _said(define(_cell_defining(CANDIDATES.name), CANDIDATES.name))
    assert said == (
        "Not yet: my_take_next(q, now=120, service=6) with q = 1 call due at rounds [125], oldest first: it "
        "returned call 1 (due 125) and left q = [], where the deadline drop drops call 1 (due 125), returns "
        "None and leaves q = []: call 1 (due 125) is answered in round 126, 1 round after its caller gives "
        "up. Replay: exercises.replay_step(my_take_next, [125], now=120, service=6)"
    )


def test_the_replay_line_replays_the_case_in_a_cell_with_numpy_numbers_too() -> None:
    step = define(_cell_defining(CANDIDATES.name), CANDIDATES.name)
    replay = _said(step).split("Replay: ")[1]
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

    said = _said(tires)
    assert said.startswith("Not yet: in section 2's storm (no fix, your step in every worker), round 1")
    assert "Replay: exercises.replay_step(tires, [" in said
