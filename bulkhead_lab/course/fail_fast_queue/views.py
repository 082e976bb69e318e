"""What notebook 04 shows, as numbers: lesson 004's runs, their tables and their facts.

Everything here reads :class:`~bulkhead_lab.live.load.OrdersRun` objects that :func:`run`
measured on real sockets in this session: pandas tables like the lesson's, the invariant
facts of a run as plain lines (for nbval to compare), check.js's verdicts, and the
installed aiohttp's own limit rule. The figures are in :mod:`.figures`, the live panel in
:mod:`.panels`.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from ...live.load import OrdersRun, run_orders
from ...live.order_checks import check_orders, keepalive_facts
from ..live import run_sync

__all__ = [
    "checks_table",
    "checks_text",
    "facts",
    "keepalive_facts_text",
    "keepalive_table",
    "limit_rule_source",
    "requests_table",
    "run",
    "run_label",
    "summary_table",
    "waves_needed",
]


def run(variant: str = "limited", **kwargs: Any) -> OrdersRun:
    """:func:`~bulkhead_lab.live.load.run_orders` from plain (or notebook) code: start, drive once, stop.

    An interrupted cell (Ctrl-C, the kernel's stop button) cancels the live run and waits
    until its services are closed before the interrupt goes on (``run_sync`` does that),
    so nothing is left listening.
    """
    return run_sync(run_orders(variant, **kwargs))


def waves_needed(orders: int, limit: int) -> int:
    """How many waves of Payment's latency ``orders`` calls need through ``limit`` connections."""
    return math.ceil(orders / limit)


# --- tables ---------------------------------------------------------------------------------


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _span(values: Sequence[float]) -> str:
    if not values:
        return "-"
    lo, hi = _ms(min(values)), _ms(max(values))
    return f"{lo} ms" if lo == hi else f"{lo} - {hi} ms"


def run_label(r: OrdersRun) -> str:
    """A run's variant and sizes, e.g. ``limited (pools 5+5, bulkhead 5+5)``."""
    s = r.settings
    if s is None:
        return r.variant
    size = f"pool {s.pool}" if s.variant == "shared" else f"pools {s.limit}+{s.limit}"
    if s.variant == "limited":
        size += f", bulkhead {s.limit}+{s.queue}"
    return f"{s.variant} ({size})"


def summary_table(runs: Iterable[OrdersRun]) -> pd.DataFrame:
    """One row per run, as the lesson reports them: stock checks, orders served and refused, peaks."""
    rows = {}
    for r in runs:
        slow = f"slow {r.slow_latency:g} s" if r.slow and r.slow_latency else "healthy"
        rows[f"{run_label(r)}, Payment {slow}"] = {
            "stock checks": _span([x.latency for x in r.stock_checks]),
            "orders served": r.served,
            "orders refused": r.refused,
            "slowest order": f"{r.slowest('order'):.2f} s",
            "slowest refusal": f"{_ms(r.slowest('order', 'refused'))} ms" if r.refused else "-",
            "Payment peak": r.payment.get("peak", "?"),
            "Inventory peak": r.inventory.get("peak", "?"),
        }
    frame = pd.DataFrame(rows).T
    frame.index.name = "Order Service"
    return frame


def requests_table(r: OrdersRun) -> pd.DataFrame:
    """Every request: stream, status, outcome, and its start, end and latency in ms."""
    frame = pd.DataFrame(
        [
            {
                "stream": x.kind,
                "#": x.index,
                "status": x.status,
                "outcome": x.outcome,
                "start (ms)": _ms(x.start),
                "end (ms)": _ms(x.end),
                "latency (ms)": _ms(x.latency),
            }
            for x in r.requests
        ]
    )
    return frame.set_index(["stream", "#"])


def checks_table(r: OrdersRun) -> pd.DataFrame:
    """check.js's four checks against one run: passed or not, and what was measured."""
    return pd.DataFrame(check_orders(r)).set_index("check")


def keepalive_table(r: OrdersRun) -> pd.DataFrame:
    """The keep-alive experiment: sockets the shared pool opened and kept against its limit."""
    f = keepalive_facts(r)
    return pd.DataFrame(
        {
            "value": {
                "shared pool limit": f.pool_limit,
                "Payment connections opened": f.payment_opened,
                "Payment connections reused": f.payment_reused,
                "Inventory connections opened": f.inventory_opened,
                "sockets open at once (none idled out)": f.kept_open,
                "slowest order": f"{_ms(f.slowest_order)} ms",
                "slowest stock check": f"{_ms(f.slowest_stock)} ms",
            }
        }
    )


# --- facts nbval compares -------------------------------------------------------------------


def facts(r: OrdersRun) -> str:
    """The run's invariant facts, one per line: counts, peaks, who was refused, waves."""
    s = r.settings
    state = f"slow ({r.slow_latency:g} s)" if r.slow and r.slow_latency else "slow" if r.slow else "healthy"
    lines = [f"{run_label(r)}, Payment {state}"]
    lines.append(
        f"orders: {r.served} served, {r.refused} refused, {r.count('failed') + r.count('no answer')} failed"
    )
    lines.append(f"every order answered 200 or 503: {all(x.status in (200, 503) for x in r.orders)}")
    if r.refused:
        who = r.refused_arrivals()
        consecutive = who == list(range(who[0], who[-1] + 1))
        lines.append(
            f"refused: orders {who[0]} to {who[-1]} in order of arrival"
            if consecutive
            else f"refused, by order of arrival: {who}"
        )
        lines.append(f"every refusal under 200 ms: {r.slowest('order', 'refused') < 0.2}")
    waves = r.served_waves()
    if waves:
        lines.append(  # the line nbval compares keeps the lesson's word, "round"
            "served per round of Payment's latency: "
            + ", ".join(f"{n} after {k} x {r.slow_latency:g} s" for k, n in waves.items())
        )
    pool = None if s is None else (s.pool if s.variant == "shared" else s.limit)
    peak = r.payment.get("peak")
    lines.append(
        f"Payment's peak: {peak}"
        + (" (the whole shared pool)" if s and s.variant == "shared" and peak == pool else "")
    )
    if s is not None and s.variant != "shared":
        lines.append(
            f"Inventory's peak within its own pool of {s.limit}: {r.inventory.get('peak', 99) <= s.limit}"
        )
    stock = r.slowest("stock")
    lines.append(f"every stock check under 300 ms: {stock < 0.3}")
    if r.slow and r.slow_latency and stock >= 0.3:
        waited = stock >= r.slow_latency / 2  # no Inventory call takes that long on its own
        lines.append(f"stock checks waited for a slow Payment call to free a connection: {waited}")
    if r.bulkhead_busy is not None:
        b = r.bulkhead_busy
        lines.append(f"bulkhead while busy: {b['running']} running, {b['queueSlots']} free waiting places")
    return "\n".join(lines)


def checks_text(r: OrdersRun) -> str:
    """check.js's verdicts only (no timings), one line each."""
    return "\n".join(f"{'PASS' if c.passed else 'FAIL'}  {c.check}" for c in check_orders(r))


def keepalive_facts_text(r: OrdersRun) -> str:
    """The keep-alive experiment's invariant facts."""
    f = keepalive_facts(r)
    return "\n".join(
        [
            f"shared pool limit: {f.pool_limit}",
            f"Payment: {f.payment_opened} connections opened, {f.payment_reused} reused (kept alive)",
            f"sockets open at once: {f.kept_open} (more than the limit: {f.kept_open > f.pool_limit})",
            f"every stock check under 300 ms: {f.slowest_stock < 0.3}",
            f"idle kept-alive connections counted against the limit: {f.idle_counted}",
        ]
    )


def limit_rule_source() -> str:
    """The installed aiohttp's own code that decides whether a pool has a free connection."""
    from aiohttp.connector import BaseConnector

    return inspect.getsource(BaseConnector._available_connections)
