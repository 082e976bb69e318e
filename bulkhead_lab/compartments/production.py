"""Sizing from what production shows: a day's trace per flow, turned into a limit per compartment.

Production shows, per flow and per hour, how many calls came (a rate) and how long they took
(percentiles of the latency, and its mean: a histogram's sum over its count). Little's Law
turns the busiest hour into calls in flight, rate x *mean* latency; Erlang-B turns that into
the fewest slots that refuse at most a target share. Erlang-B reads the mean only: how the
latencies spread around it does not change the blocking (the formula is insensitive to the
hold's distribution), so the p99 is the wrong input for a limit, however often it is used:
rate x p99 gives far more slots than the target needs, rate x p50 fewer.

:func:`day_trace` is a seeded day of lesson 000's two flows: their peak rates at the busiest
hour (14:00), a quarter of them at night, lognormal latencies around the lesson's holds
(tracking 40 ms, event 60 ms on average). Pure: Python's seeded generator, no I/O.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from bulkhead_lab import sizing
from bulkhead_lab.compartments import watch
from bulkhead_lab.memo import Memo
from bulkhead_lab.pool.params import EVENT_RATE, SEED, TRACKING_RATE
from bulkhead_lab.validation import check_int, check_real

HOURS = 24
PEAK_HOUR = 14
NIGHT = 0.25  # the night's rate, as a share of the peak's
SAMPLES = 2000  # latencies measured per flow and hour
TARGET = 0.01


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
    """One flow in one hour: calls/s, and the latency's mean and percentiles (s)."""

    hour: int
    flow: str
    rate: float
    mean: float
    p50: float
    p90: float
    p99: float


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
    check_int("samples", samples, 100, 100_000)
    draw = random.Random(seed)
    hours = []
    for hour in range(HOURS):
        for flow in flows:
            rate = flow.peak_rate * diurnal(hour) * (1 + draw.uniform(-0.05, 0.05))
            mu = math.log(flow.mean_latency) - flow.spread**2 / 2  # so the mean is mean_latency
            seen = sorted(draw.lognormvariate(mu, flow.spread) for _ in range(samples))
            mean = sum(seen) / samples
            p50, p90, p99 = (_percentile(seen, q) for q in (0.5, 0.9, 0.99))
            hours.append(Hour(hour, flow.name, rate, mean, p50, p90, p99))
    return tuple(hours)


@dataclass(frozen=True)
class Limit:
    """One flow's compartment, sized from its busiest hour three ways."""

    flow: str
    hour: Hour  # the busiest hour: the most calls in flight
    target: float

    @property
    def in_flight(self) -> float:
        """Little's Law: rate x mean latency."""
        return self.hour.rate * self.hour.mean

    @property
    def slots(self) -> int:
        """The fewest slots that refuse at most ``target`` (Erlang-B on the mean)."""
        return sizing.smallest_pool(self.in_flight, self.target)

    @property
    def by_p99(self) -> int:
        """rate x p99, rounded up: what a limit sized from the p99 dashboard gets."""
        return math.ceil(self.hour.rate * self.hour.p99)

    @property
    def by_p50(self) -> int:
        return math.ceil(self.hour.rate * self.hour.p50)

    def blocking(self, slots: int) -> float:
        """What ``slots`` refuse at this hour's load (Erlang-B)."""
        return sizing.erlang_b(slots, self.in_flight)


def limits(trace: tuple[Hour, ...], target: float = TARGET) -> tuple[Limit, ...]:
    """Each flow's limit from its busiest hour of ``trace``, in the order the flows appear."""
    check_real("target", target, 0.0, 0.5, low_open=True)
    flows = list(dict.fromkeys(h.flow for h in trace))
    busiest = [max((h for h in trace if h.flow == f), key=lambda h: h.rate * h.mean) for f in flows]
    return tuple(Limit(h.flow, h, target) for h in busiest)


_days: Memo[tuple[()], tuple[Hour, ...]] = Memo("08 day trace", 1)


def lesson_day() -> tuple[Hour, ...]:
    """The default seeded day (kept: notebook 08's tables and exercises read it again)."""
    return _days.get((), day_trace)


_readings: Memo[tuple[int, float, int], watch.Readings] = Memo("08 hour readings", 64)


def event_readings(hour: int, slower: float = 1.0, queue: int = 4) -> watch.Readings:
    """The event compartment sized from :func:`lesson_day`, over a minute of ``hour``, its latency x
    ``slower`` (kept), read against the default :class:`~.watch.Slo`."""
    return _readings.get((hour, slower, queue), lambda: _event_readings(hour, slower, queue))


def _event_readings(hour: int, slower: float, queue: int) -> watch.Readings:
    trace = lesson_day()
    limit = limits(trace)[1]
    h = next(x for x in trace if x.flow == limit.flow and x.hour == hour)
    return watch.run_compartment(h.rate, h.mean * slower, limit.slots, queue, seed=hour).readings(watch.Slo())
