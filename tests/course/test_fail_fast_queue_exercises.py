"""Notebook 04's exercises: checks that run the learner's choice, and a bulkhead of the learner's own
judged by its contract beside the course's; whatever is passed, one line back (no sockets here: the live
tests run them). tests/course/test_writes.py judges tests/writes/n04_bulkhead.py's candidates; here, what
it does not pin: the smallest case a verdict names, its replay, the leeway, the template's verdict."""

from __future__ import annotations

import asyncio
import gc
import json
import re
import threading
import time
from collections import deque
from pathlib import Path

import fail_fast_queue_runs as fake
import pytest

from bulkhead_lab.course.fail_fast_queue import exercises, views
from bulkhead_lab.live.bulkhead import Bulkhead, BulkheadRejectedError

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "04_fail_fast_queue.ipynb"
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


class ExitsInExecute(Bulkhead):
    async def execute(self, fn):
        raise SystemExit(3)


class PlainExecute(Bulkhead):
    def execute(self, fn):  # a def where an async def belongs: nothing to await
        return None


class FromScratch:
    """A learner's own, written from scratch: free places counted down, a deque, no names in common with
    the course's, a freed place handed straight to the oldest waiter still waiting."""

    def __init__(self, limit: int, queue: int) -> None:
        self.free, self.room, self.line = limit, queue, deque()

    def _pass_on(self) -> None:
        while self.line:
            turn = self.line.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        self.free += 1

    async def execute(self, fn):
        if self.free:
            self.free -= 1
        elif len(self.line) < self.room:
            turn = asyncio.get_running_loop().create_future()
            self.line.append(turn)
            try:
                await turn
            except asyncio.CancelledError:
                if turn.cancelled():
                    self.line.remove(turn)
                else:
                    self._pass_on()
                raise
        else:
            raise OverflowError("full")
        try:
            return await fn()
        finally:
            self._pass_on()


class CountsTheHandedWaiter:
    """asyncio's Semaphore for the places and a count of the waiting, which counts a waiter until it
    resumes: the leeway lets a newcomer be refused in the tick a place was handed to that waiter."""

    def __init__(self, limit: int, queue: int) -> None:
        self.places, self.queue, self.in_line = asyncio.Semaphore(limit), queue, 0

    async def execute(self, fn):
        if self.places.locked():
            if self.in_line >= self.queue:
                raise RuntimeError("full")
            self.in_line += 1
            try:
                await self.places.acquire()
            finally:
                self.in_line -= 1
        else:
            await self.places.acquire()
        try:
            return await fn()
        finally:
            self.places.release()


RIGHT = re.compile(
    r"^Right: checked 16 schedules written out and \d+ generated: never more than limit running nor queue "
    r"waiting; places handed to the waiting in arrival order, never to a newcomer; .*; two bulkheads at "
    r"once stay independent\.$"
)


def test_the_cells_bulkhead_and_a_learners_own_keep_the_contract_and_print_nothing(capfd) -> None:
    for candidate in (Bulkhead, FromScratch, CountsTheHandedWaiter, Prints):
        said = exercises.write_bulkhead.check(candidate).message
        assert RIGHT.match(said), (candidate, said)
    gc.collect()
    assert capfd.readouterr() == ("", "")  # Prints's line stayed in its trial


SMALLEST = {
    NoQueue: "NoQueue(1, 1), step by step: 1. call 1 arrives (call 1 runs); 2. call 2 arrives: call 2 was "
    "refused with BulkheadRejectedError: bulkhead full: 1/1 running, 0/0 queued (then running [1], waiting "
    "[]), where by the contract call 2 waits (running [1], waiting [2]). "
    'Replay: exercises.replay(NoQueue, 1, 1, "arrive | arrive")',
    Lifo: "Lifo(1, 2), step by step: 1. call 1 arrives, call 2 arrives, call 3 arrives in one loop tick "
    "(call 1 runs, call 2 waits, call 3 waits); 2. call 1 finishes: call 2 waits (then running [3], "
    "waiting [2]), where by the contract call 2 runs (running [2], waiting [3]). "
    'Replay: exercises.replay(Lifo, 1, 2, "arrive, arrive, arrive | finish 1")',
    NoReleaseOnError: "NoReleaseOnError(1, 1), step by step: 1. call 1 arrives (call 1 runs); 2. call 2 "
    "arrives (call 2 waits); 3. call 1 fails (ValueError): call 2 waits (then running [], waiting [2]), "
    "where by the contract call 2 runs (running [2], waiting []). "
    'Replay: exercises.replay(NoReleaseOnError, 1, 1, "arrive | arrive | fail 1")',
    NeverReturns: "NeverReturns(1, 0), step by step: 1. call 1 arrives (call 1 runs); 2. every call still "
    "running or waiting finishes: call 1 has not returned, though its fn has ended (then running [], "
    "waiting []), where by the contract call 1 returns its fn's result (running [], waiting []). "
    'Replay: exercises.replay(NeverReturns, 1, 0, "arrive | finish all")',
    ExitsInExecute: "ExitsInExecute(1, 0), step by step: 1. call 1 arrives: call 1 was refused with "
    "SystemExit: 3 (then running [], waiting []), where by the contract call 1 runs (running [1], waiting "
    '[]). Replay: exercises.replay(ExitsInExecute, 1, 0, "arrive")',
    PlainExecute: "PlainExecute(1, 0), step by step: 1. call 1 arrives: call 1's execute(fn) returned None, "
    "not something to await, where execute is an async def: await it. "
    'Replay: exercises.replay(PlainExecute, 1, 0, "arrive")',
    Spins: "it was still running after 2 s.",
    InitRaises: "InitRaises(1, 0) raised RuntimeError: not today.",
    print: "<built-in function print> is not a class: pass the class itself, e.g. check(MyBulkhead).",
    "MyBulkhead": "nothing is called MyBulkhead in this notebook yet: run the cell that defines it.",
    "my bulkhead": "'my bulkhead' is not a name: type your class's name, as its cell defines it.",
    3: "3 is not a class: pass the class itself, e.g. check(MyBulkhead).",
}


@pytest.mark.parametrize(("candidate", "line"), [*SMALLEST.items(), (None, None)])
def test_a_broken_bulkhead_or_anything_else_gets_one_line_naming_its_smallest_case(candidate, line) -> None:
    said = exercises.write_bulkhead.check(candidate)
    if line is None:
        assert said.ok is None
        assert said.message == "No answer yet. Type your class's name, then press Check (Hint helps)."
        return
    assert said.message == f"Not yet: {line}"


def test_the_templates_bulkhead_is_not_yet_right_and_says_two_ran_at_a_limit_of_one() -> None:
    cells = ["".join(c["source"]) for c in json.loads(NOTEBOOK.read_text())["cells"]]
    namespace: dict = {}
    exec(next(c for c in cells if c.startswith("class MyBulkhead")), namespace)  # the notebook's own cell
    said = exercises.write_bulkhead.check(namespace["MyBulkhead"]).message
    assert said.startswith(
        "Not yet: MyBulkhead(1, 0), step by step: 1. call 1 arrives (call 1 runs); 2. call 2 arrives: "
        "calls 1 and 2 ran at once, above the limit of 1, where by the contract running [1], waiting []."
    ), said


def test_a_verdicts_replay_prints_its_case_step_by_step_in_a_cell(capsys) -> None:
    said = exercises.write_bulkhead.check(Lifo).message
    replay = said.split("Replay: ")[1]
    eval(replay, {"exercises": exercises, "Lifo": Lifo})  # what the learner pastes into a cell
    assert capsys.readouterr().out.splitlines() == [
        "Lifo(1, 2), step by step:",
        "1. call 1 arrives, call 2 arrives, call 3 arrives in one loop tick (call 1 runs, call 2 waits, "
        "call 3 waits)",
        "2. call 1 finishes",
        "   yours: call 2 waits (then running [3], waiting [2])",
        "   the contract: call 2 runs (running [2], waiting [3])",
    ]
    exercises.replay(Bulkhead, 1, 1, "arrive | arrive | cancel 2 | arrive / finish 1 | finish all")
    assert capsys.readouterr().out.splitlines() == [
        "Bulkhead(1, 1), step by step:",
        "1. call 1 arrives (call 1 runs)",
        "2. call 2 arrives (call 2 waits)",
        "3. call 2 is cancelled",
        "4. call 3 arrives and, one loop step later, call 1 finishes (call 3 runs)",
        "5. every call still running or waiting finishes",
        "Every step as the contract has it.",
    ]
    exercises.replay(Bulkhead, 1, 1, "arrive, banana")
    assert capsys.readouterr().out == (
        "'arrive, banana': 'banana' is not arrive, arrive b, finish N, fail N, interrupt N, cancel N.\n"
    )


def test_the_leeway_a_newcomer_may_be_refused_while_the_waiter_handed_a_place_has_not_resumed(capsys) -> None:
    exercises.replay(CountsTheHandedWaiter, 1, 1, "arrive | arrive | finish 1, arrive")
    assert capsys.readouterr().out.splitlines()[-2:] == [
        "3. call 1 finishes, call 3 arrives in one loop tick (call 2 starts, call 3 is refused)",
        "Every step as the contract has it.",
    ]
    exercises.replay(CountsTheHandedWaiter, 1, 1, "arrive | arrive | finish 1 | arrive")  # resumed: no leeway
    assert capsys.readouterr().out.splitlines()[-2:] == [
        "4. call 3 arrives (call 3 waits)",
        "Every step as the contract has it.",
    ]


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
    assert "call 2 waits (then running [3], waiting [2])" in exercises.write_bulkhead.check(box.value).message
    assert isinstance(BulkheadRejectedError("x"), Exception)
