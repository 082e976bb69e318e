"""What to watch per compartment: saturation, refusals as a share of calls, p99 queue wait, SLO burn.

A bulkhead's own counters say all four (:mod:`bulkhead_lab.live.bulkhead`): its timeline of
``(t, running, queued, rejected, limit)`` at every change, and the calls that went through it.

- **saturation**: the share of the time every running place was taken (the compartment at
  its limit: the next call waits or is refused);
- **refusal ratio**: refusals over calls. A raw count grows with traffic: the same 2% is 10
  refusals in a quiet hour and 40 at the peak, so an alert on a count fires at the peak for a
  healthy compartment and sleeps through a quiet hour's trouble;
- **p99 queue wait**: how long the slowest admitted calls waited for a place; it must fit
  inside the callers' deadline;
- **SLO burn rate**: the share of calls that missed the SLO (refused, or answered later than
  its latency), over the share the SLO allows. At 1 the error budget lasts exactly its
  period; above it, it runs out early (the SRE workbook pages at 14.4 over an hour).

:func:`run_compartment` is a seeded compartment of ``limit`` places and ``queue`` waiting
places, fed Poisson arrivals with lognormal holds, in continuous time; it records the same
timeline a live bulkhead does. Pure: seeded, no I/O.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from bulkhead_lab.validation import check_int, check_real


class Point(NamedTuple):
    """The compartment at one change (the live bulkhead's ``BulkheadPoint``): seconds, counts, limit."""

    t: float
    running: int
    queued: int
    rejected: int
    limit: int


@dataclass(frozen=True)
class Slo:
    """Calls answered (not refused) within ``latency`` s, for at least ``target`` of them."""

    latency: float = 0.25
    target: float = 0.99

    def __post_init__(self) -> None:
        check_real("latency", self.latency, 0.0, 3600.0, low_open=True)
        check_real("target", self.target, 0.0, 1.0, low_open=True)


@dataclass(frozen=True)
class Alerts:
    """When each reading alerts."""

    saturation: float = 0.5  # full at least half the time
    refusal_ratio: float = 0.01  # 1% of calls refused
    wait_share: float = 0.5  # p99 wait over half the SLO's latency
    burn: float = 1.0  # spending the error budget faster than it lasts


@dataclass(frozen=True)
class Readings:
    """The four readings of one compartment over one stretch of time, and the counts behind them."""

    calls: int
    refused: int
    saturation: float
    refusal_ratio: float
    p99_wait: float
    burn: float

    def firing(self, slo: Slo, alerts: Alerts = Alerts()) -> tuple[str, ...]:
        """The readings over their alert line, by name."""
        over = (
            ("saturation", self.saturation >= alerts.saturation),
            ("refusals", self.refusal_ratio >= alerts.refusal_ratio),
            ("queue wait", self.p99_wait >= alerts.wait_share * slo.latency),
            ("SLO burn", self.burn >= alerts.burn),
        )
        return tuple(name for name, on in over if on)


def _p99(values: Sequence[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]


# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/08_choosing_compartments.ipynb, section 5. Sizing from production, and what to watch
def saturation(timeline: Sequence[Point], until: float) -> float:
    """The share of ``[first point, until]`` spent with every running place taken."""
    if not timeline or until <= timeline[0].t:
        return 0.0
    full = 0.0
    for here, after in zip(timeline, [*timeline[1:], None], strict=True):
        end = until if after is None else min(after.t, until)
        if here.running >= here.limit and end > here.t:
            full += end - here.t
    return full / (until - timeline[0].t)


# <<< saved cells


def readings(
    timeline: Sequence[Point],
    calls: int,
    waits: Sequence[float],
    latencies: Sequence[float],
    slo: Slo,
    until: float,
) -> Readings:
    """The four readings from the counters: the timeline, the calls, and each answered call's wait
    and whole latency (wait + its call), in seconds."""
    check_int("calls", calls, 0)
    refused = timeline[-1].rejected - timeline[0].rejected if timeline else 0
    late = sum(1 for x in latencies if x > slo.latency)
    bad = (refused + late) / calls if calls else 0.0
    return Readings(
        calls,
        refused,
        saturation(timeline, until),
        refused / calls if calls else 0.0,
        _p99(waits),
        bad / (1 - slo.target) if slo.target < 1 else math.inf * bad,
    )


@dataclass(frozen=True)
class CompartmentRun:
    """A seeded compartment's counters over ``duration`` s: what a live bulkhead would have recorded."""

    timeline: tuple[Point, ...]
    calls: int
    waits: tuple[float, ...]  # each admitted call's wait for a place
    latencies: tuple[float, ...]  # each admitted call's wait + hold
    duration: float

    def readings(self, slo: Slo = Slo()) -> Readings:
        return readings(self.timeline, self.calls, self.waits, self.latencies, slo, self.duration)


def run_compartment(
    rate: float,
    mean_hold: float,
    limit: int,
    queue: int,
    *,
    duration: float = 60.0,
    spread: float = 0.6,
    seed: int = 1,
) -> CompartmentRun:
    """Poisson arrivals at ``rate``/s, lognormal holds of mean ``mean_hold`` s, through ``limit`` places
    and ``queue`` waiting places (first come, first served; refused at once when both are full)."""
    check_real("rate", rate, 0.0, 1e5, low_open=True)
    check_real("mean_hold", mean_hold, 0.0, 3600.0, low_open=True)
    check_int("limit", limit, 1, 10_000)
    check_int("queue", queue, 0, 10_000)
    check_real("duration", duration, 0.0, 86_400.0, low_open=True)
    draw = random.Random(seed)
    mu = math.log(mean_hold) - spread**2 / 2
    ends: list[tuple[float, float]] = []  # (end, start of its wait) of running calls
    waiting: deque[float] = deque()  # arrival times of queued calls
    timeline = [Point(0.0, 0, 0, 0, limit)]
    waits: list[float] = []
    latencies: list[float] = []
    calls = rejected = 0
    now = draw.expovariate(rate)

    def start(arrived: float, at: float) -> None:
        hold = draw.lognormvariate(mu, spread)
        heapq.heappush(ends, (at + hold, arrived))
        waits.append(at - arrived)
        latencies.append(at - arrived + hold)

    while now < duration:
        while ends and ends[0][0] <= now:  # calls ending before this arrival free their places
            end, _ = heapq.heappop(ends)
            if waiting:
                start(waiting.popleft(), end)
            timeline.append(Point(end, len(ends), len(waiting), rejected, limit))
        calls += 1
        if len(ends) < limit:
            start(now, now)
        elif len(waiting) < queue:
            waiting.append(now)
        else:
            rejected += 1
        timeline.append(Point(now, len(ends), len(waiting), rejected, limit))
        now += draw.expovariate(rate)
    return CompartmentRun(tuple(timeline), calls, tuple(waits), tuple(latencies), duration)
