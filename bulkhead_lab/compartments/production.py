"""Sizing from what production shows: a day's trace per flow, turned into a limit per compartment.

Production shows, per flow, how many calls came each minute (a rate) and, per hour, how long
they took (percentiles of the latency, and its mean: a histogram's sum over its count).
Little's Law turns a rate into calls in flight, rate x *mean* latency; Erlang-B turns that into
the fewest slots that refuse at most a target share. Which rate: the busiest *minute*'s, not
the busiest hour's mean, which hides the minutes above it.

Erlang-B reads the mean only: for a pool that refuses at once (no waiting places), how the
latencies spread around the mean does not change the blocking (the loss formula is insensitive
to the hold's distribution), so the p99 is the wrong input there: rate x p99 gives far more
slots than the target needs, rate x p50 fewer. With waiting places the spread matters again
(it sets the waits), so a compartment with a queue is checked on a seeded hour
(:func:`event_hour`, :mod:`bulkhead_lab.compartments.hours`).

:func:`day_trace` is a seeded day of lesson 000's two flows: their peak rates at the busiest
hour (14:00), a quarter of them at night, each minute's rate a lognormal factor (spread
:data:`MINUTE_SPREAD`) around its hour's, lognormal latencies around the lesson's holds
(tracking 40 ms, event 60 ms on average). Pure: Python's seeded generators, no I/O.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from bulkhead_lab import sizing
from bulkhead_lab.compartments import hours, watch
from bulkhead_lab.memo import Memo
from bulkhead_lab.pool.params import EVENT_RATE, SEED, TRACKING_RATE
from bulkhead_lab.validation import check_real

HOURS = 24
PEAK_HOUR = 14
NIGHT = 0.25  # the night's rate, as a share of the peak's
SAMPLES = 2000  # latencies measured per flow and hour
TARGET = 0.01
MINUTES = 60
MINUTE_SPREAD = 0.1  # sigma of the logarithm of a minute's rate around its hour's mean


@dataclass(frozen=True)
class FlowShape:
    """A flow as production sees it: its peak rate (calls/s) and its latency (mean s, lognormal spread)."""

    name: str
    peak_rate: float
    mean_latency: float
    spread: float = 0.6  # sigma of the latency's logarithm

    def __post_init__(self) -> None:
        check_real("peak_rate", self.peak_rate, 0.0, 1e6, low_open=True)
        check_real("mean_latency", self.mean_latency, 0.0, 3600.0, low_open=True)
        check_real("spread", self.spread, 0.0, 3.0)


LESSON_FLOWS = (FlowShape("tracking", TRACKING_RATE, 0.04), FlowShape("event", EVENT_RATE, 0.06))


@dataclass(frozen=True)
class Hour:
    """One flow in one hour: calls/s (the hour's mean, and each minute's), the latency's mean and
    percentiles (s)."""

    hour: int
    flow: str
    rate: float
    mean: float
    p50: float
    p90: float
    p99: float
    minute_rates: tuple[float, ...] = ()  # calls/s in each minute of the hour

    @property
    def peak_rate(self) -> float:
        """Calls/s in the hour's busiest minute (the hour's mean when no minute is known)."""
        return max(self.minute_rates, default=self.rate)


def diurnal(hour: int) -> float:
    """The share of the peak rate at ``hour``: 1 at the peak hour, :data:`NIGHT` twelve hours away."""
    phase = math.cos(2 * math.pi * (hour - PEAK_HOUR) / HOURS)
    return NIGHT + (1 - NIGHT) * (1 + phase) / 2


def _percentile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def day_trace(
    flows: tuple[FlowShape, ...] = LESSON_FLOWS, seed: int = SEED, samples: int = SAMPLES
) -> tuple[Hour, ...]:
    """A seeded day: every flow's rate and latency percentiles, hour by hour."""
    draw = random.Random(seed)
    minutes = random.Random(seed + 1)  # a generator of its own: the hours draw what they drew before
    hours = []
    for hour in range(HOURS):
        for flow in flows:
            rate = flow.peak_rate * diurnal(hour) * (1 + draw.uniform(-0.05, 0.05))
            mu = math.log(flow.mean_latency) - flow.spread**2 / 2  # so the mean is mean_latency
            seen = sorted(draw.lognormvariate(mu, flow.spread) for _ in range(samples))
            mean = sum(seen) / samples
            p50, p90, p99 = (_percentile(seen, q) for q in (0.5, 0.9, 0.99))
            factors = [minutes.lognormvariate(0.0, MINUTE_SPREAD) for _ in range(MINUTES)]
            scale = MINUTES / sum(factors)  # the minutes average to the hour's rate
            by_minute = tuple(rate * f * scale for f in factors)
            hours.append(Hour(hour, flow.name, rate, mean, p50, p90, p99, by_minute))
    return tuple(hours)


@dataclass(frozen=True)
class Limit:
    """One flow's compartment, sized from its busiest minute, and from its busiest hour three ways."""

    flow: str
    hour: Hour  # the busiest hour: the most calls in flight on average over the hour
    target: float
    peak: Hour | None = None  # the hour holding the day's busiest minute (None: ``hour``)

    @property
    def peak_hour(self) -> Hour:
        return self.hour if self.peak is None else self.peak

    @property
    def in_flight(self) -> float:
        """Little's Law over the busiest hour: its mean rate x mean latency."""
        return self.hour.rate * self.hour.mean

    @property
    def peak_in_flight(self) -> float:
        """Little's Law in the day's busiest minute: its rate x its hour's mean latency."""
        return self.peak_hour.peak_rate * self.peak_hour.mean

    @property
    def hour_slots(self) -> int:
        """The fewest slots that refuse at most ``target`` at the busiest hour's mean (Erlang-B)."""
        return sizing.smallest_pool(self.in_flight, self.target)

    @property
    def slots(self) -> int:
        """The fewest slots that refuse at most ``target`` in the busiest minute (Erlang-B on the mean)."""
        return sizing.smallest_pool(self.peak_in_flight, self.target)

    @property
    def by_p99(self) -> int:
        """The busiest minute's rate x p99, rounded up: what a limit sized from the p99 dashboard gets."""
        return math.ceil(self.peak_hour.peak_rate * self.peak_hour.p99)

    @property
    def by_p50(self) -> int:
        return math.ceil(self.peak_hour.peak_rate * self.peak_hour.p50)

    def blocking(self, slots: int) -> float:
        """What ``slots`` refuse at the busiest minute's load (Erlang-B, no waiting places)."""
        return sizing.erlang_b(slots, self.peak_in_flight)


def limits(trace: tuple[Hour, ...], target: float = TARGET) -> tuple[Limit, ...]:
    """Each flow's limit from its busiest hour of ``trace``, in the order the flows appear."""
    check_real("target", target, 0.0, 0.5, low_open=True)
    flows = list(dict.fromkeys(h.flow for h in trace))
    limits = []
    for f in flows:
        flow_hours = [h for h in trace if h.flow == f]
        busiest = max(flow_hours, key=lambda h: h.rate * h.mean)
        peak = max(flow_hours, key=lambda h: h.peak_rate * h.mean)
        limits.append(Limit(f, busiest, target, peak))
    return tuple(limits)


_days: Memo[tuple[()], tuple[Hour, ...]] = Memo("08 day trace", 1)


def lesson_day() -> tuple[Hour, ...]:
    """The default seeded day (kept: notebook 08's tables and exercises read it again)."""
    return _days.get((), day_trace)


QUEUE = 4  # the watched event compartment's waiting places
SLOWDOWN = 22 / 6  # lesson 000's slowdown: the event hold from 6 to 22 rounds


@dataclass(frozen=True)
class Stretch:
    """An hour of the event compartment: the hour of :func:`lesson_day`, and a slowdown over its last
    ``minutes`` (0: none; 60: the whole hour)."""

    label: str
    hour: int
    slower: float = 1.0
    minutes: int = 0


STRETCHES = (
    Stretch("3:00, a quiet hour", 3),
    Stretch("15:00, the busiest hour", 15),
    Stretch("15:00, latency x 22/6 for its last 5 min", 15, SLOWDOWN, 5),
    Stretch("15:00, latency x 22/6 all hour", 15, SLOWDOWN, 60),
    Stretch("3:00, latency x 22/6 all hour", 3, SLOWDOWN, 60),
)

_hours: Memo[tuple[int, float, int, int], hours.HourRun] = Memo("08 event hours", 64)


def event_hour(hour: int, slower: float = 1.0, minutes: int = 0, queue: int = QUEUE) -> hours.HourRun:
    """The event compartment sized from :func:`lesson_day`'s busiest minute (:attr:`Limit.slots`), with
    ``queue`` waiting places, through ``hour`` minute by minute, its latency x ``slower`` over the
    hour's last ``minutes``, read against the default :class:`~.watch.Slo` (kept: about a second)."""
    key = (hour, float(slower), minutes, queue)
    return _hours.get(key, lambda: _event_hour(*key))


def _event_hour(hour: int, slower: float, minutes: int, queue: int) -> hours.HourRun:
    trace = lesson_day()
    limit = limits(trace)[1]
    h = next(x for x in trace if x.flow == limit.flow and x.hour == hour)
    return hours.run_hour(
        h.minute_rates, h.mean, limit.slots, queue, watch.Slo(), slower=slower,
        slow_from=MINUTES - minutes if minutes else None, seed=hour,
    )  # fmt: skip


def stretch_hour(stretch: Stretch) -> hours.HourRun:
    return event_hour(stretch.hour, stretch.slower, stretch.minutes)
