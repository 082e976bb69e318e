"""The numbers behind every slider view of notebooks 01 and 02.

Each view takes slider values and returns plain data (a frozen dataclass holding
pandas DataFrames); :mod:`bulkhead_lab.plots` draws it and :mod:`bulkhead_lab.widgets`
wires it to sliders. Every number comes from :mod:`bulkhead_lab.model` runs over the
cached arrival stream, or from :mod:`bulkhead_lab.lesson` and :mod:`bulkhead_lab.sizing`.

A *layout* is a split: ``None`` is one shared pool, ``n`` is ``n`` tracking slots and
``total - n`` event slots. Runs are memoised on their :class:`~bulkhead_lab.model.Params`,
so a slider that only moves a marker redraws without replaying a round. The trade-off's
sweep over every split is memoised per compartment (:func:`split_counters`), so a hold
slider replays only the compartments that read that hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

import pandas as pd

from . import lesson, sizing
from .model import (
    CYCLE,
    EVENT,
    HOLD_EVENT,
    HOLD_TRACKING,
    LESSON_SPLIT,
    MODES,
    ROUNDS,
    SLOW,
    START,
    TOTAL,
    TRACKING,
    Counters,
    Occupancy,
    Params,
    arrival_stream,
    run,
    run_with_occupancy,
)
from .sweep import Compartment, compartment, join
from .validation import check_int, check_real

LESSON_SPLITS: tuple[int, ...] = (28, 24, 20, 16)  # the lesson's sizing table (besides the single pool)
SENSITIVITY_SPLIT = lesson.SENSITIVITY_SPLIT  # 27/5
SINGLE = "single pool"
BULKHEAD = "bulkhead"


# --- runs, memoised -----------------------------------------------------------------


def layout_params(
    split: int | None,
    mode: str = "healthy",
    hold_tracking: int = HOLD_TRACKING,
    hold_event: int = HOLD_EVENT,
    slow: int = SLOW,
    start: int = START,
) -> Params:
    """The lesson's parameters with a layout, a day and the slider-driven holds (checked)."""
    return Params(
        split=split, mode=mode, hold_tracking=hold_tracking, hold_event=hold_event, slow=slow, start=start
    )


def _canonical(params: Params) -> Params:
    # A healthy day never reads the slowdown hold or the failure round, so moving
    # those sliders must not replay the healthy runs.
    if params.mode == "healthy":
        return params.with_(slow=SLOW, start=min(START, params.rounds))
    return params


def counters(params: Params) -> Counters:
    """The six counters of one run, replayed from the cached stream and memoised."""
    return _counters(_canonical(params))


@lru_cache(maxsize=1024)
def _counters(params: Params) -> Counters:
    return run(params, stream=arrival_stream(params))


def occupancy(params: Params) -> Occupancy:
    """Each pool's busy slots per round for one run (memoised for the step-through)."""
    return _occupancy(_canonical(params))


@lru_cache(maxsize=64)
def _occupancy(params: Params) -> Occupancy:
    return run_with_occupancy(params, stream=arrival_stream(params))[1]


def split_label(split: int | None, total: int = TOTAL) -> str:
    """'single pool (32)' or '24/8', the lesson's way of writing a layout."""
    return lesson.split_label(split, total)


def _rate(dropped: int, responses: int) -> float:
    arrivals = dropped + responses
    return dropped / arrivals if arrivals else 0.0


# --- lesson 000's printed figures (notebook 02) --------------------------------------


def main_table(base: Params = Params()) -> pd.DataFrame:
    """Lesson 000's first table: single pool (32) and bulkhead (24/8), healthy and slowdown."""
    rows = []
    for name, split in (
        (f"single pool ({base.total})", None),
        (f"bulkhead ({split_label(LESSON_SPLIT)})", 24),
    ):
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


@dataclass(frozen=True)
class FailureFreeCost:
    """The healthy day's price of the bulkhead: lost sharing."""

    single: Counters
    bulkhead: Counters
    drop_ratio: float
    single_utilization: float
    bulkhead_utilization: float

    @property
    def single_dropped(self) -> int:
        return lesson.dropped(self.single)

    @property
    def bulkhead_dropped(self) -> int:
        return lesson.dropped(self.bulkhead)

    def sentence(self) -> str:
        """The lesson's sentence, with this run's numbers."""
        s, b = self.single, self.bulkhead
        return (
            f"With no failure at all, drops go {self.single_dropped} -> {self.bulkhead_dropped} "
            f"({self.drop_ratio:.1f}x): tracking {s.tracking_dropped} -> {b.tracking_dropped} "
            f"({b.tracking_dropped - s.tracking_dropped:+d}), event {s.event_dropped} -> {b.event_dropped} "
            f"({b.event_dropped - s.event_dropped:+d}); utilization {self.single_utilization:.3f} -> "
            f"{self.bulkhead_utilization:.3f} ({self.bulkhead_utilization - self.single_utilization:+.3f}). "
            f"Idle slots in the other pool, summed over the rejections: {s.idle} -> {b.idle}."
        )


def failure_free_cost(base: Params = Params(), split: int = LESSON_SPLIT) -> FailureFreeCost:
    """Single pool against a bulkhead on the healthy day (105 -> 578 drops in the lesson)."""
    s = run(base.with_(split=None, mode="healthy"))
    b = run(base.with_(split=split, mode="healthy"))
    return FailureFreeCost(
        single=s,
        bulkhead=b,
        drop_ratio=lesson.drop_ratio(s, b),
        single_utilization=lesson.utilization(s, base.rounds, base.total),
        bulkhead_utilization=lesson.utilization(b, base.rounds, base.total),
    )


@dataclass(frozen=True)
class FailingDayGain:
    """The slowdown day's gain for the neighbouring (tracking) flow."""

    single: Counters
    bulkhead: Counters
    percent_less: float
    rescued: float
    minutes: float

    def sentence(self) -> str:
        """The lesson's sentence, with this run's numbers."""
        return (
            f"On the slowdown day tracking drops go {self.single.tracking_dropped} -> "
            f"{self.bulkhead.tracking_dropped} ({self.percent_less:.1f}% less); scaled to a "
            f"{self.minutes:g}-minute failure that is {self.rescued:,.0f} tracking requests rescued. "
            f"The event flow is not rescued: {self.single.event_dropped} -> {self.bulkhead.event_dropped}."
        )


def failing_day_gain(
    base: Params = Params(), split: int = LESSON_SPLIT, minutes: float = lesson.FAILURE_MINUTES
) -> FailingDayGain:
    """Single pool against a bulkhead on the slowdown day (2654 -> 172 in the lesson)."""
    s = run(base.with_(split=None, mode="slowdown"))
    b = run(base.with_(split=split, mode="slowdown"))
    return FailingDayGain(
        single=s,
        bulkhead=b,
        percent_less=lesson.percent_less(s.tracking_dropped, b.tracking_dropped),
        rescued=lesson.rescued(s.tracking_dropped, b.tracking_dropped, base, minutes),
        minutes=minutes,
    )


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


@dataclass(frozen=True)
class Sensitivity:
    """The lesson's sensitivity row: 27/5 instead of 24/8 on the healthy day."""

    lesson_split: Counters
    narrower: Counters
    split: int
    utilization_at: dict[int, float]

    def sentence(self) -> str:
        """The lesson's sentence, with this run's numbers."""
        u = ", ".join(f"{v:.3f} at {k} slots" for k, v in self.utilization_at.items())
        return (
            f"With {split_label(self.split)} instead of {split_label(LESSON_SPLIT)}, healthy-day tracking "
            f"drops go {self.lesson_split.tracking_dropped} -> {self.narrower.tracking_dropped} and event "
            f"drops {self.lesson_split.event_dropped} -> {self.narrower.event_dropped}; the event pool "
            f"runs at utilization {u}."
        )


def sensitivity(base: Params = Params()) -> Sensitivity:
    """The healthy day at 24/8 and at 27/5, and Little's Law utilization at 8 and 5 event slots."""
    return Sensitivity(
        lesson_split=run(base.with_(split=LESSON_SPLIT, mode="healthy")),
        narrower=lesson.sensitivity(base),
        split=SENSITIVITY_SPLIT,
        utilization_at={n: lesson.event_pool_utilization(base, n) for n in lesson.SENSITIVITY_EVENT_SLOTS},
    )


# --- notebook 02's slider views ------------------------------------------------------


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
        return self.frame.loc[(layout, day), column]  # type: ignore[return-value]

    @property
    def label(self) -> str:
        return split_label(self.split)


def layout_view(
    split: int | None = LESSON_SPLIT,
    hold_tracking: int = HOLD_TRACKING,
    hold_event: int = HOLD_EVENT,
    slow: int = SLOW,
    start: int = START,
) -> LayoutView:
    """Drops, idle slots and utilization for the single pool and ``split`` on both days."""
    rows = []
    layouts = [(None, split_label(None))]
    if split is not None:
        layouts.append((split, split_label(split)))
    for s, name in layouts:
        for mode in MODES:
            p = layout_params(s, mode, hold_tracking, hold_event, slow, start)
            rows.append(_day_row(name, mode, counters(p), p))
    return LayoutView(split, pd.DataFrame(rows).set_index(["layout", "day"]))


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
        marks = [None, *sorted({*LESSON_SPLITS, SENSITIVITY_SPLIT}, reverse=True)]
        if self.split not in marks:
            marks.append(self.split)
        rows = {split_label(s): self.at(s) for s in marks}
        frame = pd.DataFrame(rows).T
        frame.index.name = "pool split"
        return frame.astype(int)


SWEEP_COLUMNS = (
    "healthy tracking dropped",
    "healthy event dropped",
    "slowdown tracking dropped",
    "slowdown event dropped",
    "healthy idle slots",
    "slowdown idle slots",
)


def _sweep_row(split: int | None, hold_tracking: int, hold_event: int, slow: int, start: int) -> list[int]:
    h = counters(layout_params(split, "healthy", hold_tracking, hold_event, slow, start))
    y = counters(layout_params(split, "slowdown", hold_tracking, hold_event, slow, start))
    return _row(h, y)


def _row(h: Counters, y: Counters) -> list[int]:
    return [h.tracking_dropped, h.event_dropped, y.tracking_dropped, y.event_dropped, h.idle, y.idle]


def split_counters(params: Params) -> tuple[Counters, ...]:
    """The counters of splits 1..total-1 on ``params``' day and holds (``params.split`` ignored).

    Each split's two compartments are memoised on what they read: the tracking one on
    the tracking hold only, the event one on the event holds and the day. So a tracking
    hold move reruns only tracking compartments, an event, slowdown or failure-round move
    only event compartments, and the pairs are joined again (see :func:`sweep.join`).
    """
    return _split_sweep(_canonical(replace(params, split=None)))


@lru_cache(maxsize=32)
def _split_sweep(params: Params) -> tuple[Counters, ...]:
    stream = arrival_stream(params)
    tracking_key = replace(
        params, mode="healthy", hold_event=HOLD_EVENT, slow=SLOW, start=min(START, params.rounds)
    )
    event_key = replace(params, hold_tracking=HOLD_TRACKING)
    return tuple(
        join(
            _compartment(tracking_key, TRACKING, s),
            _compartment(event_key, EVENT, params.total - s),
            stream,
        )
        for s in range(1, params.total)
    )


@lru_cache(maxsize=160)
def _compartment(params: Params, flow: int, slots: int) -> Compartment:
    return compartment(params, flow, slots, stream=arrival_stream(params))


def tradeoff_view(
    split: int | None = LESSON_SPLIT,
    hold_tracking: int = HOLD_TRACKING,
    hold_event: int = HOLD_EVENT,
    slow: int = SLOW,
    start: int = START,
) -> TradeoffView:
    """Every split 1..total-1 on both days (the trade-off), marking ``split``."""
    splits = range(1, TOTAL)
    healthy = split_counters(layout_params(None, "healthy", hold_tracking, hold_event, slow, start))
    slowdown = split_counters(layout_params(None, "slowdown", hold_tracking, hold_event, slow, start))
    data = [_row(h, y) for h, y in zip(healthy, slowdown, strict=True)]
    sweep = pd.DataFrame(data, index=pd.Index(splits, name="split"), columns=list(SWEEP_COLUMNS))
    single = pd.Series(_sweep_row(None, hold_tracking, hold_event, slow, start), index=list(SWEEP_COLUMNS))
    if split is not None:
        check_int("split", split, 1, TOTAL - 1)
    return TradeoffView(split, sweep, single)


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


def occupancy_view(
    split: int | None = LESSON_SPLIT,
    hold_tracking: int = HOLD_TRACKING,
    hold_event: int = HOLD_EVENT,
    slow: int = SLOW,
    start: int = START,
    before: int = 100,
    after: int = 300,
) -> OccupancyView:
    """Busy slots of the single pool and of ``split``'s two pools in rounds start-before..start+after."""
    check_int("before", before, 0, ROUNDS)
    check_int("after", after, 1, ROUNDS)
    single_p = layout_params(None, "slowdown", hold_tracking, hold_event, slow, start)
    lo, hi = max(0, start - before), min(single_p.rounds, start + after)
    cols: dict[str, tuple[int, ...]] = {}
    capacity: dict[str, int] = {}
    shared = occupancy(single_p)
    cols[f"single pool ({TOTAL})"] = shared.tracking[lo:hi]
    capacity[f"single pool ({TOTAL})"] = TOTAL
    if split is not None:
        occ = occupancy(layout_params(split, "slowdown", hold_tracking, hold_event, slow, start))
        assert occ.event is not None
        cols[f"tracking pool ({split})"] = occ.tracking[lo:hi]
        cols[f"event pool ({TOTAL - split})"] = occ.event[lo:hi]
        capacity[f"tracking pool ({split})"] = split
        capacity[f"event pool ({TOTAL - split})"] = TOTAL - split
    frame = pd.DataFrame(cols, index=pd.RangeIndex(lo, hi, name="round"))
    return OccupancyView(split, start, capacity, frame)


@dataclass(frozen=True)
class IdleView:
    """Rejections, and the idle slots that sat in the other pool at those moments."""

    split: int | None
    frame: pd.DataFrame  # index (layout, day)


def idle_view(
    split: int | None = LESSON_SPLIT,
    hold_tracking: int = HOLD_TRACKING,
    hold_event: int = HOLD_EVENT,
    slow: int = SLOW,
    start: int = START,
) -> IdleView:
    """Rejections beside idle slots: zero in one pool by definition, thousands under a bulkhead."""
    base = layout_view(split, hold_tracking, hold_event, slow, start).frame
    frame = pd.DataFrame(
        {
            "rejections": base["dropped"],
            "idle slots at rejections": base["idle slots at rejections"],
        }
    )
    per = frame["idle slots at rejections"] / frame["rejections"].where(frame["rejections"] > 0)
    frame["idle slots per rejection"] = per.fillna(0.0).round(2)
    return IdleView(split, frame)


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


def compartment_view(
    round: int = START + 100,
    split: int | None = LESSON_SPLIT,
    hold_tracking: int = HOLD_TRACKING,
    hold_event: int = HOLD_EVENT,
    slow: int = SLOW,
    start: int = START,
) -> CompartmentView:
    """Busy and free slots of the single pool and of ``split``'s pools at the end of ``round``."""
    check_int("round", round, 0, ROUNDS - 1)
    pools: list[tuple[str, str, int, int]] = []  # (pool, layout, slots, busy)
    shared = occupancy(layout_params(None, "slowdown", hold_tracking, hold_event, slow, start))
    pools.append((f"single pool ({TOTAL})", SINGLE, TOTAL, shared.tracking[round]))
    if split is not None:
        occ = occupancy(layout_params(split, "slowdown", hold_tracking, hold_event, slow, start))
        assert occ.event is not None
        label = split_label(split)
        pools.append((f"tracking pool ({split})", label, split, occ.tracking[round]))
        pools.append((f"event pool ({TOTAL - split})", label, TOTAL - split, occ.event[round]))
    rows = {
        pool: {"layout": layout, "slots": cap, "busy": busy, "free": cap - busy}
        for pool, layout, cap, busy in pools
    }
    frame = pd.DataFrame(rows).T
    frame.index.name = "pool"
    frame[["slots", "busy", "free"]] = frame[["slots", "busy", "free"]].astype(int)
    return CompartmentView(round, start, split, frame)


# --- notebook 01: Little's Law and Erlang-B ------------------------------------------


@dataclass(frozen=True)
class LittleExample:
    """Little's Law for one flow: in flight, and the limit a few times above it."""

    name: str
    arrival_rate: float
    hold: float
    unit: str
    in_flight: float
    limits: tuple[int, ...]

    def sentence(self) -> str:
        return (
            f"{self.name}: {self.arrival_rate:g} calls/{self.unit} x {self.hold:g} {self.unit} = "
            f"{self.in_flight:g} in flight, so a limit of {' or '.join(map(str, self.limits))}."
        )


def order_service_example(rate: float = 20.0, hold: float = 0.1) -> LittleExample:
    """Lesson 004's Payment flow: 20 calls/s x 0.1 s = 2 in flight; limit 5 or 6 (2.5x or 3x)."""
    load = sizing.in_flight(rate, hold)
    limits = tuple(sizing.suggested_limit(rate, hold, f) for f in (2.5, 3.0))
    return LittleExample("Payment (lesson 004)", rate, hold, "s", round(load, 6), limits)


@dataclass(frozen=True)
class EventFlowSizing:
    """Lesson 000's event flow against its pool: load, headroom and utilization."""

    arrivals_per_round: float
    hold: int
    in_flight: float
    slots: int
    headroom: float
    utilization_at: dict[int, float]

    def sentence(self) -> str:
        u = " and ".join(f"{v:.3f} at {k} slots" for k, v in self.utilization_at.items())
        return (
            f"The event flow: {self.arrivals_per_round:.4f} arrivals/round x {self.hold} rounds = "
            f"{self.in_flight:.2f} slots in flight; {self.slots} slots is {self.headroom:.2f}x that. "
            f"Utilization {u}: above 1 the pool cannot carry its own usual load."
        )


def event_flow_sizing(base: Params = Params(), slots: int = 8) -> EventFlowSizing:
    """0.9722 arrivals/round x 6 rounds = 5.83 slots; 8 slots = 1.37x; utilization 0.729 and 1.167."""
    rate = base.event_rate / base.cycle
    return EventFlowSizing(
        arrivals_per_round=rate,
        hold=base.hold_event,
        in_flight=sizing.in_flight(rate, base.hold_event),
        slots=slots,
        headroom=sizing.headroom(rate, base.hold_event, slots),
        utilization_at={n: lesson.event_pool_utilization(base, n) for n in lesson.SENSITIVITY_EVENT_SLOTS},
    )


def one_flow_params(rate_per_s: float, hold_rounds: int, slots: int, cycle: float = CYCLE) -> Params:
    """The seeded model with one flow alone in a pool of ``slots``: the event flow, tracking rate 0.

    The tracking pool keeps one slot that nothing ever uses, so the event pool is exactly ``slots``.
    """
    check_int("slots", slots, 1, 1000)
    return Params(
        split=1,
        total=slots + 1,
        mode="healthy",
        tracking_rate=0.0,
        event_rate=rate_per_s,
        hold_event=hold_rounds,
        cycle=cycle,
    )


def simulated_blocking(rate_per_s: float, hold_rounds: int, slots: int) -> float:
    """The share of the one flow's arrivals the seeded model drops in a pool of ``slots``."""
    c = counters(one_flow_params(rate_per_s, hold_rounds, slots))
    return _rate(c.event_dropped, c.event_responses)


def hold_in_rounds(hold_s: float, cycle: float = CYCLE) -> int:
    """A hold in seconds as the model's whole rounds (at least one)."""
    check_real("hold", hold_s, 0.0, 60.0, low_open=True)
    return max(1, round(hold_s * cycle))


@dataclass(frozen=True)
class LittleView:
    """Notebook 01's slider view: Little's Law, Erlang-B and the seeded model for one pool."""

    arrival_rate: float  # calls/s
    hold: float  # s
    hold_rounds: int
    slots: int
    factor: float
    in_flight: float
    utilization: float
    headroom: float
    suggested_limit: int
    erlang_b: float
    simulated: float
    curve: pd.DataFrame  # index slots; erlang-b, erlang-b (hold - 1/2 round), seeded model

    def table(self) -> pd.DataFrame:
        """The figures for the chosen pool, one row each."""
        rows = {
            "arrival rate (calls/s)": self.arrival_rate,
            "hold (s)": self.hold,
            "hold (rounds)": self.hold_rounds,
            "in flight (Little's Law)": round(self.in_flight, 3),
            "pool size (slots)": self.slots,
            "utilization": round(self.utilization, 3),
            "headroom (x in flight)": round(self.headroom, 2),
            f"suggested limit ({self.factor:g}x)": self.suggested_limit,
            "Erlang-B blocking": round(self.erlang_b, 4),
            "seeded model drop rate": round(self.simulated, 4),
        }
        return pd.DataFrame({"value": pd.Series(rows, dtype=object)})


def littles_law_view(
    arrival_rate: float = 97.22,
    hold: float = 0.06,
    slots: int = 8,
    factor: float = 2.5,
    max_slots: int | None = None,
) -> LittleView:
    """In flight = rate x hold, and the blocking of a pool of ``slots``: Erlang-B against the model.

    ``arrival_rate`` is calls/s and ``hold`` seconds; the model runs at 100 rounds/s, so the
    hold is rounded to whole rounds there. The curve covers pool sizes 1..``max_slots``
    (default: a little past both ``slots`` and twice the load).
    """
    check_real("arrival_rate", arrival_rate, 0.0, 1000.0, low_open=True)
    check_int("slots", slots, 1, 64)
    check_real("factor", factor, 1.0, 10.0)
    rounds = hold_in_rounds(hold)
    per_round = arrival_rate / CYCLE
    load = sizing.in_flight(arrival_rate, hold)
    if max_slots is None:
        max_slots = min(64, max(slots + 4, math.ceil(2 * per_round * rounds) + 2, 12))
    check_int("max_slots", max_slots, 1, 64)
    sizes = range(1, max_slots + 1)
    offered = per_round * rounds  # erlangs, in the model's units
    curve = pd.DataFrame(
        {
            "Erlang-B": [sizing.erlang_b(n, offered) for n in sizes],
            "Erlang-B, hold - 1/2 round": [sizing.erlang_b(n, per_round * (rounds - 0.5)) for n in sizes],
            "seeded model": [simulated_blocking(arrival_rate, rounds, n) for n in sizes],
        },
        index=pd.Index(sizes, name="slots"),
    )
    return LittleView(
        arrival_rate=arrival_rate,
        hold=hold,
        hold_rounds=rounds,
        slots=slots,
        factor=factor,
        in_flight=load,
        utilization=sizing.utilization(arrival_rate, hold, slots),
        headroom=sizing.headroom(arrival_rate, hold, slots),
        suggested_limit=sizing.suggested_limit(arrival_rate, hold, factor),
        erlang_b=sizing.erlang_b(slots, offered),
        simulated=simulated_blocking(arrival_rate, rounds, slots),
        curve=curve,
    )


def pool_size_cost(
    base: Params = Params(), event_slots: tuple[int, ...] = (4, 5, 6, 8, 10, 12, 16)
) -> pd.DataFrame:
    """Too small and too big, in the model's numbers: each event pool size's price on both days.

    Too small: the event flow's own healthy-day drops. Too big: the tracking flow, left the
    rest of the 32 slots, drops more on both days.
    """
    rows = []
    for n in event_slots:
        check_int("event_slots", n, 1, base.total - 1)
        split = base.total - n
        h = counters(base.with_(split=split, mode="healthy"))
        y = counters(base.with_(split=split, mode="slowdown"))
        rows.append(
            {
                "pool split": split_label(split, base.total),
                "event slots": n,
                "event utilization": round(lesson.event_pool_utilization(base, n), 3),
                "healthy event drop %": round(100 * _rate(h.event_dropped, h.event_responses), 2),
                "healthy tracking dropped": h.tracking_dropped,
                "slowdown tracking dropped": y.tracking_dropped,
            }
        )
    return pd.DataFrame(rows).set_index("pool split")
