"""The numbers notebook 02 shows: lesson 000's tables, and what each slider view redraws.

Each view takes a :class:`~bulkhead_lab.pool.params.Params` (the split and the holds the
sliders set; the day comes from the view) and returns plain data, a frozen dataclass
holding pandas frames; :mod:`.figures` draws it and :mod:`.panels` wires it to sliders.
Every number comes from model runs memoised (:mod:`bulkhead_lab.memo`), or from
:mod:`bulkhead_lab.pool.lesson000`.

A *layout* is a split: ``None`` is one shared pool, ``n`` is ``n`` tracking slots and
``total - n`` event slots.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from bulkhead_lab.course.ui.beside import Claim, WideFrame, count, exact, table
from bulkhead_lab.pool import lesson000
from bulkhead_lab.pool.params import LESSON_SPLIT, MODES, TOTAL, Counters, Params, split_label
from bulkhead_lab.pool.rounds import counters, occupancy
from bulkhead_lab.pool.sweep import split_counters
from bulkhead_lab.validation import check_int

LESSON_SPLITS: tuple[int, ...] = tuple(s for s in lesson000.SIZING_SPLITS if s is not None)  # 28, 24, 20, 16
SENSITIVITY_SPLIT = lesson000.SENSITIVITY_SPLIT  # 27/5
LESSON = Params(split=LESSON_SPLIT)  # the lesson's knobs with its 24/8 bulkhead


# --- lesson 000's printed tables ------------------------------------------------------------


@dataclass(frozen=True)
class Printout:
    """Lesson 000's printed text, shown without wrapping (its lines are 180 characters wide).

    Its plain-text form is the text itself, byte for byte, which is what nbval compares;
    JupyterLab shows the HTML form: the same text in a box that scrolls sideways instead
    of breaking each row of the table in two.
    """

    text: str

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        escaped = html.escape(self.text)
        return (
            '<pre style="white-space: pre; overflow-x: auto; font-size: 11px; line-height: 1.3; '
            f'margin: 0">{escaped}</pre>'
        )


def lesson_printout(base: Params = Params()) -> Printout:
    """``bulkhead-run.mjs``'s output for these parameters, byte for byte (see :func:`lesson.report`)."""
    return Printout(lesson000.report(base))


def main_table(base: Params = Params()) -> pd.DataFrame:
    """Lesson 000's first table: single pool and the lesson's bulkhead, healthy and slowdown."""
    rows = []
    layouts = (
        (f"single pool ({base.total})", None),
        (f"bulkhead ({split_label(LESSON_SPLIT, base.total)})", LESSON_SPLIT),
    )
    for name, split in layouts:
        day = lesson000.day_pair(base, split)
        for mode in MODES:
            c: Counters = getattr(day, mode)
            rows.append(
                {
                    "layout": name,
                    "day": mode,
                    "tracking responses": c.tracking_responses,
                    "tracking dropped": c.tracking_dropped,
                    "event responses": c.event_responses,
                    "event dropped": c.event_dropped,
                    "idle slots": c.idle,
                    "average busy slots": round(lesson000.average_busy(c, base.rounds), 2),
                }
            )
    return pd.DataFrame(rows).set_index(["layout", "day"])


def sizing_frame(base: Params = Params()) -> pd.DataFrame:
    """Lesson 000's sizing table: drops per flow on both days for single, 28/4, 24/8, 20/12, 16/16."""
    rows = []
    for day in lesson000.sizing_table(base):
        rows.append(
            {
                "pool split": split_label(day.split, base.total),
                "healthy tracking dropped": day.healthy.tracking_dropped,
                "healthy event dropped": day.healthy.event_dropped,
                "slowdown tracking dropped": day.slowdown.tracking_dropped,
                "slowdown event dropped": day.slowdown.event_dropped,
            }
        )
    return pd.DataFrame(rows).set_index("pool split")


# Lesson 000's figures, as its text states them: (where, what, the lesson's value), in its order.
FAILING, COST, SIZE = (
    "The Bulkhead Does Not Change the Failing Day",
    "The Failure-Free Day's Cost",
    "Bulkhead Size Trades the Two Days",
)
LESSON_000: tuple[tuple[str, str, object], ...] = (
    (FAILING, "single pool, slowdown: tracking dropped", 2654),
    (FAILING, "24/8, slowdown: tracking dropped", 172),
    (FAILING, "tracking drops less under 24/8 on the slowdown day (%)", 93.5),
    (FAILING, "tracking requests rescued in a 10-minute failure", 49640),
    (FAILING, "event dropped on the slowdown day: single pool -> 24/8", "600 -> 2011"),
    (COST, "healthy day: all dropped, single pool -> 24/8", "105 -> 578"),
    (COST, "healthy day: drops multiplied by", 5.5),
    (COST, "healthy day: utilization", "0.541 -> 0.524"),
    (COST, "healthy day: average busy slots", "17.31 -> 16.77"),
    (COST, "healthy day: idle slots at rejections under 24/8", 4239),
    (COST, "extra drops under 24/8: tracking, event", "+94, +379"),
    (SIZE, "28/4: slowdown tracking dropped, healthy event dropped", "11, 1754"),
    (SIZE, "16/16: healthy tracking dropped", 2591),
    (SIZE, "27/5 instead of 24/8: healthy tracking dropped, event dropped", "26, 1303"),
)


def lesson_claims(base: Params = Params()) -> list[Claim]:
    """Every figure lesson 000 states in its text, beside the same figure computed by the model here."""
    gain, cost, sens = (
        lesson000.failing_day_gain(base),
        lesson000.failure_free_cost(base),
        lesson000.sensitivity(base),
    )
    rounds = base.rounds
    table = {day.split: day for day in lesson000.sizing_table(base)}
    s0, b0 = cost.single, cost.bulkhead
    computed = [
        gain.single.tracking_dropped,
        gain.bulkhead.tracking_dropped,
        round(gain.percent_less, 1),
        round(gain.rescued),
        f"{gain.single.event_dropped} -> {gain.bulkhead.event_dropped}",
        f"{cost.single_dropped} -> {cost.bulkhead_dropped}",
        round(cost.drop_ratio, 1),
        f"{cost.single_utilization:.3f} -> {cost.bulkhead_utilization:.3f}",
        f"{lesson000.average_busy(s0, rounds):.2f} -> {lesson000.average_busy(b0, rounds):.2f}",
        b0.idle,
        f"{b0.tracking_dropped - s0.tracking_dropped:+d}, {b0.event_dropped - s0.event_dropped:+d}",
        f"{table[28].slowdown.tracking_dropped}, {table[28].healthy.event_dropped}",
        table[16].healthy.tracking_dropped,
        f"{sens.narrower.tracking_dropped}, {sens.narrower.event_dropped}",
    ]
    return [exact(*said, here) for said, here in zip(LESSON_000, computed, strict=True)]


def claims_table(claims: Iterable[Claim]) -> WideFrame:
    """Every figure, numbered, with where the lesson states it and whether it is reproduced (the appendix)."""
    return table(claims, "lesson 000", appendix=True)


def claims_count(claims: Iterable[Claim]) -> str:
    """How many of the lesson's figures the model reproduces (exactly: the model is seeded)."""
    return count(claims, "lesson 000")


# --- the slider views -----------------------------------------------------------------------


def _day_row(layout: str, mode: str, c: Counters, p: Params) -> dict[str, object]:
    return {
        "layout": layout,
        "day": mode,
        "tracking dropped": c.tracking_dropped,
        "event dropped": c.event_dropped,
        "dropped": lesson000.dropped(c),
        "idle slots at rejections": c.idle,
        "average busy slots": round(lesson000.average_busy(c, p.rounds), 2),
        "utilization": round(lesson000.utilization(c, p.rounds, p.total), 3),
    }


@dataclass(frozen=True)
class LayoutView:
    """One layout against the single pool, on both days: what the split slider changes."""

    split: int | None
    frame: pd.DataFrame  # index (layout, day)

    def value(self, layout: str, day: str, column: str) -> float:
        """One cell, by layout label, day and column name."""
        return float(self.frame.loc[(layout, day), column])

    @property
    def label(self) -> str:
        return split_label(self.split)


def layout_view(params: Params = LESSON) -> LayoutView:
    """Drops, idle slots and utilization for the single pool and ``params.split`` on both days."""
    rows = []
    for split in (None,) if params.split is None else (None, params.split):
        for mode in MODES:
            p = params.with_(mode=mode, split=split)
            rows.append(_day_row(split_label(split, p.total), mode, counters(p), p))
    return LayoutView(params.split, pd.DataFrame(rows).set_index(["layout", "day"]))


SWEEP_COLUMNS = (
    "healthy tracking dropped",
    "healthy event dropped",
    "slowdown tracking dropped",
    "slowdown event dropped",
    "healthy idle slots",
    "slowdown idle slots",
)


def _row(h: Counters, y: Counters) -> list[int]:
    return [h.tracking_dropped, h.event_dropped, y.tracking_dropped, y.event_dropped, h.idle, y.idle]


@dataclass(frozen=True)
class TradeoffView:
    """Drops per flow against split on both days, with one split marked."""

    split: int | None
    sweep: pd.DataFrame  # index: split 1..total-1
    single: pd.Series  # the same columns for the single pool

    def at(self, split: int | None) -> pd.Series:
        """The sweep's row for one layout (``None``: the single pool)."""
        return self.single if split is None else self.sweep.loc[split]

    def table(self) -> pd.DataFrame:
        """The rows a learner reads: single pool, the lesson's splits and the marked split."""
        marks: list[int | None] = [None, *sorted({*LESSON_SPLITS, SENSITIVITY_SPLIT}, reverse=True)]
        if self.split not in marks:
            marks.append(self.split)
        rows = {split_label(s): self.at(s) for s in marks}
        frame = pd.DataFrame(rows).T
        frame.index.name = "pool split"
        return frame.astype(int)


def tradeoff_view(params: Params = LESSON) -> TradeoffView:
    """Every split 1..total-1 on both days (the trade-off), marking ``params.split``."""
    healthy = split_counters(params.with_(mode="healthy"))
    slowdown = split_counters(params.with_(mode="slowdown"))
    data = [_row(h, y) for h, y in zip(healthy, slowdown, strict=True)]
    splits = pd.Index(range(1, params.total), name="split")
    sweep = pd.DataFrame(data, index=splits, columns=list(SWEEP_COLUMNS))
    single = _row(*(counters(params.with_(mode=mode, split=None)) for mode in MODES))
    return TradeoffView(params.split, sweep, pd.Series(single, index=list(SWEEP_COLUMNS)))


@dataclass(frozen=True)
class OccupancyView:
    """Busy slots per flow, round by round, around the failure (slowdown day), in both layouts.

    ``frame`` has one column per flow and layout: ``single pool: tracking``, ``single pool:
    event`` (two shares of one pool), and, under a split, ``tracking pool`` and ``event pool``.
    Busy slots are counted at the start of each round (after its frees, before its arrivals),
    the moment lesson 000 counts its average busy slots.
    """

    split: int | None
    start: int
    total: int
    frame: pd.DataFrame  # index round

    SINGLE_TRACKING = "single pool: tracking"
    SINGLE_EVENT = "single pool: event"

    @property
    def capacity(self) -> dict[str, int]:
        """Each pool's slots, by the name the summary gives it."""
        pools = {f"single pool ({self.total})": self.total}
        if self.split is not None:
            pools[f"tracking pool ({self.split})"] = self.split
            pools[f"event pool ({self.total - self.split})"] = self.total - self.split
        return pools

    def busy(self, pool: str) -> pd.Series:
        """A pool's busy slots per round (the single pool's two shares added up)."""
        if pool.startswith("single pool"):
            return self.frame[self.SINGLE_TRACKING] + self.frame[self.SINGLE_EVENT]
        return self.frame["tracking pool" if pool.startswith("tracking") else "event pool"]

    def summary(self) -> pd.DataFrame:
        """Each pool's mean busy slots before and after the failure, its peak and rounds full after.

        The row ``events in the single pool`` is the slow flow's share of the one pool: what it
        takes from the tracking flow when no wall stops it.
        """
        index = self.frame.index
        before, after = index < self.start, index >= self.start
        series = {pool: (self.busy(pool), cap) for pool, cap in self.capacity.items()}
        series["events in the single pool"] = (self.frame[self.SINGLE_EVENT], self.total)
        rows = {}
        for pool, (busy, cap) in series.items():
            rows[pool] = {
                "slots": cap,
                "mean busy before": round(float(busy[before].mean()), 2) if before.any() else math.nan,
                "mean busy after": round(float(busy[after].mean()), 2) if after.any() else math.nan,
                "peak busy after": int(busy[after].max()) if after.any() else 0,
                "rounds full after": int((busy[after] >= cap).sum()),
            }
        frame = pd.DataFrame(rows).T
        frame.index.name = "pool"
        return frame.astype({"slots": int, "peak busy after": int, "rounds full after": int})


def occupancy_view(params: Params = LESSON, before: int = 100, after: int = 300) -> OccupancyView:
    """Busy slots per flow, single pool and split, in rounds start - before .. start + after."""
    check_int("before", before, 0, params.rounds)
    check_int("after", after, 1, params.rounds)
    start = params.start
    lo, hi = max(0, start - before), min(params.rounds, start + after)
    shared = occupancy(params.with_(mode="slowdown", split=None))
    cols: dict[str, tuple[int, ...]] = {
        OccupancyView.SINGLE_TRACKING: shared.tracking[lo:hi],
        OccupancyView.SINGLE_EVENT: shared.event[lo:hi],
    }
    if params.split is not None:
        occ = occupancy(params.with_(mode="slowdown"))
        cols["tracking pool"] = occ.tracking[lo:hi]
        cols["event pool"] = occ.event[lo:hi]
    frame = pd.DataFrame(cols, index=pd.RangeIndex(lo, hi, name="round"))
    return OccupancyView(params.split, start, params.total, frame)


@dataclass(frozen=True)
class IdleView:
    """Rejections, and the idle slots that sat in the other pool at those moments."""

    split: int | None
    frame: pd.DataFrame  # index (layout, day)


def idle_view(params: Params = LESSON) -> IdleView:
    """Rejections beside idle slots: zero in one pool by definition, thousands under a bulkhead."""
    base = layout_view(params).frame
    frame = pd.DataFrame(
        {
            "rejections": base["dropped"],
            "idle slots at rejections": base["idle slots at rejections"],
        }
    )
    per = frame["idle slots at rejections"] / frame["rejections"].where(frame["rejections"] > 0)
    frame["idle slots per rejection"] = per.fillna(0.0).round(2)
    return IdleView(params.split, frame)


@dataclass(frozen=True)
class CompartmentView:
    """Every pool's slots at one round: the step-through's picture."""

    round: int
    start: int
    split: int | None
    frame: pd.DataFrame  # index pool; columns layout, slots, busy, free

    @property
    def failing(self) -> bool:
        return self.round >= self.start


def compartment_view(round: int = LESSON.start + 100, params: Params = LESSON) -> CompartmentView:
    """Every pool's slots at the start of ``round`` (slowdown day): busy by flow, and free.

    In the single pool both flows hold slots of the one pool; under a split each
    compartment holds one flow only.
    """
    check_int("round", round, 0, params.rounds - 1)
    total = params.total
    shared = occupancy(params.with_(mode="slowdown", split=None))
    t, e = shared.tracking[round], shared.event[round]
    rows = {f"single pool ({total})": ("single pool", total, t, e)}
    if params.split is not None:
        split = params.split
        occ = occupancy(params.with_(mode="slowdown"))
        label = split_label(split, total)
        rows[f"tracking pool ({split})"] = (label, split, occ.tracking[round], 0)
        rows[f"event pool ({total - split})"] = (label, total - split, 0, occ.event[round])
    frame = pd.DataFrame(
        {
            pool: {
                "layout": layout,
                "slots": cap,
                "tracking": t,
                "event": e,
                "busy": t + e,
                "free": cap - t - e,
            }
            for pool, (layout, cap, t, e) in rows.items()
        }
    ).T
    frame.index.name = "pool"
    numbers = ["slots", "tracking", "event", "busy", "free"]
    frame[numbers] = frame[numbers].astype(int)
    return CompartmentView(round, params.start, params.split, frame)


__all__ = [
    "LESSON",
    "TOTAL",
    "CompartmentView",
    "IdleView",
    "LayoutView",
    "OccupancyView",
    "TradeoffView",
    "compartment_view",
    "idle_view",
    "layout_view",
    "main_table",
    "occupancy_view",
    "sizing_frame",
    "tradeoff_view",
]
