"""Lesson 000's figures, each a function of model runs, and its printed text.

Every number the lesson prints is computed here from :mod:`bulkhead_lab.model`
runs; :func:`report` lays them out byte for byte as ``bulkhead-run.mjs`` prints
them. Plain Python only (no numpy or pandas) so ``bulkhead-lab reproduce`` starts fast.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from .jsfmt import js_str, to_fixed
from .model import LESSON_SPLIT, MODES, Counters, Params, arrival_stream, run
from .sizing import utilization as pool_utilization

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
    """Little's Law for the event flow, in rounds: arrivals/round x hold / slots."""
    return pool_utilization(params.event_rate / params.cycle, params.hold_event, slots)


# --- the lesson's runs --------------------------------------------------------------


@dataclass(frozen=True)
class Day:
    """One layout's healthy and slowdown runs."""

    split: int | None
    healthy: Counters
    slowdown: Counters


def day_pair(base: Params, split: int | None) -> Day:
    """Both days for one layout, replaying the same arrival stream."""
    return _day_pair(base.with_(split=None, mode="healthy"), split)


@lru_cache(maxsize=64)
def _day_pair(base: Params, split: int | None) -> Day:
    # Params and Counters are frozen, so a layout's two days are computed once per
    # parameter set, however many tables ask for them.
    stream = arrival_stream(base)
    h, s = (run(base.with_(split=split, mode=m), stream=stream) for m in MODES)
    return Day(split, h, s)


def sizing_table(base: Params = Params(), splits: Iterable[int | None] = SIZING_SPLITS) -> list[Day]:
    """Drops on both days for each split (None = one shared pool)."""
    return [day_pair(base, split) for split in splits]


def sensitivity(base: Params = Params(), split: int = SENSITIVITY_SPLIT) -> Counters:
    """The healthy day at a narrower event share (the lesson's 27/5)."""
    return run(base.with_(split=split, mode="healthy"))


def split_label(split: int | None, total: int) -> str:
    """'single pool (32)' or '24/8', as the lesson's sizing table writes a layout."""
    return f"single pool ({total})" if split is None else f"{split}/{total - split}"


# --- the printed text ---------------------------------------------------------------

_METRICS = ("tracking_responses", "tracking_dropped", "event_responses", "event_dropped", "idle")
_HEADERS = ("tracking responses", "tracking dropped", "event responses", "event dropped", "idle slots")
_LAYOUTS = (("single pool (32)", None), ("bulkhead (24/8)", LESSON_SPLIT))  # literal in the lesson


def report(base: Params = Params()) -> str:
    """Lesson 000's output for these parameters, exactly as ``bulkhead-run.mjs`` prints it.

    ``base`` carries everything but split and mode; the layouts are the lesson's
    (its labels are literal text there, so they are here too).
    """
    p = base
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
    days = {name: day_pair(p, split) for name, split in _LAYOUTS}
    for name, _ in _LAYOUTS:
        for mode in MODES:
            k = getattr(days[name], mode)
            lines.append(
                name.ljust(22)
                + mode.ljust(12)
                + "".join(str(getattr(k, m)).rjust(20) for m in _METRICS)
                + to_fixed(average_busy(k, rounds)).rjust(20)
            )
    single, bulk = days["single pool (32)"], days["bulkhead (24/8)"]
    s0, b0, s1, b1 = single.healthy, bulk.healthy, single.slowdown, bulk.slowdown
    lines += [
        "",
        f"failure-free day's cost: tracking dropped {s0.tracking_dropped} -> {b0.tracking_dropped}, "
        f"event dropped {s0.event_dropped} -> {b0.event_dropped}; average busy slots "
        f"{to_fixed(average_busy(s0, rounds))} -> {to_fixed(average_busy(b0, rounds))} "
        f"(utilization {to_fixed(utilization(s0, rounds, p.total), 3)} -> "
        f"{to_fixed(utilization(b0, rounds, p.total), 3)}); idle slots {s0.idle} -> {b0.idle}",
        f"failing day's gain: tracking dropped {s1.tracking_dropped} -> {b1.tracking_dropped} "
        f"({to_fixed(percent_less(s1.tracking_dropped, b1.tracking_dropped), 1)}% less), event dropped "
        f"{s1.event_dropped} -> {b1.event_dropped}; tracking requests rescued in AY3's 10 minutes "
        f"{to_fixed(rescued(s1.tracking_dropped, b1.tracking_dropped, p), 0)}",
        "",
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
    sens = sensitivity(p)
    u8, u5 = (event_pool_utilization(p, n) for n in SENSITIVITY_EVENT_SLOTS)
    lines.append(
        f"sensitivity: with 27/5 instead of 24/8, failure-free tracking dropped would go "
        f"{b0.tracking_dropped} -> {sens.tracking_dropped}, event dropped {b0.event_dropped} -> "
        f"{sens.event_dropped}; the event pool runs at {to_fixed(u8, 3)} utilization at 8 slots, "
        f"{to_fixed(u5, 3)} at 5"
    )
    return "\n".join(lines) + "\n"
