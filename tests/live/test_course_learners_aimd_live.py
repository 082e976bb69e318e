"""Notebook 05's exercise 3 live: the learner's AIMD moving the live adaptive Order Service's bulkhead
on 127.0.0.1 through section 6's slowdown. A right one's counts make sense; a broken one is one line,
the run stopped, nothing left running (no thread, no listening port). What the checker says of the
shared broken candidates is test_judges.py's and tests/writes'."""

from __future__ import annotations

import sys
import time

import pandas as pd
import pytest
from loopback import listening_ports, settled
from threads import ours
from writes import define
from writes.n05_aimd import CANDIDATES, NUMPY

from bulkhead_lab.course.adaptive_limits import exercises as ex
from bulkhead_lab.course.adaptive_limits import views

pytestmark = pytest.mark.live


def test_a_right_limiter_returning_numpy_integers_backs_off_live_and_the_counts_add_up() -> None:
    """The notebook's cell, with a right AIMD whose limits are numpy integers (the service takes Python's)."""
    threads, ports = ours(), listening_ports()
    shown = ex.live_aimd(define(NUMPY, CANDIDATES.name))
    assert isinstance(shown, pd.DataFrame), shown
    healthy, slow = shown.loc["healthy"], shown.loc["slow, to its last slow call"]
    assert healthy["orders refused"] == 0 and healthy["limit at its start"] == ex.LIVE[0]
    assert slow["lowest limit"] < slow["limit at its start"]  # 1 s calls are over its 500 ms timeout
    assert 0 < slow["orders refused"] < slow["orders sent"]
    assert shown["orders sent"].sum() == views.slowdown_load(views.LIVE_SLOW_FOR).orders
    settled(threads, ports)


class Quiet:
    def __init__(self, initial, min_limit, max_limit):
        self.limit = initial


class RaisesLive(Quiet):
    """Takes the dry run (its longest round trip 900 ms), but raises on a live slow call (1000 ms)."""

    def on_sample(self, rtt, inflight, dropped):
        if rtt > 950:
            raise LookupError("no such limit")
        return self.limit


class NoneLive(Quiet):
    def on_sample(self, rtt, inflight, dropped):
        return None if rtt > 950 else self.limit


class ExitsLive(Quiet):
    def on_sample(self, rtt, inflight, dropped):
        if rtt > 950:
            sys.exit("enough")
        return self.limit


class Forever(Quiet):
    def on_sample(self, rtt, inflight, dropped):
        while True:
            pass


class AsyncOnSample(Quiet):
    async def on_sample(self, rtt, inflight, dropped):
        return self.limit


@pytest.mark.parametrize(
    ("learner", "line"),
    [
        (RaisesLive, "Not run live: on_sample raised LookupError: no such limit."),
        (NoneLive, "Not run live: on_sample returned None live: return the new limit, at least 1."),
        (ExitsLive, "Not run live: on_sample raised SystemExit: enough."),
        (AsyncOnSample, "Not run live: AsyncOnSample(20, 1, 200)'s on_sample is an async def"),
        (Forever, "Not run live: it was still running after 2 s."),
        ("NoSuchLimit", "Not run live: nothing is called NoSuchLimit in this notebook yet"),
    ],
)
def test_a_limiter_that_misbehaves_is_one_line_and_leaves_nothing_running(learner, line) -> None:
    threads, ports = ours(), listening_ports()
    started = time.monotonic()
    said = ex.live_aimd(learner)
    assert isinstance(said, str) and said.startswith(line) and "\n" not in said, said
    assert time.monotonic() - started < 30  # the run is about 6 s; a fault stops it sooner
    settled(threads, ports)
