"""The numbers notebook 02 shows: lesson 000's tables, and what each slider view redraws.

Each view takes a :class:`~bulkhead_lab.model.Params` (the split and the holds the
sliders set; the day comes from the view) and returns plain data, a frozen dataclass
holding pandas frames; :mod:`.figures` draws it and :mod:`.panels` wires it to sliders.
Every number comes from model runs kept by :mod:`bulkhead_lab.cache`, or from
:mod:`bulkhead_lab.lesson`.

A *layout* is a split: ``None`` is one shared pool, ``n`` is ``n`` tracking slots and
``total - n`` event slots.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from ... import cache, lesson
from ...model import LESSON_SPLIT, MODES, TOTAL, Counters, Params, split_label
from ...validation import check_int

LESSON_SPLITS: tuple[int, ...] = tuple(s for s in lesson.SIZING_SPLITS if s is not None)  # 28, 24, 20, 16
SENSITIVITY_SPLIT = lesson.SENSITIVITY_SPLIT  # 27/5
LESSON = Params(split=LESSON_SPLIT)  # the lesson's knobs with its 24/8 bulkhead


# --- lesson 000's printed tables ------------------------------------------------------------


def main_table(base: Params = Params()) -> pd.DataFrame:
    """Lesson 000's first table: single pool and the lesson's bulkhead, healthy and slowdown."""
    rows = []
    layouts = (
        (f"single pool ({base.total})", None),
        (f"bulkhead ({split_label(LESSON_SPLIT, base.total)})", LESSON_SPLIT),
    )
    for name, split in layouts:
        day = lesson.day_pair(base, split)
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
                    "average busy slots": round(lesson.average_busy(c, base.rounds), 2),
                }
            )
    return pd.DataFrame(rows).set_index(["layout", "day"])


def sizing_frame(base: Params = Params()) -> pd.DataFrame:
    """Lesson 000's sizing table: drops per flow on both days for single, 28/4, 24/8, 20/12, 16/16."""
    rows = []
    for day in lesson.sizing_table(base):
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


# --- the slider views -----------------------------------------------------------------------


def _day_row(layout: str, mode: str, c: Counters, p: Params) -> dict[str, object]:
    return {
        "layout": layout,
        "day": mode,
        "tracking dropped": c.tracking_dropped,
        "event dropped": c.event_dropped,
        "dropped": lesson.dropped(c),
        "idle slots at rejections": c.idle,
        "average busy slots": round(lesson.average_busy(c, p.rounds), 2),
        "utilization": round(lesson.utilization(c, p.rounds, p.total), 3),
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
            rows.append(_day_row(split_label(split, p.total), mode, cache.counters(p), p))
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
    healthy = cache.split_counters(params.with_(mode="healthy"))
    slowdown = cache.split_counters(params.with_(mode="slowdown"))
    data = [_row(h, y) for h, y in zip(healthy, slowdown, strict=True)]
    splits = pd.Index(range(1, params.total), name="split")
    sweep = pd.DataFrame(data, index=splits, columns=list(SWEEP_COLUMNS))
    single = _row(*(cache.counters(params.with_(mode=mode, split=None)) for mode in MODES))
    return TradeoffView(params.split, sweep, pd.Series(single, index=list(SWEEP_COLUMNS)))


@dataclass(frozen=True)
class OccupancyView:
    """Busy slots per pool, round by round, around the failure (slowdown day)."""

    split: int | None
    start: int
    capacity: dict[str, int]  # pool name -> slots
    frame: pd.DataFrame  # index round; one column per pool of both layouts

    def summary(self) -> pd.DataFrame:
        """Each pool's peak and average busy slots before and after the failure round."""
        before = self.frame[self.frame.index < self.start]
        after = self.frame[self.frame.index >= self.start]
        rows = {}
        for pool, cap in self.capacity.items():
            rows[pool] = {
                "slots": cap,
                "mean busy before": round(float(before[pool].mean()), 2) if len(before) else math.nan,
                "mean busy after": round(float(after[pool].mean()), 2) if len(after) else math.nan,
                "peak busy after": int(after[pool].max()) if len(after) else 0,
                "rounds full after": int((after[pool] >= cap).sum()),
            }
        frame = pd.DataFrame(rows).T
        frame.index.name = "pool"
        return frame.astype({"slots": int, "peak busy after": int, "rounds full after": int})


def occupancy_view(params: Params = LESSON, before: int = 100, after: int = 300) -> OccupancyView:
    """Busy slots of the single pool and of the split's two pools in rounds start-before..start+after."""
    check_int("before", before, 0, params.rounds)
    check_int("after", after, 1, params.rounds)
    total, start = params.total, params.start
    lo, hi = max(0, start - before), min(params.rounds, start + after)
    cols: dict[str, tuple[int, ...]] = {}
    capacity: dict[str, int] = {}
    single = f"single pool ({total})"
    cols[single] = cache.occupancy(params.with_(mode="slowdown", split=None)).tracking[lo:hi]
    capacity[single] = total
    if params.split is not None:
        split = params.split
        occ = cache.occupancy(params.with_(mode="slowdown"))
        assert occ.event is not None
        cols[f"tracking pool ({split})"] = occ.tracking[lo:hi]
        cols[f"event pool ({total - split})"] = occ.event[lo:hi]
        capacity[f"tracking pool ({split})"] = split
        capacity[f"event pool ({total - split})"] = total - split
    frame = pd.DataFrame(cols, index=pd.RangeIndex(lo, hi, name="round"))
    return OccupancyView(params.split, start, capacity, frame)


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
    """Busy and free slots of the single pool and of the split's pools at the end of ``round``."""
    check_int("round", round, 0, params.rounds - 1)
    total = params.total
    pools: list[tuple[str, str, int, int]] = []  # (pool, layout, slots, busy)
    shared = cache.occupancy(params.with_(mode="slowdown", split=None))
    pools.append((f"single pool ({total})", "single pool", total, shared.tracking[round]))
    if params.split is not None:
        split = params.split
        occ = cache.occupancy(params.with_(mode="slowdown"))
        assert occ.event is not None
        label = split_label(split, total)
        pools.append((f"tracking pool ({split})", label, split, occ.tracking[round]))
        pools.append((f"event pool ({total - split})", label, total - split, occ.event[round]))
    rows = {
        pool: {"layout": layout, "slots": cap, "busy": busy, "free": cap - busy}
        for pool, layout, cap, busy in pools
    }
    frame = pd.DataFrame(rows).T
    frame.index.name = "pool"
    frame[["slots", "busy", "free"]] = frame[["slots", "busy", "free"]].astype(int)
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
