"""What notebook 04 shows of a live run: the runs themselves (made from a cell), and their tables.

Every number is read from an :class:`~bulkhead_lab.live.orders.load.OrdersRun` that :func:`run`
measured on real sockets in this kernel; its facts, label and time axis are read on the live side
(:mod:`bulkhead_lab.live.orders.reading`). The tables hold timings: the notebook shows them under
``# NBVAL_IGNORE_OUTPUT``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from bulkhead_lab import sizing
from bulkhead_lab.live.net.server import Progress
from bulkhead_lab.live.orders import checks
from bulkhead_lab.live.orders.load import OrdersLoad, OrdersRun, orders_setup, run_orders
from bulkhead_lab.live.orders.reading import payment_state, run_label
from bulkhead_lab.live.orders.service import OrderSettings, Variant
from bulkhead_lab.live.sync import run_sync

VARIANT_WORDS: dict[Variant, str] = {  # the panel's buttons, the figures' titles
    "shared": "one shared pool",
    "separate": "a pool per dependency",
    "limited": "pools + bulkhead (limit, waiting places)",
}
RULE_WORDS = {"aiohttp": "aiohttp's pool", "node": "Node-like pool"}


def run(variant: Variant = "limited", *, on_progress: Progress | None = None, **values: Any) -> OrdersRun:
    """One live run from a cell's short form, e.g. ``run("shared", keepalive=True, slow=False)``:
    ``values`` are the Order Service's settings and the load's, by name (``bulkhead=`` the class)."""
    settings, load = orders_setup(variant, **values)
    return measure(settings, load, on_progress=on_progress)


def measure(
    settings: OrderSettings, load: OrdersLoad | None = None, *, on_progress: Progress | None = None
) -> OrdersRun:
    """:func:`~bulkhead_lab.live.orders.load.run_orders` from a cell: an interrupted cell stops the run
    and waits until its services are closed (``run_sync``), so nothing is left listening."""
    return run_sync(run_orders(settings, load, on_progress=on_progress))


# --- spans and tables ------------------------------------------------------------------------


def ms(seconds: float) -> int:
    return round(seconds * 1000)


def span(values: Sequence[float]) -> str:
    """``27 - 29 ms``, the least and the most of ``values`` (s), in ms (``-``: none)."""
    if not values:
        return "-"
    lo, hi = ms(min(values)), ms(max(values))
    return f"{lo} ms" if lo == hi else f"{lo} - {hi} ms"


def summary_row(r: OrdersRun) -> dict[str, object]:
    """One run as the lesson reports it: stock checks, orders served and refused, peaks."""
    rejected = (r.bulkhead_after or {}).get("rejected")
    return {
        "stock checks": span([x.latency for x in r.stock_checks]),
        "orders served": r.served,
        "orders refused": r.refused,
        "slowest order": f"{r.slowest('order'):.2f} s",
        "slowest refusal": f"{ms(r.slowest('order', 'refused'))} ms" if r.refused else "-",
        "Payment peak": "?" if r.payment.error else r.payment.peak,
        "Inventory peak": "?" if r.inventory.error else r.inventory.peak,
        "rejected (bulkhead)": "-" if rejected is None else rejected,
    }


def summary_table(runs: Iterable[OrdersRun], index: str = "Order Service", prefix: str = "") -> pd.DataFrame:
    """One row per run (its variant, sizes and Payment's state), the lesson's measures as columns."""
    rows = {f"{prefix}{run_label(r)}, {payment_state(r)}": summary_row(r) for r in runs}
    return pd.DataFrame(rows).T.rename_axis(index)


def requests_table(r: OrdersRun) -> pd.DataFrame:
    """Every request: its status and outcome, when it was sent, how long it waited and ran, in ms."""
    rows = [{"stream": x.kind, "#": x.index, "status": x.status, "outcome": x.outcome,
             "sent (ms)": ms(x.start), "waited (ms)": ms(x.waited or 0.0), "ran (ms)": ms(x.ran or 0.0),
             "answered (ms)": ms(x.end)} for x in r.requests]  # fmt: skip
    return pd.DataFrame(rows).set_index(["stream", "#"])


def checks_table(r: OrdersRun) -> pd.DataFrame:
    """check.js's four checks against one run: passed or not, and what was measured."""
    return pd.DataFrame(checks.check_orders(r)).set_index("check")


def headroom_table(loads: Sequence[float] = (2, 5, 20, 100), blocking: float = 0.01) -> pd.DataFrame:
    """For each load in flight, the smallest limit that refuses at most ``blocking`` of calls (Erlang-B,
    no waiting places: :func:`bulkhead_lab.sizing.smallest_pool`) beside the 2.5x rule of thumb."""
    rows = {}
    for load in loads:
        limit = sizing.smallest_pool(load, blocking)
        rows[f"{load:g}"] = {f"limit for {blocking:.0%} refused": limit,
                             "times the load": f"{limit / load:.2f}x",
                             "2.5x rule": math.ceil(2.5 * load)}  # fmt: skip
    return pd.DataFrame(rows).T.rename_axis("calls in flight (Little's Law)")
