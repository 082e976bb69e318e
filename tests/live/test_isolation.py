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


async def test_a_run_joins_its_threads_and_a_pools_thread_is_free_only_when_its_call_ends() -> None:
    """Each isolation's counts (refused at once, timed out, held when all had answers, the next call, the
    dependency's calls, threads started, whether the loop stood still and the dependency let go early) are
    notebook 08's isolation table (08_choosing_compartments.ipynb cell c28), which nbval compares."""
    before = ours()
    pool = await run_isolation("thread pool", SETTINGS)
    semaphore = await run_isolation("semaphore", SETTINGS)
    assert pool.freed_after >= 0.9 * SETTINGS.latency  # every caller gone, every thread still calling
    assert pool.dependency_peak == semaphore.dependency_peak == SETTINGS.slots
    assert ours() == before  # the pool's threads and the dependency's are joined


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
