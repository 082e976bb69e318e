"""Notebook 10, section 5: the throttle in notebook 06's storm model. Without a throttle the run is 06's
own, counter for counter; with one, the event flow's load through 24/8's slowdown falls while the pool
serves about as much, nothing is rejected on the healthy day, and a learner's right throttle gives the
course's counts; the capstone's exercise runs once for an answer sent twice (Enter, then Check)."""

from __future__ import annotations

import time
from types import SimpleNamespace

import writes
from writes.n10_throttle import RIGHT

from bulkhead_lab.course.judges.contract import Verdict
from bulkhead_lab.course.your_own_stack import exercises, throttle_storm, views
from bulkhead_lab.live.stack import capstone
from bulkhead_lab.live.stack.throttle import AdaptiveThrottle
from bulkhead_lab.retries import storm as storm06
from bulkhead_lab.retries.budgets import SRE_BUDGET
from bulkhead_lab.retries.seeded import SLOWDOWN


def test_without_a_throttle_the_run_is_notebook_06s_to_the_last_counter() -> None:
    setup = throttle_storm.SETUP.with_(budget=SRE_BUDGET)
    mine, theirs = throttle_storm.run(SLOWDOWN, setup), storm06.run(SLOWDOWN, setup)
    for f in ("tracking", "event"):
        a, b = getattr(mine, f), getattr(theirs, f)
        assert (a.requests, a.reached, a.served, a.refused, a.rejected_here) == (
            b.requests,
            b.attempts,
            b.served,
            b.refused,
            0,
        )


def test_a_throttle_cuts_the_storms_load_behind_the_wall_and_the_pool_serves_as_much() -> None:
    runs = views.storm_runs()
    plain, throttled = runs[("slowdown", False)].event, runs[("slowdown", True)].event
    assert throttled.rejected_here > 0 and throttled.reached < plain.reached
    assert throttled.per_request < 1.5 < 2 < plain.per_request
    assert abs(throttled.served - plain.served) < 0.02 * plain.served
    assert throttled.reached + throttled.rejected_here >= throttled.requests  # every call asked counts
    # Tracking keeps its own compartment: nothing of its load changes.
    assert runs[("slowdown", True)].tracking == runs[("slowdown", False)].tracking
    for day in ("healthy", "one pool"):  # over half accepted: K = 2 rejects nothing
        assert runs[(day, True)] == throttle_storm.ThrottledStorm(
            **{**vars(runs[(day, False)]), "throttled": True}
        )


def test_a_learners_right_throttle_gives_the_courses_counts() -> None:
    learners = writes.define(RIGHT, "MyThrottle")
    assert throttle_storm.run(make=learners) == throttle_storm.run(make=AdaptiveThrottle)


def test_an_answer_sent_twice_at_once_runs_the_capstone_once(monkeypatch) -> None:
    runs: list[object] = []

    async def run_stack(stack: object, on_progress: object = None) -> object:
        runs.append(stack)
        return SimpleNamespace(seconds=0.1)

    monkeypatch.setattr(capstone, "run_stack", run_stack)
    monkeypatch.setattr(exercises, "_stack_of", lambda answer: {})
    monkeypatch.setattr(exercises, "judge", lambda run: Verdict(True, "held"))
    monkeypatch.setattr(capstone, "REQUESTS", 1)
    ex = exercises.LiveExercise(**{**vars(exercises.exercise_3), "_state": {}})
    monkeypatch.setattr(exercises, "exercise_3", ex)
    first, second = ex.check("my_stack"), ex.check("my_stack")  # Enter, then Check, queued behind it
    assert first.ok and second is first and len(runs) == 1
    time.sleep(exercises.REPEAT_S + 0.1)  # a learner pressing Check again later runs it again
    assert ex.check("my_stack").ok and len(runs) == 2
