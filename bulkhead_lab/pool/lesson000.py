"""Lesson 000's figures, each a function of model runs, and its printed text.

Every number the lesson prints is computed here from :mod:`bulkhead_lab.pool.rounds`
runs; :func:`report` lays them out byte for byte as ``bulkhead-run.mjs`` prints
them. Plain Python only (no numpy or pandas) so ``bulkhead-lab reproduce`` starts fast.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bulkhead_lab.pool.jsfmt import js_str, to_fixed
from bulkhead_lab.pool.params import LESSON_SPLIT, MODES, Counters, Params, split_label
from bulkhead_lab.pool.rounds import counters
from bulkhead_lab.sizing import load_per_slot
from bulkhead_lab.validation import check_int, check_real

SIZING_SPLITS: tuple[int | None, ...] = (None, 28, 24, 20, 16)  # the lesson's sizing table
SENSITIVITY_SPLIT = 27  # the lesson's "27/5 instead of 24/8"
SENSITIVITY_EVENT_SLOTS = (8, 5)  # event pool sizes whose utilization the lesson prints
FAILURE_MINUTES = 10  # AY3: each failure lasts ten minutes


def _div(a: float, b: float) -> float:
    """JavaScript's division: x/0 is +-Infinity, 0/0 is NaN (the text must not crash)."""
    if b:
        return a / b
    return float("nan") if a == 0 else float("inf") * (1 if a > 0 else -1)


# --- figures of one run -------------------------------------------------------------


def average_busy(c: Counters, rounds: int) -> float:
    """Average busy slots per round."""
    return _div(c.busy_rounds, rounds)


def utilization(c: Counters, rounds: int, total: int) -> float:
    """Average busy slots as a share of all slots."""
    return _div(average_busy(c, rounds), total)


def dropped(c: Counters) -> int:
    """Both flows' dropped requests."""
    return c.tracking_dropped + c.event_dropped


# --- figures that compare two runs --------------------------------------------------


def drop_ratio(before: Counters, after: Counters) -> float:
    """How many times the total drops grew (the healthy day's 105 -> 578 is 5.5x)."""
    return _div(dropped(after), dropped(before))


def percent_less(before: float, after: float) -> float:
    """How much smaller ``after`` is than ``before``, in percent."""
    return _div(100 * (before - after), before)


def failure_scale(params: Params, minutes: float = FAILURE_MINUTES) -> float:
    """Factor from the run's failure window (start..rounds) to a failure of ``minutes``."""
    return _div(minutes * 60 * params.cycle, params.rounds - params.start)


def rescued(before: int, after: int, params: Params, minutes: float = FAILURE_MINUTES) -> float:
    """Requests rescued over a failure of ``minutes``, scaling the run's failure window."""
    return (before - after) * failure_scale(params, minutes)


def event_pool_utilization(params: Params, slots: int) -> float:
    """What the lesson prints as the event pool's utilization: its offered load per slot (arrivals/round x
    hold / slots; :func:`bulkhead_lab.sizing.load_per_slot`), which passes 1 below the flow's load."""
    return load_per_slot(params.event_rate / params.cycle, params.hold_event, slots)


def event_drop_share(event_slots: int, base: Params = Params()) -> float:
    """Healthy-day event drops as a share of event arrivals, with ``event_slots`` for events."""
    check_int("event_slots", event_slots, 1, base.total - 1)
    c = counters(base.with_(split=base.total - event_slots, mode="healthy"))
    arrivals = c.event_dropped + c.event_responses
    return c.event_dropped / arrivals if arrivals else 0.0


def smallest_event_pool(target: float = 0.02, base: Params = Params()) -> int:
    """The fewest event slots whose healthy-day event drops stay under ``target`` of event arrivals."""
    check_real("target", target, 0.0, 1.0, low_open=True)
    for n in range(1, base.total):
        if event_drop_share(n, base) < target:
            return n
    raise ValueError(f"target must be reachable with at most {base.total - 1} event slots (got {target!r})")


# --- the lesson's runs --------------------------------------------------------------


@dataclass(frozen=True)
class Day:
    """One split's healthy and slowdown runs."""

    split: int | None
    healthy: Counters
    slowdown: Counters


def day_pair(base: Params, split: int | None) -> Day:
    """Both days for one split, replaying the same arrival stream (runs memoised by ``counters``)."""
    h, s = (counters(base.with_(split=split, mode=m)) for m in MODES)
    return Day(split, h, s)


def sizing_table(base: Params = Params(), splits: Iterable[int | None] = SIZING_SPLITS) -> list[Day]:
    """Drops on both days for each split (None = one shared pool)."""
    return [day_pair(base, split) for split in splits]


def sensitivity(base: Params = Params()) -> Counters:
    """The lesson's sensitivity row: the healthy day at 27/5 instead of 24/8."""
    return counters(base.with_(split=SENSITIVITY_SPLIT, mode="healthy"))


# --- the printed text ---------------------------------------------------------------

_METRICS = ("tracking_responses", "tracking_dropped", "event_responses", "event_dropped", "idle")
_HEADERS = ("tracking responses", "tracking dropped", "event responses", "event dropped", "idle slots")
_SPLITS = (("single pool (32)", None), ("bulkhead (24/8)", LESSON_SPLIT))  # literal in the lesson


def report(base: Params = Params()) -> str:
    """Lesson 000's output for these parameters, exactly as ``bulkhead-run.mjs`` prints it.

    ``base`` carries everything but split and mode; the splits are the lesson's
    (its labels are literal text there, so they are here too).
    """
    single, bulkhead = (day_pair(base, split) for _, split in _SPLITS)
    lines = [
        *_runs_table(base, single, bulkhead),
        "",
        *_cost_and_gain(base, single, bulkhead),
        "",
        *_sizing_lines(base, bulkhead),
    ]
    return "\n".join(lines) + "\n"


def _runs_table(p: Params, single: Day, bulkhead: Day) -> list[str]:
    """The model's line and the four runs' counters (``layout`` is the lesson's column heading)."""
    rounds = p.rounds
    lines = [
        f"model: {rounds} rounds ({js_str(_div(rounds, p.cycle))} s), failure at round {p.start}, "
        f"{p.total} slots total; Poisson arrivals (seed {p.seed}), tracking "
        f"{to_fixed(p.tracking_rate / p.cycle, 4)} and event {to_fixed(p.event_rate / p.cycle, 4)} "
        "arrivals/round",
        "",
        "layout".ljust(22)
        + "day".ljust(12)
        + "".join(h.rjust(20) for h in _HEADERS)
        + "average busy slots".rjust(20),
    ]
    for (name, _), day in zip(_SPLITS, (single, bulkhead), strict=True):
        for mode in MODES:
            k = day.healthy if mode == "healthy" else day.slowdown
            lines.append(
                name.ljust(22)
                + mode.ljust(12)
                + "".join(str(getattr(k, m)).rjust(20) for m in _METRICS)
                + to_fixed(average_busy(k, rounds)).rjust(20)
            )
    return lines


def _cost_and_gain(p: Params, single: Day, bulkhead: Day) -> list[str]:
    """The failure-free day's cost and the failing day's gain, one line each."""
    rounds = p.rounds
    s0, b0, s1, b1 = single.healthy, bulkhead.healthy, single.slowdown, bulkhead.slowdown
    return [
        f"failure-free day's cost: tracking dropped {s0.tracking_dropped} -> {b0.tracking_dropped}, "
        f"event dropped {s0.event_dropped} -> {b0.event_dropped}; average busy slots "
        f"{to_fixed(average_busy(s0, rounds))} -> {to_fixed(average_busy(b0, rounds))} "
        f"(utilization {to_fixed(utilization(s0, rounds, p.total), 3)} -> "
        f"{to_fixed(utilization(b0, rounds, p.total), 3)}); idle slots {s0.idle} -> {b0.idle}",
        f"failing day's gain: tracking dropped {s1.tracking_dropped} -> {b1.tracking_dropped} "
        f"({to_fixed(percent_less(s1.tracking_dropped, b1.tracking_dropped), 1)}% less), event dropped "
        f"{s1.event_dropped} -> {b1.event_dropped}; tracking requests rescued in AY3's 10 minutes "
        f"{to_fixed(rescued(s1.tracking_dropped, b1.tracking_dropped, p), 0)}",
    ]


def _sizing_lines(p: Params, bulkhead: Day) -> list[str]:
    """The sizing table, then the sensitivity line."""
    lines = [
        "pool split".ljust(20)
        + "healthy tracking dropped".rjust(26)
        + "healthy event dropped".rjust(23)
        + "slowdown tracking dropped".rjust(27)
        + "slowdown event dropped".rjust(24),
    ]
    for day in sizing_table(p):
        lines.append(
            split_label(day.split, p.total).ljust(20)
            + str(day.healthy.tracking_dropped).rjust(26)
            + str(day.healthy.event_dropped).rjust(23)
            + str(day.slowdown.tracking_dropped).rjust(27)
            + str(day.slowdown.event_dropped).rjust(24)
        )
    b0, sens = bulkhead.healthy, sensitivity(p)
    u8, u5 = (event_pool_utilization(p, n) for n in SENSITIVITY_EVENT_SLOTS)
    lines.append(
        f"sensitivity: with 27/5 instead of 24/8, failure-free tracking dropped would go "
        f"{b0.tracking_dropped} -> {sens.tracking_dropped}, event dropped {b0.event_dropped} -> "
        f"{sens.event_dropped}; the event pool runs at {to_fixed(u8, 3)} utilization at 8 slots, "
        f"{to_fixed(u5, 3)} at 5"
    )
    return lines


# --- the figures the lesson's text states ---------------------------------------------------------

FAILING, COST, SIZE = (
    "The Bulkhead Does Not Change the Failing Day",
    "The Failure-Free Day's Cost",
    "Bulkhead Size Trades the Two Days",
)
STATED: tuple[tuple[str, str, object], ...] = (  # (its section, what, the lesson's value), in its order
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


def stated_here(base: Params = Params()) -> list[object]:
    """Each figure of :data:`STATED`, in its order, as the model computes it for ``base``."""
    single, bulkhead = day_pair(base, None), day_pair(base, LESSON_SPLIT)
    s0, b0, s1, b1 = single.healthy, bulkhead.healthy, single.slowdown, bulkhead.slowdown
    narrower = sensitivity(base)
    by_split = {day.split: day for day in sizing_table(base)}
    rounds, total = base.rounds, base.total
    return [
        s1.tracking_dropped,
        b1.tracking_dropped,
        round(percent_less(s1.tracking_dropped, b1.tracking_dropped), 1),
        round(rescued(s1.tracking_dropped, b1.tracking_dropped, base)),
        f"{s1.event_dropped} -> {b1.event_dropped}",
        f"{dropped(s0)} -> {dropped(b0)}",
        round(drop_ratio(s0, b0), 1),
        f"{utilization(s0, rounds, total):.3f} -> {utilization(b0, rounds, total):.3f}",
        f"{average_busy(s0, rounds):.2f} -> {average_busy(b0, rounds):.2f}",
        b0.idle,
        f"{b0.tracking_dropped - s0.tracking_dropped:+d}, {b0.event_dropped - s0.event_dropped:+d}",
        f"{by_split[28].slowdown.tracking_dropped}, {by_split[28].healthy.event_dropped}",
        by_split[16].healthy.tracking_dropped,
        f"{narrower.tracking_dropped}, {narrower.event_dropped}",
    ]
