"""Section 5 of notebook 07: the storm that stays on real sockets
(:mod:`bulkhead_lab.live.orders.metastable`), no fix and the fix, each against its own Order Service
and Payment on free ports (about 8 s)."""

from __future__ import annotations

import pandas as pd

from bulkhead_lab.live.net.server import Progress
from bulkhead_lab.live.orders.metastable import StormLoad, run_storms
from bulkhead_lab.live.orders.reading.metastable import BIN, LiveStorm
from bulkhead_lab.live.sync import run_sync

STORM = StormLoad()
BACK_WITHIN = 2.0  # seconds after the heal the fix must be back by: twice a slow call
NAMES = {False: "no fix", True: "bulkhead + drop"}


def run(on_progress: Progress | None = None) -> tuple[LiveStorm, ...]:
    """No fix and the fix side by side; an interrupted cell stops both and closes their services."""
    return tuple(LiveStorm.read(STORM, *ran) for ran in run_sync(run_storms(STORM, on_progress)))


def table(storms: tuple[LiveStorm, ...]) -> pd.DataFrame:
    """Per run: the orders, what Payment counted after it healed, and when goodput was back (timings:
    not checked)."""
    rows = []
    for s in storms:
        back = s.back_after()
        rows.append(
            {
                "run": NAMES[s.fix],
                "orders": s.load.orders,
                "gave up": s.gave_up,
                "Payment: calls": s.payment.calls,
                "answered in time": s.payment.answered,
                "wasted after the heal": s.wasted_after_heal,
                "dropped": s.payment.dropped,
                "longest queue": s.payment.longest,
                "orders/s answered, last 2 s": round(s.rate(s.load.seconds - 2, s.load.seconds), 1),
                "back after (s)": "never in the run" if back is None else back,
            }
        )
    return pd.DataFrame(rows).set_index("run")


def facts(storms: tuple[LiveStorm, ...]) -> str:
    """What holds on any machine, busy or not (nbval compares these lines)."""
    none, fix = storms
    p, back = STORM, fix.back_after()
    late = none.rate(p.seconds - 2, p.seconds)
    return "\n".join(
        [
            f"{p.rate:g} orders/s, callers give up after {p.gives_up_after:g} s and make up to"
            f" {p.retry.attempts} attempts; Payment ({p.workers} workers) slow from {p.healthy_for:g} s to"
            f" {p.healed:g} s",
            f"no fix: Payment served calls for callers who had already given up after it healed:"
            f" {none.wasted_after_heal > 0}",
            f"no fix: in the last 2 s goodput was under half the load: {late < p.rate / 2}",
            f"the fix: goodput back within {BACK_WITHIN:g} s of the heal:"
            f" {back is not None and back <= BACK_WITHIN}",
            f"the fix: Payment wasted under a fifth of what it wasted with no fix after the heal:"
            f" {fix.wasted_after_heal * 5 < none.wasted_after_heal}",
        ]
    )


def series(storm: LiveStorm) -> tuple[list[float], list[float]]:
    """(time in s, orders answered a second) per bin, over the planned run."""
    bins = int(storm.load.seconds / BIN)
    return [b * BIN for b in range(bins)], [storm.goodput[b] / BIN for b in range(bins)]
