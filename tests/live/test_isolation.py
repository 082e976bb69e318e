"""Thread pool against semaphore, live: who stays busy after a timeout, and what the loop does."""

from __future__ import annotations

import asyncio
import time

import pytest
from loopback import listening
from threads import ours

from bulkhead_lab.live import isolation
from bulkhead_lab.live.isolation import IsolationSettings, run_isolation

pytestmark = [pytest.mark.live, pytest.mark.anyio]
SETTINGS = IsolationSettings(slots=4, calls=8, latency=1.0, timeout=0.1)


async def test_a_timeout_answers_the_caller_but_the_pools_threads_stay_busy_until_the_calls_end() -> None:
    before = ours()
    run = await run_isolation("thread pool", SETTINGS)
    assert (run.count("timed out"), run.count("refused")) == (4, 4)
    assert run.held_at_answers == 4  # every caller gone, every thread still calling
    assert run.next_call == "refused"  # the pool is full of calls nobody waits for
    assert (run.dependency_calls, run.dependency_peak, run.threads_started) == (4, 4, 4)
    assert run.freed_after >= 0.9 * SETTINGS.latency  # a thread is free only when its call ends
    assert run.longest_pause < SETTINGS.latency / 2  # the loop ticked on while the threads waited
    assert ours() == before  # the pool's threads and the dependency's are joined


async def test_a_timeout_behind_a_semaphore_gives_the_permit_back_at_once_and_ends_the_call() -> None:
    before = ours()
    run = await run_isolation("semaphore", SETTINGS)
    assert (run.count("timed out"), run.count("refused")) == (4, 4)
    assert run.held_at_answers == 0
    assert run.next_call == "timed out"  # admitted at once: the permits were free
    assert (run.dependency_calls, run.dependency_peak, run.threads_started) == (5, 4, 0)
    assert run.closed_after < SETTINGS.latency  # the dependency saw its clients leave and ended the calls
    assert ours() == before


async def test_a_blocking_call_on_the_loop_stops_the_loop_and_outlasts_its_own_timeout() -> None:
    run = await run_isolation("on the loop", SETTINGS)
    assert run.outcomes == ("answered",)  # its 0.1-s timeout never fired
    assert run.answered_after >= 0.9 * SETTINGS.latency
    assert run.longest_pause >= 0.9 * SETTINGS.latency


async def test_an_interrupted_run_joins_its_threads_and_stops_its_dependency_at_once() -> None:
    before = ours()
    ports: list[int] = []
    real = isolation.DependencyApart

    class Seen(real):  # type: ignore[misc, valid-type]
        def start(self) -> real:  # type: ignore[valid-type]
            started = super().start()
            ports.append(self.dependency.port)
            return started

    isolation.DependencyApart = Seen  # type: ignore[misc]
    try:
        task = asyncio.ensure_future(
            run_isolation("thread pool", IsolationSettings(latency=10.0, timeout=0.1))
        )
        await asyncio.sleep(0.5)
        t0 = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    finally:
        isolation.DependencyApart = real  # type: ignore[misc]
    assert time.monotonic() - t0 < 5.0  # not the 10 s the calls would have taken
    assert ours() == before
    assert ports and not listening(ports[0])


def test_settings_out_of_range_are_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match=r"^timeout must be a number >= 0\.01 and <= 0\.5 \(got 0\.9\)$"):
        IsolationSettings(latency=1.0, timeout=0.9)
    with pytest.raises(ValueError, match=r"^slots must be an integer in 1\.\.64 \(got 0\)$"):
        IsolationSettings(slots=0)
