"""Notebook 04's exercises: checks that run the learner's choice, and a bulkhead of the learner's own
judged by cockatiel's facts; whatever is passed, one line back (no sockets here: the live tests run them)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque

import fail_fast_queue_runs as fake
import pytest

from bulkhead_lab.course.fail_fast_queue import exercises, views
from bulkhead_lab.live.bulkhead import Bulkhead, BulkheadRejectedError

ANYTHING = (None, "", "   ", -7, "21/11 or so", "banana", 8.5, [8], {"a": 1}, float("nan"), True, "1e400")


@pytest.fixture
def burst(monkeypatch) -> list[dict]:
    """Exercise 1's live run stood in by a lesson-shaped one: served = limit + queue, the rest refused."""
    asked: list[dict] = []

    def run(variant, **values):
        asked.append({"variant": variant, **values})
        served = min(20, values["limit"] + values["queue"])
        r = fake.limited(values["slow_latency"])
        r.requests = [
            fake.answer("order", i, 200 if i <= served else 503, 0.0, 0.0, 0.5) for i in range(1, 21)
        ]
        r.payment = fake.DependencyStats(values["limit"], 0, served)
        return r

    monkeypatch.setattr(views, "run", run)
    return asked


def test_exercise_1_runs_the_learners_waiting_places_and_judges_what_was_counted(burst) -> None:
    assert exercises.queue_1() == 20 - 4 - 6 == 10
    said = exercises.exercise_1.check("10 places")
    assert said.message == (
        "Right: 10 waiting places: the run served 14, refused 6 at once with 503, and Payment never held "
        "more than 4."
    )
    assert burst == [{"variant": "limited", "limit": 4, "queue": 10, "slow_latency": 0.5, "stock_checks": 0}]
    assert exercises.exercise_1.check(8).message.startswith(
        "Not yet: 8 waiting places: the run refused 8 at once, not 6."
    )
    assert "the 4 running places take orders too" in exercises.exercise_1.check(14).message
    assert len(burst) == 3  # each check ran the learner's choice once
    assert exercises.exercise_1.check(21).message.startswith("Not yet: 21 is not in 0..20")
    assert len(burst) == 3  # a choice out of range never runs


def test_exercise_2_and_3_follow_the_rules_the_runs_and_erlang_b_follow() -> None:
    assert exercises.last_answer_2() == 9.0
    for typed in ("9", "9 s", 9.0, "9000 ms"):
        assert exercises.exercise_2.check(typed).ok, typed
    assert "the refused never wait" in exercises.exercise_2.check(15).message
    assert exercises.limit_3() == 30
    assert exercises.exercise_3.check(30).message.startswith("Right: 30 places refuse 0.85% of calls")
    assert "the 2.5x rule" in exercises.exercise_3.check(50).message
    assert exercises.exercise_3.check(29).message.startswith(
        "Not yet: 29 places refuse 1.28% at 20 in flight: more"
    )
    assert "fewer places do too" in exercises.exercise_3.check(40).message


@pytest.mark.parametrize("exercise", [exercises.exercise_1, exercises.exercise_2, exercises.exercise_3])
def test_every_checker_takes_anything_and_answers_in_one_line(exercise, burst) -> None:
    for typed in ANYTHING:
        line = exercise.check(typed).message
        assert "\n" not in line, (typed, line)
        assert line.startswith(("No answer yet.", "Not yet:", "Right:")), (typed, line)


def test_the_worked_answers_give_the_computed_numbers() -> None:
    assert exercises.exercise_1.worked_answer()[0].startswith("**10 waiting places.**")
    assert exercises.exercise_2.worked_answer()[0].startswith("**About 9 s.**")
    assert exercises.exercise_3.worked_answer()[0].startswith("**30.**")
    code = exercises.write_bulkhead.worked_answer()[1]
    assert code.startswith("```python\nclass Bulkhead:") and "popleft()" in code


# --- exercise 4: the learner's own bulkhead -------------------------------------------------------


class NoQueue(Bulkhead):
    """Refuses as soon as every running place is taken: no waiting place at all."""

    def __init__(self, limit: int, queue: int = 0) -> None:
        super().__init__(limit, 0)


class Lifo(Bulkhead):
    """The newest waiter first."""

    def admit(self) -> None:
        while self.waiting and self.running < self.limit:
            place = self.waiting.pop()
            if not place.done():
                self.running += 1
                place.set_result(None)


class NoReleaseOnError(Bulkhead):
    """Gives the place back only when the call succeeds."""

    async def execute(self, fn):
        await self.acquire()
        result = await fn()
        self.release()
        return result


class NeverReturns(Bulkhead):
    """Runs the call, then waits for nothing, for ever."""

    async def execute(self, fn):
        await super().execute(fn)
        await asyncio.Event().wait()


class Spins(Bulkhead):
    """A loop that never yields once the bulkhead is full."""

    async def acquire(self) -> None:
        while self.running >= self.limit: pass  # noqa: E701  # fmt: skip
        self.running += 1


class Prints(Bulkhead):
    def __init__(self, limit: int, queue: int = 0) -> None:
        print("building a bulkhead")
        super().__init__(limit, queue)


class InitRaises:
    def __init__(self, limit: int, queue: int) -> None:
        raise RuntimeError("not today\nsecond line")


class Semaphore:
    """A learner's own, written from scratch: a count and a deque, no names in common with the course's."""

    def __init__(self, limit: int, queue: int) -> None:
        self.free, self.room, self.line = limit, queue, deque()

    async def execute(self, fn):
        if self.free:
            self.free -= 1
        elif len(self.line) < self.room:
            turn = asyncio.get_running_loop().create_future()
            self.line.append(turn)
            await turn
        else:
            raise OverflowError("full")
        try:
            return await fn()
        finally:
            if self.line:
                self.line.popleft().set_result(None)
            else:
                self.free += 1


def test_the_cells_bulkhead_and_a_learners_own_hold_every_fact() -> None:
    right = "Right: your bulkhead holds every fact of cockatiel's tests: 5 run at once and never more"
    for candidate in (Bulkhead, Semaphore, Prints):
        assert exercises.write_bulkhead.check(candidate).message.startswith(right), candidate


@pytest.mark.parametrize(
    ("candidate", "line"),
    [
        (NoQueue, "the 6th call was refused (BulkheadRejectedError: bulkhead full: 5/5 running, 0/0 queued) "
                  "though a waiting place was free."),
        (Lifo, "waiting calls started out of order: the 10th before the 6th (first come, first served)."),
        (NoReleaseOnError, "a call that raised kept its place: the next call was refused."),
        (NeverReturns, "the 1st call's function ended, but execute never returned."),
        (Spins, "it was still running after 2 s."),
        (InitRaises, "InitRaises(5, 5) raised RuntimeError: not today."),
        (None, None),
        (print, "<built-in function print> is not a class: pass the class itself, e.g. check(Bulkhead)."),
        ("MyBulkhead", "nothing is called MyBulkhead in this notebook yet: run the cell that defines it."),
        ("my bulkhead", "'my bulkhead' is not a name: type your class's name, as its cell defines it."),
        (3, "3 is not a class: pass the class itself, e.g. check(Bulkhead)."),
    ],
)  # fmt: skip
def test_a_broken_bulkhead_or_anything_else_gets_one_line_naming_what_failed(candidate, line) -> None:
    said = exercises.write_bulkhead.check(candidate)
    if line is None:
        assert said.ok is None and said.message.startswith("No answer yet. Hint:")
        return
    assert said.message == f"Not yet: {line} Hint: {exercises.write_bulkhead.hint}"
    assert "\n" not in said.message


def test_a_check_leaves_no_thread_or_task_behind_and_keeps_to_its_deadline() -> None:
    before = set(threading.enumerate())
    started = time.monotonic()
    assert exercises.write_bulkhead.check(Spins).message.startswith(
        "Not yet: it was still running after 2 s."
    )
    assert exercises.write_bulkhead.check(NeverReturns).ok is False
    assert time.monotonic() - started < 6.0
    deadline = time.monotonic() + 5.0
    while set(threading.enumerate()) - before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert set(threading.enumerate()) - before == set()


def test_the_answer_box_starts_with_the_templates_class_name_and_finds_it_in_the_notebook(
    monkeypatch,
) -> None:
    from bulkhead_lab.course.ui import exercise as ui

    class Shell:
        user_ns = {"MyBulkhead": Lifo}

    monkeypatch.setattr(ui, "get_ipython", lambda: Shell())
    panel = exercises.write_bulkhead.widget()
    (box,) = [c for c in panel.children[0].children if hasattr(c, "placeholder")]
    assert box.value == "MyBulkhead"
    assert "out of order" in exercises.write_bulkhead.check(box.value).message
    assert isinstance(BulkheadRejectedError("x"), Exception)
