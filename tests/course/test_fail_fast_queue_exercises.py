"""Notebook 04's exercises: checks that run the learner's choice (no sockets here: the live tests run them),
and a bulkhead of the learner's own judged by its contract. tests/course/test_writes.py judges
tests/writes/n04_bulkhead.py's candidates and tests/course/test_exercise.py what else may be typed; here,
what they do not pin: the course's Bulkhead is Right and a learner's print stays in its trial, a
verdict's replay printed step by step, and the leeway the contract allows."""

from __future__ import annotations

import gc

import fail_fast_queue_runs as fake
import pytest
import writes
from writes import n04_bulkhead

from bulkhead_lab.course.fail_fast_queue import exercises, views
from bulkhead_lab.live.bulkhead import Bulkhead


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


# --- exercise 4: the learner's own bulkhead -------------------------------------------------------


class Lifo(Bulkhead):
    """The newest waiter first."""

    def admit(self) -> None:
        while self.waiting and self.running < self.limit:
            place = self.waiting.pop()
            if not place.done():
                self.running += 1
                place.set_result(None)


class Prints(Bulkhead):
    def __init__(self, limit: int, queue: int = 0) -> None:
        print("building a bulkhead")
        super().__init__(limit, queue)


# asyncio's Semaphore for the places and a count of the waiting, which counts a waiter until it resumes: the
# leeway lets a newcomer be refused in the tick a place was handed to that waiter.
CountsTheHandedWaiter = writes.define(n04_bulkhead.SEMAPHORE, "MyBulkhead")


def test_the_cells_bulkhead_and_one_that_prints_are_right_printing_nothing(capfd) -> None:
    for candidate in (Bulkhead, Prints):  # test_writes.py judges the SEMAPHORE candidate
        said = exercises.write_bulkhead.check(candidate)
        assert said.ok is True, (candidate, said.message)
    gc.collect()
    assert capfd.readouterr() == ("", "")  # Prints's line stayed in its trial


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
