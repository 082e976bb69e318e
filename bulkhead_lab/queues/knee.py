"""Adaptive limits where they work: a dependency whose latency grows with the calls sent to it.

In lesson 000's pool and lesson 004's Payment a call takes as long whatever else is in flight, so
a delay-based limiter (Vegas, Gradient2) reads no signal (notebook 05). Here the dependency has
``workers`` and a queue: up to ``workers`` calls in flight each takes ``service`` rounds; beyond,
each extra call waits, and the latency grows as ``service * n / workers`` (:func:`latency_at`,
Little's Law at full throughput). That bend at ``n = workers`` is the *knee*: the most calls in
flight that add throughput and no latency.

:data:`LIMITS` sets the callers' bulkhead (no waiting line) at the knee, far above it (Gradient2's
own ceiling, 200: in effect no limit), or by Vegas or Gradient2 (the sources' defaults, with the
course's floor of 1, as in notebook 05); :func:`overload` sends them a load the dependency cannot
serve (:data:`OVERLOAD` calls/s, 1.2 times its 133 calls/s) on a day with no slowdown.
"""

from __future__ import annotations

from dataclasses import replace

from bulkhead_lab.adaptive.pool import LimiterSpec
from bulkhead_lab.queues.rounds import QueueRun, kept_run
from bulkhead_lab.queues.settings import WORKERS, Bulkhead, Dependency, Setup

OVERLOAD = 160.0  # calls/s: 1.6 a round against the dependency's 8 / 6 = 1.33
LIMITS: dict[str, int | LimiterSpec] = {
    "fixed at the knee (8)": WORKERS,
    "fixed, too high (200)": 200,
    "Vegas": LimiterSpec.of("Vegas", initial=20, min_limit=1),
    "Gradient2": LimiterSpec.of("Gradient2", initial=20, min_limit=1),
}


def latency_at(dependency: Dependency, in_flight: int) -> float:
    """Rounds a call takes with ``in_flight`` calls at the dependency, all its workers busy beyond
    ``workers``: ``service * max(1, in_flight / workers)``."""
    return dependency.service * max(1.0, in_flight / dependency.workers)


def limited(name: str, setup: Setup) -> Setup:
    """``setup`` with its callers behind the bulkhead :data:`LIMITS` names (no waiting line)."""
    return setup.with_(callers=replace(setup.callers, bulkhead=Bulkhead(LIMITS[name], 0)))


def overload(name: str, rate: float = OVERLOAD) -> QueueRun:
    """A day with no slowdown at ``rate`` calls/s, the callers behind the bulkhead ``name``."""
    return kept_run(limited(name, Setup(trigger=None, rate=rate)))
