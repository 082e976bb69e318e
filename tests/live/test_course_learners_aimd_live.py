"""Notebook 05's exercise 3 live: the learner's AIMD moving the live adaptive Order Service's bulkhead
on 127.0.0.1 through section 6's slowdown. The right one's counts make sense; a broken one is one line,
the run stopped, nothing left running (no thread, no listening port)."""

from __future__ import annotations

import asyncio
import sys
import threading
import time

import pandas as pd
import pytest
from loopback import listening_ports
from writes import define
from writes.n05_aimd import CANDIDATES, NUMPY

from bulkhead_lab.course.adaptive_limits import exercises as ex
from bulkhead_lab.course.adaptive_limits import views
from bulkhead_lab.live.orders import learners

pytestmark = pytest.mark.live


def _threads() -> set[threading.Thread]:
    """This process's threads but pycares' one DNS-channel reaper (aiohttp's resolver when aiodns is
    installed starts it once per process and keeps it: not a thread a run leaves)."""
    return {t for t in threading.enumerate() if "_run_safe_shutdown_loop" not in t.name}


def _settled(before_threads: set[threading.Thread], before_ports: set[int], seconds: float = 10.0) -> bool:
    """Every thread and listening port a run opened is gone (polled with a deadline)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if _threads() <= before_threads and listening_ports() <= before_ports:
            return True
        time.sleep(0.05)  # polling, not a synchronising sleep
    return False


def test_the_right_limiter_live_backs_off_in_the_slowdown_and_the_counts_add_up() -> None:
    threads, ports = _threads(), listening_ports()
    right = define(CANDIDATES.right, CANDIDATES.name)
    load = views.slowdown_load(views.LIVE_SLOW_FOR)
    run = asyncio.run(learners.limiter_run(right, ex.LIVE, load))
    rows = {r["phase"]: r for r in views.live_view(run, views.LIVE_SLOW_FOR).phase_rows()}
    healthy, slow = rows["healthy"], rows["slow, to its last slow call"]
    assert healthy["orders refused"] == 0 and healthy["limit at its start"] == ex.LIVE[0]
    assert slow["lowest limit"] < slow["limit at its start"]  # 1 s calls are over its 500 ms timeout
    assert 0 < slow["orders refused"] < slow["orders sent"]
    assert sum(r["orders sent"] for r in rows.values()) == load.orders
    assert _settled(threads, ports)


def test_the_notebooks_cell_shows_the_phases_for_a_limiter_that_runs() -> None:
    shown = ex.live_aimd(define(CANDIDATES.right, CANDIDATES.name))
    assert isinstance(shown, pd.DataFrame) and "lowest limit" in shown.columns


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
    threads, ports = _threads(), listening_ports()
    started = time.monotonic()
    said = ex.live_aimd(learner)
    assert isinstance(said, str) and said.startswith(line) and "\n" not in said, said
    assert time.monotonic() - started < 30  # the run is about 6 s; a fault stops it sooner
    assert _settled(threads, ports)


@pytest.mark.parametrize("kind", ["returns None", "an async def on_sample", "sys.exit on a drop at the floor",
                                  "the limit in a module global, shared by every limiter"])  # fmt: skip
def test_a_shared_broken_candidate_is_a_table_or_one_line_live(kind: str) -> None:
    (source,) = [s for s, label in CANDIDATES.broken.items() if label == kind]
    shown = ex.live_aimd(define(source, CANDIDATES.name))
    assert isinstance(shown, pd.DataFrame) or ("\n" not in shown and shown.startswith("Not run live: "))


def test_a_limiter_that_returns_numpy_integers_runs_live() -> None:
    shown = ex.live_aimd(define(NUMPY, CANDIDATES.name))
    assert isinstance(shown, pd.DataFrame) and "lowest limit" in shown.columns, shown
