"""Notebook 02's exercises: the smallest event pool, the best layout for a month, and the break-even.

Every answer is computed from seeded model runs memoised (:mod:`bulkhead_lab.memo`); the month is
:mod:`bulkhead_lab.pool.month`'s (30 peak hours, the lesson's three 10-minute failures).
"""

from __future__ import annotations

import pandas as pd

from bulkhead_lab.course.judges import admit as admit_judge
from bulkhead_lab.course.ui import exercise as ui
from bulkhead_lab.course.ui.exercise import Exercise, NotUnderstood, Wrong, read_split, read_whole, table
from bulkhead_lab.pool import month, rounds
from bulkhead_lab.pool.lesson000 import event_drop_share, smallest_event_pool
from bulkhead_lab.pool.month import month_drops
from bulkhead_lab.pool.params import TOTAL, split_label

DROP_TARGET = 0.02  # exercise 1: healthy-day event drops under 2% of event arrivals


def month_table() -> pd.DataFrame:
    """Every layout's month drops (the lesson's three failures): tracking, event and total, whole requests."""
    months = {split_label(s): month_drops(s) for s in month.LAYOUTS}
    rows = {label: [round(m.tracking), round(m.event), round(m.total)] for label, m in months.items()}
    return table("pool split", ["month tracking dropped", "month event dropped", "month dropped"], rows)


def break_even_table() -> pd.DataFrame:
    """Month tracking drops of one pool and of the lesson's 24/8 for 0 to 8 failures a month."""
    drops = {n: (round(month_drops(None, n).tracking), round(month_drops(24, n).tracking)) for n in range(9)}
    rows = {n: [single, bulk, bulk < single] for n, (single, bulk) in drops.items()}
    columns = ["single pool tracking dropped", f"{split_label(24)} tracking dropped", "bulkhead wins"]
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
    right=lambda: smallest_event_pool(DROP_TARGET),
    figures=lambda n: {"share": 100 * event_drop_share(n), "label": split_label(TOTAL - n)},
    right_says="{value} event slots ({label}) drop {share:.2f}% of events.",
    wrong=(
        Wrong(
            lambda a: a.share >= 100 * DROP_TARGET,
            "with {value} event slots the event flow drops {share:.2f}%, 2% or more.",
        ),
    ),
    otherwise="{value} event slots drop only {share:.2f}%, but a smaller pool also stays under 2%.",
    hint="move section 5's split left (more event slots) and watch 'healthy event dropped'; "
    "exercises.event_drop_share(slots) gives the share of event arrivals.",
    worked=(
        "The smallest event pool under 2% is {right} slots ({label}). The lesson's 8 slots carry the event "
        "flow's average load with 1.37x headroom, yet bursts cost about a tenth of the events.",
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
    right=lambda: month.best_split(),
    figures=lambda s: dict(
        label=split_label(s), mine=month_drops(s).total, best=month_drops(month.best_split()).total
    ),
    right_says="{label} drops {mine:,.0f} requests in the month, the fewest.",
    otherwise="{label} drops {mine:,.0f} in the month; some layout drops {best:,.0f}.",
    hint="compare exercises.month_drops(split).total for a few splits and for split=None (the single pool).",
    worked=(
        "{label} drops the fewest requests over the month: the sharing a wall of the same 32 slots loses on "
        "the 30 healthy peak hours outweighs what it saves in three 10-minute failures (section 6 prices a "
        "wall at equal blocking). The five layouts with the fewest drops:",
        lambda _: month_table().nsmallest(5, "month dropped"),
    ),
    placeholder="a split like 24/8, or single pool",
)

exercise_3 = Exercise(
    3,
    "When does 24/8 pay for the tracking flow?",
    read=lambda a: read_whole(a, 0, 10_000, "a number of failures a month"),
    right=lambda: month.break_even(),
    figures=lambda n: {"failures": f"{n} failure{'' if n == 1 else 's'} a month"},
    right_says="from {failures}, 24/8 loses fewer tracking requests than one pool.",
    otherwise=(
        "{failures} is more than needed: 24/8 already wins with fewer.",
        "{failures} is too few: the single pool still wins.",
    ),
    hint="compare month_drops(24, failures=n).tracking with month_drops(None, failures=n).tracking "
    "for a few n.",
    worked=(
        "From {failures}. Each failure costs the single pool's tracking flow thousands of requests, the "
        "bulkhead's none; below that, the healthy hours' lost sharing costs tracking more. Fewer peak hours "
        "shrink the healthy-day cost: try exercises.month.break_even(peak_hours=10).",
        lambda _: break_even_table(),
    ),
    placeholder="failures a month",
)


exercise_4 = write_admit = Exercise(
    4,
    "Write the round's admission",
    read=ui.judged(admit_judge.check, "function"),
    hint="walk the order: an arrival takes a slot when its flow has room under its limit and the pool has a "
    "free slot, else it is dropped; count what each flow takes (section 1's admit, its loop).",
    worked=(
        "**Section 1's `admit`**; the exercise's `admit(order, free, room)` is its loop, with `free` and "
        "`room` (each flow's limit minus its busy slots) read off the pool:",
        ui.source(rounds.admit),
    ),
    placeholder="your function's name",
    typed="my_admit",
)
