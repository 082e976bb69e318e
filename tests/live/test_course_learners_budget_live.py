"""Notebook 06's exercise 4 live: the learner's retry budget counting for section 7's SRE client against
lesson 004's Order Service on 127.0.0.1. The right one's counts make sense, whatever ``can_retry`` answers
that ``if`` reads as true or false (1.0, numpy's bool), as the checker reads it; one the checker calls Not
yet never goes live; one that misbehaves live is one line, the run stopped, nothing left running (no
thread, no listening port)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from loopback import listening_ports
from writes import define
from writes.n06_budget import CANDIDATES

from bulkhead_lab.course.retries_and_budgets import exercises as ex
from bulkhead_lab.live.orders import learners
from bulkhead_lab.live.orders.reading.retries import ratio_bound, retry_facts

pytestmark = pytest.mark.live


def _settled(before_threads: set[threading.Thread], before_ports: set[int], seconds: float = 10.0) -> bool:
    """Every thread and listening port a run opened is gone (polled with a deadline)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if set(threading.enumerate()) <= before_threads and listening_ports() <= before_ports:
            return True
        time.sleep(0.05)  # polling, not a synchronising sleep
    return False


def test_the_right_budget_live_keeps_the_sre_bound_and_denies_retries() -> None:
    run = asyncio.run(learners.budget_run(define(CANDIDATES.right, CANDIDATES.name)(0.1)))
    f = retry_facts(run)
    assert f.orders == 20 and f.served + f.refused == 20 and f.payment_calls == f.served
    assert f.client_sent == f.order_service_received  # every call sent reached the Order Service
    assert f.orders < f.client_sent < ratio_bound() and f.gave_up_budget > 0


def test_the_right_budget_is_one_line_from_the_notebooks_cell() -> None:
    said = ex.live_budget(define(CANDIDATES.right, CANDIDATES.name))
    assert said.startswith("live, your budget: 20 orders, the client sent ") and "\n" not in said


class RaisesLive:
    """Raises in can_retry: the notebook cell's worst case stops it first; budget_run meets it live."""

    def __init__(self, ratio):
        self.calls = 0

    def on_request(self):
        self.calls += 1

    def can_retry(self):
        raise LookupError("no budget here")

    def on_retry(self):
        pass


class NoTruth:
    def __bool__(self):
        raise ValueError("neither")

    def __repr__(self):
        return "NoTruth()"


class SaysNoTruth(RaisesLive):
    def can_retry(self):
        return NoTruth()


class SaysAsync(RaisesLive):
    async def can_retry(self):
        return True


class AnswersFloats:
    """Section 2's budget, answering can_retry with 1.0 or 0.0: the loop's ``if`` reads them as it reads
    True and False, and so does the live client."""

    def __init__(self, ratio):
        self.ratio, self.calls, self.retries = ratio, 0, 0

    def on_request(self):
        self.calls += 1

    def can_retry(self):
        return float(self.retries < self.ratio * self.calls)

    def on_retry(self):
        self.calls += 1
        self.retries += 1


class Forever(RaisesLive):
    def can_retry(self):
        while True:
            pass


@pytest.mark.parametrize(
    ("learner", "line"),
    [
        (RaisesLive, "RaisesLive.can_retry() raised LookupError: no budget here."),
        (SaysNoTruth, "can_retry() returned NoTruth(): neither true nor false."),
        (SaysAsync, "can_retry() returned a coroutine: write a plain def, not an async def."),
    ],
)
def test_a_budget_that_misbehaves_live_stops_the_run_in_one_line_and_leaves_nothing_running(learner, line):
    threads, ports = set(threading.enumerate()), listening_ports()
    with pytest.raises(learners.LearnersFault) as fault:
        asyncio.run(learners.budget_run(learner(0.1)))
    assert str(fault.value) == line
    assert _settled(threads, ports)


@pytest.mark.parametrize(
    ("learner", "line"),
    [
        (RaisesLive, "Not run live: the checker says Not yet: a = RaisesLive(0.1), after 1 call sent, 0 of"),
        (Forever, "Not run live: it was still running after 2 s."),
        ("NoSuchBudget", "Not run live: nothing is called NoSuchBudget in this notebook yet"),
    ],
)
def test_the_notebooks_cell_gives_a_broken_budget_one_line_and_nothing_goes_live(learner, line) -> None:
    threads, ports = set(threading.enumerate()), listening_ports()
    started = time.monotonic()
    said = ex.live_budget(learner)
    assert said.startswith(line) and "\n" not in said
    assert time.monotonic() - started < 10  # the checker's 2 s deadline, with a wide margin
    assert _settled(threads, ports)


def test_a_budget_answering_floats_goes_live_and_keeps_the_sre_bound() -> None:
    said = ex.live_budget(AnswersFloats)
    assert said.startswith("live, your budget: 20 orders, the client sent "), said
    run = asyncio.run(learners.budget_run(AnswersFloats(0.1)))
    f = retry_facts(run)
    assert f.orders < f.client_sent < ratio_bound() and f.gave_up_budget > 0


def test_each_shared_broken_candidate_is_the_checkers_line_and_never_goes_live() -> None:
    threads, ports = set(threading.enumerate()), listening_ports()
    for source in CANDIDATES.broken:
        said = ex.live_budget(define(source, CANDIDATES.name))
        assert "\n" not in said and "Traceback" not in said
        assert said.startswith("Not run live: the checker says Not yet: "), said
    assert _settled(threads, ports)
