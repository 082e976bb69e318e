"""A rate limit is not a bulkhead: the same load, the same slowdown, a token bucket against a
concurrency limit, the dependency counting what is in flight.

Calls arrive at :data:`RATE` a second for :data:`SECONDS` s (an open loop: a caller does not wait for
the one before). A token bucket of :data:`RATE` tokens a second (burst :data:`BURST`) lets every one
through, whatever the dependency's latency, so by Little's Law the dependency holds rate x latency
calls: 2 at 50 ms, 20 at 500 ms. A concurrency limit of :data:`LIMIT` (the course's
:class:`~bulkhead_lab.live.bulkhead.Bulkhead`, no waiting places) holds it at 10 and refuses the rest.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import dataclass

import aiohttp

from bulkhead_lab.live.bulkhead import Bulkhead, BulkheadRejectedError
from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.net.key import key_headers
from bulkhead_lab.live.net.server import all_or_cancel, cancel_all

RATE = 40.0  # calls a second, offered and allowed
BURST = 4  # the bucket's depth: a late tick on a busy machine costs no call
SECONDS = 2.0  # how long calls arrive
LIMIT = 10  # the concurrency limit
HEALTHY, SLOW = 0.05, 0.5  # the dependency's latency, seconds


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` kept; :meth:`take` is True when a token was there."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.at = float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


@dataclass(frozen=True)
class RateRun:
    """One run: the limiter, the dependency's latency (s), calls offered, let through and refused, the
    peak in flight the dependency counted, and its timeline ``(seconds, open)``."""

    limiter: str
    latency: float
    offered: int
    passed: int
    refused: int
    peak: int
    timeline: tuple[tuple[float, int], ...]

    @property
    def littles_law(self) -> float:
        """Rate x latency: what Little's Law says is in flight when every call gets through."""
        return RATE * self.latency

    def mean_in_flight(self) -> float:
        """The calls the dependency held on average (time-weighted) while calls kept arriving and coming
        back, from one latency after the first arrival to the last arrival: Little's Law's in flight."""
        low, high = self.latency, SECONDS
        area, points = 0.0, [*self.timeline, (float("inf"), 0)]
        for (t0, n), (t1, _) in itertools.pairwise(points):
            area += n * max(0.0, min(t1, high) - max(t0, low))
        return area / (high - low)


async def rate_run(limiter: str, latency: float) -> RateRun:
    """Calls at :data:`RATE`/s for :data:`SECONDS` s through ``limiter`` ("rate" or "concurrency")."""
    bucket, wall = TokenBucket(RATE, BURST), Bulkhead(LIMIT, 0)
    passed = refused = 0
    async with Dependency(f"{limiter} {latency}", latency, timeline=True) as dep:
        async with aiohttp.ClientSession(headers=key_headers(dep.url)) as session:

            async def call() -> None:
                async with session.get(f"{dep.url}/call") as r:
                    await r.read()

            async def one() -> None:
                nonlocal passed, refused
                if limiter == "rate":
                    if not bucket.take():
                        refused += 1
                        return
                    passed += 1
                    await call()
                    return
                try:
                    await wall.execute(call)
                    passed += 1
                except BulkheadRejectedError:
                    refused += 1

            tasks: list[asyncio.Task[None]] = []
            start, offered = time.monotonic(), int(RATE * SECONDS)
            try:
                for i in range(offered):
                    await asyncio.sleep(max(0.0, start + i / RATE - time.monotonic()))
                    tasks.append(asyncio.ensure_future(one()))
                await asyncio.gather(*tasks)
            except BaseException:
                await cancel_all(tasks)
                raise
        return RateRun(limiter, latency, offered, passed, refused, dep.peak, tuple(dep.timeline))


async def four_runs() -> list[RateRun]:
    """Rate limit and concurrency limit, each with the dependency healthy and slow, all at once."""
    runs = [rate_run(k, lat) for k in ("rate", "concurrency") for lat in (HEALTHY, SLOW)]
    return await all_or_cancel(runs)
