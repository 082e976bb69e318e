"""A bulkhead watched live: its own counters give the four readings, and the burst sets off the alerts."""

from __future__ import annotations

import pytest

from bulkhead_lab.compartments.watch import Slo
from bulkhead_lab.live.watched import WatchSettings, run_watched

pytestmark = [pytest.mark.live, pytest.mark.anyio]


async def test_a_steady_stretch_alerts_on_nothing_and_a_burst_on_saturation_and_its_queue_waits() -> None:
    """Each stretch's calls, refusals and the alerts its refusals set off, and the dependency's count and
    peak, are notebook 08's watched facts (08_choosing_compartments.ipynb cell c54), which nbval compares."""
    settings = WatchSettings(limit=5, queue=5, latency=0.1, steady=10, burst=20)
    run = await run_watched(settings)
    slo = Slo(latency=0.5, target=0.99)
    assert run.steady.readings(slo).firing(slo) == ()  # saturation and the p99 wait included
    burst = run.burst.readings(slo)
    assert burst.saturation > 0.5 and "saturation" in burst.firing(slo)
    assert burst.p99_wait >= 0.9 * settings.latency  # the queued five waited for a running call to end
    # the p99 wait alerts only past 250 ms, which a machine this busy can reach: not pinned
    assert all(p.running <= 5 and p.queued <= 5 for p in run.burst.timeline)
