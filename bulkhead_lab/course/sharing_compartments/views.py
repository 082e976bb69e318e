"""The tables notebook 09 shows: soft partitions and priority shedding on lesson 000's two days, and the
design task's day. The runs are the model's (:mod:`bulkhead_lab.compartments.partition_sweep`,
:mod:`bulkhead_lab.compartments.design`); here they become tables."""

from __future__ import annotations

import pandas as pd

from bulkhead_lab.compartments import design, partition_sweep
from bulkhead_lab.compartments.design import Compartment, Design
from bulkhead_lab.compartments.partition_sweep import (
    EIGHTHS,
    Curves,
    drops,
    lesson_layouts,
    shed_days,
    shed_label,
    soft_days,
    soft_label,
)
from bulkhead_lab.pool.params import LESSON_SPLIT, TOTAL, Counters

__all__ = ["Compartment", "Design"]  # the learner builds a design from these: views.Design(...)


def _row(label: str, by_day: dict[str, Counters], **first: object) -> dict[str, object]:
    flows = {f"{day}: {k}": v for day, c in by_day.items() for k, v in drops(c).items()}
    return {"layout": label, **first, **flows}


def soft_table() -> pd.DataFrame:
    """Every stop of the slider: the reserves, the slots shared, each flow's drops on both days, and the
    healthy day's drops in all beside the single pool's."""
    single = partition_sweep.healthy_drops(0.0)
    rows = []
    for s in EIGHTHS:
        both = partition_sweep.healthy_drops(s)
        first = {"reserved share": f"{round(8 * s)}/8", "healthy: all dropped": both,
                 "over the single pool %": round(100 * (both - single) / single, 1)}  # fmt: skip
        rows.append(_row(soft_label(s), soft_days(s), **first))
    return pd.DataFrame(rows).set_index("layout")


def noise_lines() -> str:
    """How far another seed moves the two counts the exercises judge, and the margin they judge with."""
    single, wall = partition_sweep.seed_noise()
    margin = partition_sweep.MARGIN
    lines = [
        f"{n.what}: {n.counts[0]} on lesson 000's seed; over {len(n.counts)} seeds {n.mean:.0f} on average, "
        f"standard deviation {n.sd:.0f} ({n.share:.0%})"
        for n in (single, wall)
    ]
    lines.append(
        f"the margin: {margin:.0%}, above both. More than the single pool's {single.counts[0]} means "
        f"over {single.counts[0] * (1 + margin):.0f}; as well as the wall's {wall.counts[0]}, at most "
        f"{int(wall.counts[0] * (1 + margin))}"
    )
    return "\n".join(lines)


def chosen_table(curves: Curves) -> pd.DataFrame:
    """The chosen stop beside lesson 000's two layouts."""
    single, split = lesson_layouts()
    chosen = {f"{day}: {k}": v for day, flows in curves.at().items() for k, v in flows.items()}
    rows = [
        _row(f"single pool ({TOTAL})", single),
        {"layout": curves.label, **chosen},
        _row(f"{LESSON_SPLIT}/{TOTAL - LESSON_SPLIT}", split),
    ]
    return pd.DataFrame(rows).set_index("layout")


def shed_table() -> pd.DataFrame:
    rows = [_row(shed_label(k), shed_days(k), **{"kept for tracking": k}) for k in (0, 2, 4, 6, 8, 10, 12)]
    _, split = lesson_layouts()
    rows.append(
        _row(f"the hard split {LESSON_SPLIT}/{TOTAL - LESSON_SPLIT}", split, **{"kept for tracking": "-"})
    )
    return pd.DataFrame(rows).set_index("layout")


def _surge_words(s: design.Surge) -> str:
    changes = [f"{what} x {by:g}" for what, by in (("calls", s.rate), ("latency", s.latency)) if by != 1]
    return f"{s.start:g}-{s.end:g} s: {', '.join(changes)}"


def day_table() -> pd.DataFrame:
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
        for f in design.DAY
    ]
    return pd.DataFrame(rows).set_index("flow")


def try_design(d: Design) -> pd.DataFrame:
    """Your design on the practice day, flow by flow (the checker runs another day)."""
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
        for r in design.practice(d)
    ]
    return pd.DataFrame(rows).set_index("flow")


ONE_POOL = Design(Compartment(), Compartment(), Compartment(), shared=design.SLOTS)
