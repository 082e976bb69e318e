"""A month of lesson 000's peak hours, some of them with a failure: which layout drops fewest.

The lesson's rates are *peak* rates, so a month is ``peak_hours`` hours of peak traffic (30: an
hour a day), and each failure is a 10-minute slowdown inside a peak hour (the lesson's AY3:
three a month). A layout's month is its healthy-day drop rate over all peak hours plus, per
failure, the extra drops the slowdown causes, scaled from the run's 30 s failure window to 10
minutes the way the lesson scales its "rescued" figure (:func:`.lesson000.failure_scale`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bulkhead_lab.pool import lesson000
from bulkhead_lab.pool.params import MODES, TOTAL, Params
from bulkhead_lab.pool.rounds import counters
from bulkhead_lab.validation import check_choice, check_int, check_real

PEAK_HOURS = 30.0  # a month of one peak hour a day
FAILURES = 3  # AY3: three failures a month
LAYOUTS: tuple[int | None, ...] = (None, *range(1, TOTAL))  # the single pool, then every split
Flow = Literal["tracking", "event", "total"]


@dataclass(frozen=True)
class MonthDrops:
    """One layout's drops over a month of peak hours with some 10-minute failures."""

    split: int | None
    healthy_tracking: float
    healthy_event: float
    failure_tracking: float  # extra drops the failures add
    failure_event: float

    @property
    def tracking(self) -> float:
        return self.healthy_tracking + self.failure_tracking

    @property
    def event(self) -> float:
        return self.healthy_event + self.failure_event

    @property
    def total(self) -> float:
        return self.tracking + self.event


def month_drops(
    split: int | None,
    failures: int = FAILURES,
    peak_hours: float = PEAK_HOURS,
    minutes: float = lesson000.FAILURE_MINUTES,
    base: Params = Params(),
) -> MonthDrops:
    """A month's drops per flow for one layout, from its healthy and slowdown runs."""
    check_int("failures", failures, 0, 10_000)
    check_real("peak_hours", peak_hours, 0.0, 744.0)
    check_real("minutes", minutes, 0.0, 60.0)
    h, y = (counters(base.with_(split=split, mode=m)) for m in MODES)
    healthy = peak_hours * 3600 * base.cycle / base.rounds
    failure = failures * lesson000.failure_scale(base, minutes)
    return MonthDrops(
        split,
        h.tracking_dropped * healthy,
        h.event_dropped * healthy,
        (y.tracking_dropped - h.tracking_dropped) * failure,
        (y.event_dropped - h.event_dropped) * failure,
    )


def best_split(failures: int = FAILURES, peak_hours: float = PEAK_HOURS) -> int | None:
    """The layout (``None``: single pool) with the fewest total drops over the month."""
    return min(LAYOUTS, key=lambda s: month_drops(s, failures, peak_hours).total)


def break_even(
    split: int = 24, flow: Flow = "tracking", peak_hours: float = PEAK_HOURS, limit: int = 10_000
) -> int:
    """The fewest failures a month at which ``split`` drops fewer ``flow`` requests than the single pool."""
    check_int("split", split, 1, TOTAL - 1)
    check_choice("flow", flow, ("tracking", "event", "total"))
    for n in range(0, limit + 1):
        if getattr(month_drops(split, n, peak_hours), flow) < getattr(month_drops(None, n, peak_hours), flow):
            return n
    raise ValueError(f"split must win within {limit} failures a month (got {split!r})")
