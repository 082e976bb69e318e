"""Notebook 02's exercises: checkers with instant feedback, and the worked answers.

Every answer is computed from seeded model runs (kept by :mod:`bulkhead_lab.cache`),
so a checker and its worked answer always agree with the notebook's numbers.

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

from ... import lesson
from ...cache import counters
from ...model import MODES, TOTAL, Params, split_label
from ...validation import check_int, check_real

PEAK_HOURS = 30.0  # a month of one peak hour a day
FAILURES = 3  # AY3: three failures a month
FAILURE_MINUTES = lesson.FAILURE_MINUTES  # ten minutes each
SINGLE_POOL = "single pool"  # how an answer names the one shared pool
DROP_TARGET = 0.02  # exercise 1: healthy-day event drops under 2% of event arrivals


@dataclass(frozen=True)
class Feedback:
    """A checker's verdict; shows as its message in a notebook."""

    ok: bool | None  # None: no answer given yet
    message: str

    def __repr__(self) -> str:
        return self.message


def _no_answer(hint: str) -> Feedback:
    return Feedback(None, f"No answer yet. Hint: {hint}")


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


def check_smallest_event_pool(answer: int | None) -> Feedback:
    """Exercise 1: is ``answer`` the smallest event pool with healthy-day event drops under 2%?"""
    if answer is None:
        c = counters(Params(split=TOTAL - 8))
        arrivals = c.event_dropped + c.event_responses
        return _no_answer(
            f"read 'healthy event dropped' for a few splits against the {arrivals} event arrivals."
        )
    n = check_int("answer", answer, 1, TOTAL - 1)
    right = smallest_event_pool()
    share = 100 * event_drop_share(n)
    if n == right:
        return Feedback(
            True, f"Right: {n} event slots ({split_label(TOTAL - n)}) drop {share:.2f}% of events."
        )
    if share >= 100 * DROP_TARGET:
        return Feedback(False, f"Not yet: with {n} event slots the event flow drops {share:.2f}% - too many.")
    return Feedback(
        False, f"Not yet: {n} event slots drop only {share:.2f}%, but a smaller pool also stays under 2%."
    )


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
    failure_scale = failures * lesson.failure_scale(base, minutes)
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


def worked_month_answer(failures: int = FAILURES, peak_hours: float = PEAK_HOURS) -> int | str:
    """Exercise 2's answer as a learner would type it: a split, or "single pool"."""
    best = best_month_split(failures, peak_hours)
    return SINGLE_POOL if best is None else best


def _parse_layout(answer: int | str | None) -> int | None:
    if isinstance(answer, str):
        if answer.strip().lower() in ("single", "single pool"):
            return None
        raise ValueError(f"answer must be a split 1..{TOTAL - 1} or 'single pool' (got {answer!r})")
    return check_int("answer", answer, 1, TOTAL - 1)


def check_month_split(answer: int | str | None) -> Feedback:
    """Exercise 2: the layout with the fewest drops in a month of 30 peak hours and three failures."""
    if answer is None:
        return _no_answer("use month_drops(split) for a few splits, and for split=None (the single pool).")
    split = _parse_layout(answer)
    right = best_month_split()
    mine, best = month_drops(split).total, month_drops(right).total
    if split == right:
        return Feedback(True, f"Right: {split_label(split)} drops {mine:,.0f} requests in the month.")
    return Feedback(
        False,
        f"Not yet: {split_label(split)} drops {mine:,.0f} in the month; some layout drops only {best:,.0f}.",
    )


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


def check_break_even(answer: int | None) -> Feedback:
    """Exercise 3: how many failures a month before 24/8 drops fewer tracking requests than one pool?"""
    if answer is None:
        return _no_answer(
            "compare month_drops(24, failures=n).tracking with month_drops(None, failures=n).tracking."
        )
    n = check_int("answer", answer, 0, 10_000)
    right = break_even_failures()
    if n == right:
        return Feedback(True, f"Right: from {n} failures a month, 24/8 loses fewer tracking requests.")
    side = (
        "too few: the single pool still wins" if n < right else "more than needed: 24/8 already wins earlier"
    )
    return Feedback(False, f"Not yet: {n} failures a month is {side}.")
