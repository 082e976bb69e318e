"""Notebook 06's exercise 4 live: the learner's retry budget counting for section 7's SRE client against
lesson 004's Order Service on 127.0.0.1. The right one's counts make sense, whatever ``can_retry`` answers
that ``if`` reads as true or false (1.0, numpy's bool), as the checker reads it; one the checker calls Not
yet never goes live (what it says of the shared broken candidates is test_judges.py's and tests/writes');
one that misbehaves live is one line, the run stopped, nothing left running (no thread, no listening port)."""

from __future__ import annotations

import asyncio
import re
import time

import pytest
from loopback import listening_ports, settled
from threads import ours
from writes import define
from writes.n06_budget import CANDIDATES

from bulkhead_lab.course.retries_and_budgets import exercises as ex
from bulkhead_lab.live.orders import learners
from bulkhead_lab.live.orders.reading.retries import ratio_bound

pytestmark = pytest.mark.live


LINE = re.compile(
    r"live, your budget: 20 orders, the client sent (\d+) calls \(the SRE 10% keeps them under [\d.]+\), "
    r"Payment served (\d+), (\d+) refused, (\d+) of them denied a retry by your budget\."
)


def keeps_the_sre_bound(said: str) -> bool:
    """The notebook cell's one line: every order answered, under the SRE bound, some retries denied."""
    m = LINE.fullmatch(said)
    assert m, said
    sent, served, refused, denied = map(int, m.groups())
    return served + refused == 20 and 20 < sent < ratio_bound() and denied > 0


def test_the_right_budget_live_keeps_the_sre_bound_and_denies_retries() -> None:
    assert keeps_the_sre_bound(ex.live_budget(define(CANDIDATES.right, CANDIDATES.name)))


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
    threads, ports = ours(), listening_ports()
    with pytest.raises(learners.LearnersFault) as fault:
        asyncio.run(learners.budget_run(learner(0.1)))
    assert str(fault.value) == line
    settled(threads, ports)


@pytest.mark.parametrize(
    ("learner", "line"),
    [
        (RaisesLive, "Not run live: the checker says Not yet: a = RaisesLive(0.1), after 1 call sent, 0 of"),
        (Forever, "Not run live: it was still running after 2 s."),
        ("NoSuchBudget", "Not run live: nothing is called NoSuchBudget in this notebook yet"),
    ],
)
def test_the_notebooks_cell_gives_a_broken_budget_one_line_and_nothing_goes_live(learner, line) -> None:
    threads, ports = ours(), listening_ports()
    started = time.monotonic()
    said = ex.live_budget(learner)
    assert said.startswith(line) and "\n" not in said
    assert time.monotonic() - started < 10  # the checker's 2 s deadline, with a wide margin
    settled(threads, ports)


def test_a_budget_answering_floats_goes_live_and_keeps_the_sre_bound() -> None:
    assert keeps_the_sre_bound(ex.live_budget(AnswersFloats))
