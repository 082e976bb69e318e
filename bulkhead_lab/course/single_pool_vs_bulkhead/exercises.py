"""Notebook 02's exercises: the smallest event pool, the best layout for a month, and the break-even.

Every answer is computed from seeded model runs memoised (:mod:`bulkhead_lab.memo`), so a
checker and its worked answer always agree with the notebook's numbers.

The month in exercises 2 and 3: the lesson's rates are *peak* rates, so a month is
``peak_hours`` hours of peak traffic (30: an hour a day), and each failure is a
10-minute slowdown inside a peak hour (AY3: three a month). A layout's month drops
are its healthy-day drop rate over all peak hours plus, per failure, the extra drops
the slowdown causes, scaled from the run's 30 s failure window to 10 minutes the way
the lesson scales its "rescued" figure.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from bulkhead_lab.course.ui.exercise import Exercise, NotUnderstood, Wrong, read_split, read_whole, table
from bulkhead_lab.pool import lesson000
from bulkhead_lab.pool.params import MODES, TOTAL, Params, split_label
from bulkhead_lab.pool.rounds import counters
from bulkhead_lab.validation import check_int, check_real

PEAK_HOURS = 30.0  # a month of one peak hour a day
FAILURES = 3  # AY3: three failures a month
FAILURE_MINUTES = lesson000.FAILURE_MINUTES  # ten minutes each
DROP_TARGET = 0.02  # exercise 1: healthy-day event drops under 2% of event arrivals


def event_drop_share(event_slots: int, base: Params = Params()) -> float:
    """Healthy-day event drops as a share of event arrivals, with ``event_slots`` for events."""
    check_int("event_slots", event_slots, 1, base.total - 1)
    c = counters(base.with_(split=base.total - event_slots, mode="healthy"))
    arrivals = c.event_dropped + c.event_responses
    return c.event_dropped / arrivals if arrivals else 0.0


def smallest_event_pool(target: float = DROP_TARGET, base: Params = Params()) -> int:
    """The fewest event slots whose healthy-day event drops stay under ``target`` of event arrivals."""
    check_real("target", target, 0.0, 1.0, low_open=True)
    for n in range(1, base.total):
        if event_drop_share(n, base) < target:
            return n
    raise ValueError(f"target must be reachable with at most {base.total - 1} event slots (got {target!r})")


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
    minutes: float = FAILURE_MINUTES,
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


def month_table(failures: int = FAILURES, peak_hours: float = PEAK_HOURS) -> pd.DataFrame:
    """Every layout's month drops, tracking, event and total, rounded to whole requests."""
    months = {split_label(s): month_drops(s, failures, peak_hours) for s in (None, *range(1, TOTAL))}
    rows = {label: [round(m.tracking), round(m.event), round(m.total)] for label, m in months.items()}
    return table("pool split", ["month tracking dropped", "month event dropped", "month dropped"], rows)


def best_month_split(failures: int = FAILURES, peak_hours: float = PEAK_HOURS) -> int | None:
    """The layout (``None``: single pool) with the fewest total drops over the month."""
    return min((None, *range(1, TOTAL)), key=lambda s: month_drops(s, failures, peak_hours).total)


def break_even_failures(
    split: int = 24, flow: str = "tracking", peak_hours: float = PEAK_HOURS, limit: int = 10_000
) -> int:
    """The fewest failures a month at which ``split`` drops fewer ``flow`` requests than the single pool."""
    check_int("split", split, 1, TOTAL - 1)
    if flow not in ("tracking", "event", "total"):
        raise ValueError(f"flow must be one of tracking, event, total (got {flow!r})")
    for n in range(0, limit + 1):
        if getattr(month_drops(split, n, peak_hours), flow) < getattr(month_drops(None, n, peak_hours), flow):
            return n
    raise ValueError(f"split must win within {limit} failures a month (got {split!r})")


def break_even_table(split: int = 24, failures: range = range(0, 9)) -> pd.DataFrame:
    """Month tracking drops of one pool and of ``split`` for each number of failures a month."""
    drops = {
        n: (round(month_drops(None, n).tracking), round(month_drops(split, n).tracking)) for n in failures
    }
    rows = {n: [single, bulk, bulk < single] for n, (single, bulk) in drops.items()}
    columns = ["single pool tracking dropped", f"{split_label(split)} tracking dropped", "bulkhead wins"]
    return table("failures a month", columns, rows)


def _event_slots(answer: object) -> int:
    """11, '11 slots', or a split such as '21/11' (its event side)."""
    if isinstance(answer, str) and "/" in answer:
        split = read_split(answer)
        if split is None:
            raise NotUnderstood("the single pool has no event pool of its own; this asks for event slots.")
        return TOTAL - split
    return read_whole(answer, 1, TOTAL - 1, f"a number of event slots, 1..{TOTAL - 1}")


exercise_1 = Exercise(
    1,
    "The smallest event pool",
    read=_event_slots,
    right=smallest_event_pool,
    figures=lambda n: {"share": 100 * event_drop_share(n), "label": split_label(TOTAL - n)},
    right_says="{value} event slots ({label}) drop {share:.2f}% of events.",
    wrong=(
        Wrong(
            lambda a: a.share >= 100 * DROP_TARGET,
            "with {value} event slots the event flow drops {share:.2f}%, 2% or more.",
        ),
    ),
    otherwise="{value} event slots drop only {share:.2f}%, but a smaller pool also stays under 2%.",
    hint="in section 5's panel, move the split left (more event slots) and compare 'event dropped' on the "
    "healthy day with the event arrivals (responses + dropped); or call exercises.event_drop_share(slots).",
    worked=(
        "The smallest event pool under 2% is {right} slots ({label}). The lesson's 8 slots carry the event "
        "flow's average load (5.83 slots) with 1.37x headroom, yet bursts still cost about a tenth of the "
        "events; staying under 2% takes more headroom than the lesson's bulkhead gives.",
        lambda _: table(
            "event slots",
            ["pool split", "healthy event drop %"],
            {n: [split_label(TOTAL - n), round(100 * event_drop_share(n), 2)] for n in range(6, 14)},
        ),
    ),
    placeholder="event slots",
)

exercise_2 = Exercise(
    2,
    "The best layout for a month",
    read=read_split,
    right=best_month_split,
    figures=lambda s: dict(
        label=split_label(s), mine=month_drops(s).total, best=month_drops(best_month_split()).total
    ),
    right_says="{label} drops {mine:,.0f} requests in the month, the fewest.",
    otherwise="{label} drops {mine:,.0f} in the month; some layout drops {best:,.0f}.",
    hint="compare exercises.month_drops(split).total for a few splits and for split=None (the single pool).",
    worked=(
        "{label} drops the fewest requests over the month. Counting every request, the bulkhead's cost on "
        "the 30 healthy peak hours (lost sharing) outweighs what it saves in three 10-minute failures: a "
        "bulkhead is not for minimising total drops; it is for keeping one flow's failure off its "
        "neighbour. The five layouts with the fewest drops:",
        lambda _: month_table().nsmallest(5, "month dropped"),
    ),
    placeholder="a split like 24/8, or single pool",
)

exercise_3 = Exercise(
    3,
    "When does 24/8 pay for the tracking flow?",
    read=lambda a: read_whole(a, 0, 10_000, "a number of failures a month"),
    right=break_even_failures,
    right_says="from {value} failures a month, 24/8 loses fewer tracking requests than one pool.",
    otherwise=(
        "{value} failures a month is more than needed: 24/8 already wins earlier.",
        "{value} failures a month is too few: the single pool still wins.",
    ),
    hint="compare month_drops(24, failures=n).tracking with month_drops(None, failures=n).tracking "
    "for a few n.",
    worked=(
        "From {right} failures a month. Each failure costs the single pool's tracking flow thousands of "
        "requests and costs the bulkhead's none, so failures frequent enough make the bulkhead win for the "
        "flow it protects; below {right} a month, the healthy hours' lost sharing costs tracking more. Fewer "
        "peak hours make the healthy-day cost smaller and the bulkhead pay off sooner: try "
        "exercises.break_even_failures(peak_hours=10).",
        lambda _: break_even_table(),
    ),
    placeholder="failures a month",
)
