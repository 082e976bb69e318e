"""Notebook 02's exercises: the smallest event pool, the best layout for a month, and the break-even.

Every answer is computed from seeded model runs kept by :mod:`bulkhead_lab.cache`, so a
checker and its worked answer always agree with the notebook's numbers. The checkers
are :class:`~bulkhead_lab.course.ui.exercise.Exercise` objects: they take anything a learner
types and answer in one line; the worked answers show only when asked.

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

from bulkhead_lab.cache import counters
from bulkhead_lab.course.ui.exercise import Exercise, Feedback, NotUnderstood, read_split, read_whole
from bulkhead_lab.pool import lesson000
from bulkhead_lab.pool.model import MODES, TOTAL, Params, split_label
from bulkhead_lab.validation import check_int, check_real

PEAK_HOURS = 30.0  # a month of one peak hour a day
FAILURES = 3  # AY3: three failures a month
FAILURE_MINUTES = lesson000.FAILURE_MINUTES  # ten minutes each
DROP_TARGET = 0.02  # exercise 1: healthy-day event drops under 2% of event arrivals


# --- exercise 1: the smallest event pool ---------------------------------------------


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


def event_pool_table(base: Params = Params(), sizes: range = range(6, 14)) -> pd.DataFrame:
    """Event drop share for a range of event pool sizes: the worked answer's evidence."""
    rows = [
        {
            "event slots": n,
            "pool split": split_label(base.total - n, base.total),
            "healthy event drop %": round(100 * event_drop_share(n, base), 2),
        }
        for n in sizes
    ]
    return pd.DataFrame(rows).set_index("event slots")


# --- exercises 2 and 3: a month of peak hours and failures ---------------------------


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
    healthy_scale = peak_hours * 3600 * base.cycle / base.rounds
    failure_scale = failures * lesson000.failure_scale(base, minutes)
    return MonthDrops(
        split=split,
        healthy_tracking=h.tracking_dropped * healthy_scale,
        healthy_event=h.event_dropped * healthy_scale,
        failure_tracking=(y.tracking_dropped - h.tracking_dropped) * failure_scale,
        failure_event=(y.event_dropped - h.event_dropped) * failure_scale,
    )


def month_table(
    failures: int = FAILURES, peak_hours: float = PEAK_HOURS, base: Params = Params()
) -> pd.DataFrame:
    """Every layout's month drops, tracking, event and total, rounded to whole requests."""
    rows = []
    for split in (None, *range(1, base.total)):
        m = month_drops(split, failures, peak_hours, base=base)
        rows.append(
            {
                "pool split": split_label(split, base.total),
                "month tracking dropped": round(m.tracking),
                "month event dropped": round(m.event),
                "month dropped": round(m.total),
            }
        )
    return pd.DataFrame(rows).set_index("pool split")


def best_month_split(failures: int = FAILURES, peak_hours: float = PEAK_HOURS) -> int | None:
    """The layout (``None``: single pool) with the fewest total drops over the month."""
    layouts = (None, *range(1, TOTAL))
    return min(layouts, key=lambda s: month_drops(s, failures, peak_hours).total)


def best_month_bulkhead(failures: int = FAILURES, peak_hours: float = PEAK_HOURS) -> int:
    """The best bulkhead split (1..31) by total month drops, for comparison with the single pool."""
    return min(range(1, TOTAL), key=lambda s: month_drops(s, failures, peak_hours).total)


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


def break_even_table(
    split: int = 24, failures: range = range(0, 9), peak_hours: float = PEAK_HOURS
) -> pd.DataFrame:
    """Month tracking drops of one pool and of ``split`` for each number of failures a month."""
    rows = []
    for n in failures:
        single, bulk = month_drops(None, n, peak_hours), month_drops(split, n, peak_hours)
        rows.append(
            {
                "failures a month": n,
                "single pool tracking dropped": round(single.tracking),
                f"{split_label(split)} tracking dropped": round(bulk.tracking),
                "bulkhead wins": bulk.tracking < single.tracking,
            }
        )
    return pd.DataFrame(rows).set_index("failures a month")


# --- the exercises, as a learner meets them ------------------------------------------------


def _event_slots(answer: object) -> int:
    # "11", 11, "11 slots", or a split such as "21/11" (its event side).
    if isinstance(answer, str) and "/" in answer:
        split = read_split(answer)
        if split is None:
            raise NotUnderstood("the single pool has no event pool of its own; this asks for event slots.")
        return TOTAL - split
    return read_whole(answer, 1, TOTAL - 1, f"a number of event slots, 1..{TOTAL - 1}")


def _judge_1(answer: object) -> Feedback:
    n = _event_slots(answer)
    right = smallest_event_pool()
    share = 100 * event_drop_share(n)
    if n == right:
        return Feedback(
            True, f"Right: {n} event slots ({split_label(TOTAL - n)}) drop {share:.2f}% of events."
        )
    if share >= 100 * DROP_TARGET:
        return Feedback(
            False, f"Not yet: with {n} event slots the event flow drops {share:.2f}%, 2% or more."
        )
    return Feedback(
        False, f"Not yet: {n} event slots drop only {share:.2f}%, but a smaller pool also stays under 2%."
    )


def _answer_1() -> list[object]:
    right = smallest_event_pool()
    return [
        f"The smallest event pool under 2% is {right} slots ({split_label(TOTAL - right)}). "
        "The lesson's 8 slots carry the event flow's average load (5.83 slots) with 1.37x headroom, "
        "yet bursts still cost about a tenth of the events; staying under 2% takes more headroom "
        "than the lesson's bulkhead gives.",
        event_pool_table(),
    ]


exercise_1 = Exercise(
    1,
    "The smallest event pool",
    judge=_judge_1,
    hint="in section 5's panel, move the split left (more event slots) and compare 'event dropped' on the "
    "healthy day with the event arrivals (responses + dropped); or call exercises.event_drop_share(slots).",
    answer=_answer_1,
    placeholder="event slots",
)


def _judge_2(answer: object) -> Feedback:
    split = read_split(answer)
    right = best_month_split()
    mine, best = month_drops(split).total, month_drops(right).total
    if split == right:
        return Feedback(
            True, f"Right: {split_label(split)} drops {mine:,.0f} requests in the month, the fewest."
        )
    return Feedback(
        False, f"Not yet: {split_label(split)} drops {mine:,.0f} in the month; some layout drops {best:,.0f}."
    )


def _answer_2() -> list[object]:
    best = best_month_split()
    return [
        f"{split_label(best)} drops the fewest requests over the month. Counting every request, the "
        "bulkhead's cost on the 30 healthy peak hours (lost sharing) outweighs what it saves in three "
        "10-minute failures: a bulkhead is not for minimising total drops; it is for keeping one flow's "
        "failure off its neighbour. The five layouts with the fewest drops:",
        month_table().nsmallest(5, "month dropped"),
    ]


exercise_2 = Exercise(
    2,
    "The best layout for a month",
    judge=_judge_2,
    hint="compare exercises.month_drops(split).total for a few splits and for split=None (the single pool).",
    answer=_answer_2,
    placeholder="a split like 24/8, or single pool",
)


def _judge_3(answer: object) -> Feedback:
    n = read_whole(answer, 0, 10_000, "a number of failures a month")
    right = break_even_failures()
    if n == right:
        return Feedback(
            True, f"Right: from {n} failures a month, 24/8 loses fewer tracking requests than one pool."
        )
    side = (
        "too few: the single pool still wins" if n < right else "more than needed: 24/8 already wins earlier"
    )
    return Feedback(False, f"Not yet: {n} failures a month is {side}.")


def _answer_3() -> list[object]:
    right = break_even_failures()
    return [
        f"From {right} failures a month. Each failure costs the single pool's tracking flow thousands of "
        "requests and costs the bulkhead's none, so failures frequent enough make the bulkhead win for the "
        f"flow it protects; below {right} a month, the healthy hours' lost sharing costs tracking more. "
        "Fewer peak hours make the healthy-day cost smaller and the bulkhead pay off sooner: try "
        "exercises.break_even_failures(peak_hours=10).",
        break_even_table(),
    ]


exercise_3 = Exercise(
    3,
    "When does 24/8 pay for the tracking flow?",
    judge=_judge_3,
    hint="compare month_drops(24, failures=n).tracking with month_drops(None, failures=n).tracking "
    "for a few n.",
    answer=_answer_3,
    placeholder="failures a month",
)
