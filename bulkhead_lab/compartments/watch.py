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
  period; above it, it runs out early. An alert on a burn of 1 over a minute would page for
  every minute-long blip; the SRE workbook pages on a burn of 14.4 over the last hour *and*
  the last 5 minutes, or of 6 over 6 hours and 30 minutes, and opens a ticket at 1 over 3 days
  and 6 hours (:class:`Alerts`; an hour's windows: :mod:`bulkhead_lab.compartments.hours`).

:func:`readings` reads them from a compartment's counters (a live bulkhead's,
:mod:`bulkhead_lab.live.watched`); a seeded hour of one, minute by minute, is
:mod:`bulkhead_lab.compartments.hours`. Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple


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


@dataclass(frozen=True)
class Alerts:
    """When each reading alerts: its line (and, for the burn rate, the windows it is read over)."""

    saturation: float = 0.5  # full at least half the time
    refusal_ratio: float = 0.01  # 1% of calls refused
    wait_share: float = 0.5  # p99 wait at least half the SLO's latency
    burn: float = 14.4  # the fast page: 2% of a 30-day error budget in an hour ...
    long_window: int = 60  # ... over the last hour (minutes) ...
    short_window: int = 5  # ... and over the last 5 minutes, so it stops once the burning does
    slow_burn: float = 6.0  # the slow page: 5% of the budget in 6 hours ...
    slow_long: int = 360  # ... over the last 6 hours (minutes) ...
    slow_short: int = 30  # ... and the last 30 minutes
    ticket_burn: float = 1.0  # the ticket: 10% of the budget in 3 days ...
    ticket_long: int = 3 * 24 * 60  # ... over the last 3 days (minutes) ...
    ticket_short: int = 360  # ... and the last 6 hours
    period_days: int = 30  # the SLO's period, which the budget shares above are of

    def budget_spent(self, burn: float, minutes: float) -> float:
        """The share of the period's error budget a burn rate spends in ``minutes``."""
        return burn * minutes / (self.period_days * 24 * 60)


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
        """The readings over their alert line, by name; the stretch's one burn rate stands for both of
        the page's windows (a stretch of seconds, as a live run is, cannot hold an hour's)."""
        over = (
            ("saturation", self.saturation >= alerts.saturation),
            ("refusals", self.refusal_ratio >= alerts.refusal_ratio),
            ("queue wait", self.p99_wait >= alerts.wait_share * slo.latency),
            ("SLO burn", self.burn >= alerts.burn),
        )
        return tuple(name for name, on in over if on)


def p99(values: Sequence[float]) -> float:
    """The 99th percentile of ``values`` (the smallest value at or above 99% of them; 0 for none)."""
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
    refused = timeline[-1].rejected - timeline[0].rejected if timeline else 0
    late = sum(1 for x in latencies if x > slo.latency)
    bad = (refused + late) / calls if calls else 0.0
    return Readings(
        calls,
        refused,
        saturation(timeline, until),
        refused / calls if calls else 0.0,
        p99(waits),
        bad / (1 - slo.target) if slo.target < 1 else math.inf * bad,
    )


@dataclass(frozen=True)
class CompartmentRun:
    """A compartment's counters over ``duration`` s, as a live bulkhead records them."""

    timeline: tuple[Point, ...]
    calls: int
    waits: tuple[float, ...]  # each admitted call's wait for a place
    latencies: tuple[float, ...]  # each admitted call's wait + hold
    duration: float

    def readings(self, slo: Slo = Slo()) -> Readings:
        return readings(self.timeline, self.calls, self.waits, self.latencies, slo, self.duration)
