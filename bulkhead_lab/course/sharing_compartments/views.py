"""The numbers notebook 09 shows: soft partitions and priority shedding on lesson 000's two days, and the
design task's day (:mod:`bulkhead_lab.compartments.partitions`, :mod:`bulkhead_lab.compartments.design`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from bulkhead_lab.compartments import design, partitions
from bulkhead_lab.compartments.design import Compartment, Design, FlowResult
from bulkhead_lab.memo import Memo
from bulkhead_lab.pool import rounds
from bulkhead_lab.pool.params import LESSON_SPLIT, MODES, TOTAL, Counters, Params

__all__ = ["Compartment", "Design"]  # the learner builds a design from these: views.Design(...)

EIGHTHS = tuple(i / 8 for i in range(9))  # the soft partition's slider: 0 (all shared) .. 1 (all reserved)
KEEPS = tuple(range(17))  # slots kept back for the critical flow
DAYS: dict[str, Params] = {mode: Params(mode=mode) for mode in MODES}


def _drops(c: Counters) -> dict[str, int]:
    return {"tracking dropped": c.tracking_dropped, "event dropped": c.event_dropped}


def _row(label: str, by_day: dict[str, Counters], **first: object) -> dict[str, object]:
    row: dict[str, object] = {"layout": label, **first}
    for day, c in by_day.items():
        row.update({f"{day}: {k}": v for k, v in _drops(c).items()})
    return row


def lesson_layouts() -> tuple[dict[str, Counters], dict[str, Counters]]:
    """Lesson 000's single pool and 24/8 on both days (the two ends every table here is read against)."""
    single = {day: rounds.counters(p) for day, p in DAYS.items()}
    split = {day: rounds.counters(p.with_(split=LESSON_SPLIT)) for day, p in DAYS.items()}
    return single, split


# --- 1. soft partitions -----------------------------------------------------------------------------


def soft_days(share: float) -> dict[str, Counters]:
    reserved = partitions.reserves(share)
    return {day: partitions.soft_counters(p, reserved) for day, p in DAYS.items()}


def soft_label(share: float) -> str:
    tracking, event = partitions.reserves(share)
    return f"{tracking}/{event} reserved, {TOTAL - tracking - event} shared"


def soft_table(shares: tuple[float, ...] = EIGHTHS) -> pd.DataFrame:
    """Every stop of the slider: the reserves, the slots shared, and each flow's drops on both days."""
    rows = [_row(soft_label(s), soft_days(s), **{"reserved share": f"{round(8 * s)}/8"}) for s in shares]
    return pd.DataFrame(rows).set_index("layout")


@dataclass(frozen=True)
class Curves:
    """Each flow's drops on both days at every stop of a slider, and the stop chosen."""

    xs: tuple[float, ...]
    drops: dict[str, dict[str, tuple[int, ...]]]  # day -> "tracking dropped"/"event dropped" -> per stop
    chosen: float
    label: str

    def at(self) -> dict[str, dict[str, int]]:
        i = self.xs.index(self.chosen)
        return {day: {k: v[i] for k, v in flows.items()} for day, flows in self.drops.items()}


def _curves(xs: tuple[float, ...], days_at: object, chosen: float, label: str) -> Curves:
    runs = [days_at(x) for x in xs]  # type: ignore[operator]
    drops = {
        day: {k: tuple(_drops(r[day])[k] for r in runs) for k in ("tracking dropped", "event dropped")}
        for day in DAYS
    }
    return Curves(xs, drops, chosen, label)


_soft_views: Memo[Any, Curves] = Memo("09 soft view", 16)


def soft_view(share: float = 7 / 8) -> Curves:
    return _soft_views.get(share, lambda: _soft_view(share))


def _soft_view(share: float = 7 / 8) -> Curves:
    if share not in EIGHTHS:
        raise ValueError(f"share must be one of 0, 1/8, ..., 1 (got {share!r})")
    return _curves(EIGHTHS, soft_days, share, soft_label(share))


def chosen_table(curves: Curves) -> pd.DataFrame:
    """The chosen stop beside lesson 000's two layouts."""
    single, split = lesson_layouts()
    chosen: dict[str, object] = {"layout": curves.label}
    chosen.update({f"{day}: {k}": v for day, flows in curves.at().items() for k, v in flows.items()})
    rows = [
        _row(f"single pool ({TOTAL})", single),
        chosen,
        _row(f"{LESSON_SPLIT}/{TOTAL - LESSON_SPLIT}", split),
    ]
    return pd.DataFrame(rows).set_index("layout")


# --- 2. shedding by priority ---------------------------------------------------------------------------


def shed_days(keep: float) -> dict[str, Counters]:
    return {day: partitions.shed_counters(p, int(keep)) for day, p in DAYS.items()}


def shed_label(keep: int) -> str:
    return f"events shed at {keep} free" if keep else "one pool, nothing kept back"


def shed_table(keeps: tuple[int, ...] = (0, 2, 4, 6, 8, 10, 12)) -> pd.DataFrame:
    rows = [_row(shed_label(k), shed_days(k), **{"kept for tracking": k}) for k in keeps]
    _, split = lesson_layouts()
    rows.append(
        _row(f"the hard split {LESSON_SPLIT}/{TOTAL - LESSON_SPLIT}", split, **{"kept for tracking": "-"})
    )
    return pd.DataFrame(rows).set_index("layout")


_shed_views: Memo[Any, Curves] = Memo("09 shed view", 32)


def shed_view(keep: int = 8) -> Curves:
    return _shed_views.get(keep, lambda: _shed_view(keep))


def _shed_view(keep: int = 8) -> Curves:
    if keep not in KEEPS:
        raise ValueError(f"keep must be an integer in 0..{KEEPS[-1]} (got {keep!r})")
    return _curves(tuple(float(k) for k in KEEPS), shed_days, float(keep), shed_label(keep))


# --- 3. the design task ---------------------------------------------------------------------------------


def _surge_words(s: design.Surge) -> str:
    changes = [f"{what} x {by:g}" for what, by in (("calls", s.rate), ("latency", s.latency)) if by != 1]
    return f"{s.start:g}-{s.end:g} s: {', '.join(changes)}"


def day_table(flows: tuple[design.Flow, ...] = design.DAY) -> pd.DataFrame:
    """The design task's traffic and SLOs."""
    rows = [
        {
            "flow": f.name,
            "calls/s": f.rate,
            "mean latency (s)": f.latency,
            "in flight (Little)": round(f.rate * f.latency, 2),
            "SLO": f"{f.slo_target:.1%} within {f.slo_latency:g} s",
            "the day brings": "; ".join(_surge_words(s) for s in f.surges) or "-",
        }
        for f in flows
    ]
    return pd.DataFrame(rows).set_index("flow")


def results_table(results: tuple[FlowResult, ...]) -> pd.DataFrame:
    rows = [
        {
            "flow": r.name,
            "calls": r.calls,
            "within the SLO": r.within,
            "late": r.late,
            "refused": r.refused,
            "timed out": r.timed_out,
            "share within %": round(100 * r.share, 2),
            "SLO %": round(100 * r.slo_target, 1),
            "meets it": "yes" if r.meets else "no",
        }
        for r in results
    ]
    return pd.DataFrame(rows).set_index("flow")


_practices: Memo[Any, tuple[FlowResult, ...]] = Memo("09 practice", 64)


def practice(d: Design) -> tuple[FlowResult, ...]:
    """``d`` on the practice day (the one this notebook shows), kept."""
    return _practices.get(d, lambda: _practice(d))


def _practice(d: Design) -> tuple[FlowResult, ...]:
    return design.run_day(d, design.PRACTICE_SEED)


def try_design(d: Design) -> pd.DataFrame:
    """Your design on the practice day, flow by flow (the checker runs another day)."""
    return results_table(practice(d))


ONE_POOL = Design(Compartment(), Compartment(), Compartment(), shared=design.SLOTS)
