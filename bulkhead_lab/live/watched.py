"""A bulkhead watched live: its own counters, read as the four readings an alert should look at.

The lesson's ``Bulkhead(limit, queue)`` (:mod:`bulkhead_lab.live.bulkhead`) around calls to a
counting dependency on 127.0.0.1, in two stretches: a *steady* one (calls one after another:
the compartment is never full) and a *burst* (``burst`` calls at once: ``limit`` run, ``queue``
wait, the rest are refused at once). Each stretch gives what the seeded compartment gives
(:class:`~bulkhead_lab.compartments.watch.CompartmentRun`): the bulkhead's timeline, the calls,
each admitted call's wait for a place and its whole latency. Nothing stays listening after it.

The run leaves the heap it starts with out of the collector's passes
(:func:`~bulkhead_lab.live.heap.heap_frozen`): a full pass over a notebook's memos read as queue wait.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import aiohttp

from bulkhead_lab.compartments.watch import CompartmentRun, Point
from bulkhead_lab.live.bulkhead import BulkheadRejectedError, InstrumentedBulkhead
from bulkhead_lab.live.heap import heap_frozen
from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.net.key import key_headers


@dataclass(frozen=True)
class WatchSettings:
    """The bulkhead's places, the dependency's latency (s), and how many calls each stretch sends."""

    limit: int = 5
    queue: int = 5
    latency: float = 0.1
    steady: int = 20
    burst: int = 20


@dataclass(frozen=True)
class WatchedRun:
    """Both stretches, as the bulkhead counted them, and what the dependency saw."""

    settings: WatchSettings
    steady: CompartmentRun
    burst: CompartmentRun
    dependency_peak: int
    dependency_calls: int


async def _stretch(
    bulkhead: InstrumentedBulkhead, session: aiohttp.ClientSession, url: str, calls: int, at_once: bool
) -> CompartmentRun:
    bulkhead.reset()
    waits: list[float] = []
    latencies: list[float] = []

    async def call() -> None:
        sent = time.monotonic()
        try:
            async with bulkhead:
                waits.append(time.monotonic() - sent)
                async with session.get(url, headers=key_headers(url)) as response:
                    await response.read()
        except BulkheadRejectedError:
            return
        latencies.append(time.monotonic() - sent)

    if at_once:
        await asyncio.gather(*(call() for _ in range(calls)))
    else:
        for _ in range(calls):
            await call()
    timeline = tuple(Point(*p) for p in bulkhead.timeline)
    return CompartmentRun(timeline, calls, tuple(waits), tuple(latencies), timeline[-1].t)


async def run_watched(settings: WatchSettings = WatchSettings()) -> WatchedRun:
    """The steady stretch, then the burst, through one bulkhead to one dependency."""
    bulkhead = InstrumentedBulkhead(settings.limit, settings.queue, timeline=True)
    with heap_frozen():
        return await _run(bulkhead, settings)


async def _run(bulkhead: InstrumentedBulkhead, settings: WatchSettings) -> WatchedRun:
    async with Dependency("dependency", settings.latency) as dep, aiohttp.ClientSession() as session:
        url = f"{dep.url}/work"
        steady = await _stretch(bulkhead, session, url, settings.steady, at_once=False)
        burst = await _stretch(bulkhead, session, url, settings.burst, at_once=True)
        return WatchedRun(settings, steady, burst, dep.peak, dep.calls)
