"""What notebook 04 shows of a live run: the runs themselves (made from a cell), their facts and tables.

Every number is read from an :class:`~bulkhead_lab.live.orders.load.OrdersRun` that :func:`run`
measured on real sockets in this kernel; its facts, label and time axis are read on the live side
(:mod:`bulkhead_lab.live.orders.reading.burst`). :data:`LESSON_RUNS` names every run the notebook
shows (made at once in section 2's first cell; :func:`runs_table` lists them in the appendix). The
fact lines are free of timing (nbval compares them); the tables that hold timings the notebook shows under
``# NBVAL_IGNORE_OUTPUT``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from bulkhead_lab import sizing
from bulkhead_lab.live.net.server import Progress
from bulkhead_lab.live.orders.load import OrdersLoad, OrdersRun, orders_setup, run_orders
from bulkhead_lab.live.orders.reading import burst
from bulkhead_lab.live.orders.reading.burst import facts, payment_state, run_label
from bulkhead_lab.live.orders.service import FAST_LATENCY, OrderSettings, Variant
from bulkhead_lab.live.sync import run_sync

VARIANT_WORDS: dict[Variant, str] = {  # the panel's buttons, the figures' titles
    "shared": "one shared pool",
    "separate": "a pool per dependency",
    "limited": "pools + bulkhead (limit, waiting places)",
}
RULE_WORDS = {"aiohttp": "aiohttp's pool", "node": "Node-like pool"}
RATE, HOLD = 20.0, 0.1  # lesson 004: "If Payment receives 20 calls per second and each takes 0.1 seconds"


@dataclass(frozen=True)
class Planned:
    """One of the notebook's live runs: the sections that show it, its Order Service and load by name
    (:func:`~bulkhead_lab.live.orders.load.orders_setup`), and whether it runs by itself, before the
    others: a healthy Payment answers in 20 ms, so a fact that needs the burst to arrive within one call
    (check.js's 300-ms bound on a stock check, a count of refusals) needs the machine to itself."""

    shown: str
    variant: Variant
    values: Mapping[str, Any] = field(default_factory=dict)
    alone: bool = False

    def setup(self) -> tuple[OrderSettings, OrdersLoad]:
        return orders_setup(self.variant, **self.values)


HEALTHY = {"slow": False}
#: Every run the notebook shows, by name, in section 2's first cell (:func:`.panels.lesson_runs`).
LESSON_RUNS: dict[str, Planned] = {
    "baseline": Planned("6", "shared", HEALTHY, alone=True),
    "keepalive_aiohttp": Planned("6", "shared", HEALTHY | {"keepalive": True}, alone=True),
    "keepalive_separate": Planned("6", "separate", HEALTHY | {"keepalive": True, "pool_rule": "node"},
                                  alone=True),
    "too_small": Planned("7", "limited", HEALTHY | {"limit": 2, "queue": 0}, alone=True),
    "right_sized": Planned("7", "limited", HEALTHY | {"limit": 5, "queue": 5}, alone=True),
    "separate": Planned("3, 5, 8", "separate"),
    "shared": Planned("2, 5", "shared", {"pool_rule": "node"}),
    "shared_aiohttp": Planned("2, 5", "shared"),
    "limited": Planned("5, 8", "limited"),
    "keepalive_node": Planned("6", "shared", HEALTHY | {"keepalive": True, "pool_rule": "node"}),
    "too_big": Planned("7", "limited", {"limit": 15, "queue": 5, "slow_latency": 1.0}),
    "panel": Planned("9", "limited", {"slow_latency": 1.0}),  # the panel's first figure
}  # fmt: skip


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


def runs_table(runs: Mapping[str, OrdersRun]) -> pd.DataFrame:
    """The notebook's live runs as made: each one's name, the sections that show it, its Order Service
    and Payment, and whether it ran by itself or at once with the others."""
    planned = LESSON_RUNS
    rows = {name: {"shown in section": planned[name].shown, "Order Service": run_label(r),
                   "Payment": payment_state(r).removeprefix("Payment "),
                   "made": "by itself, first" if planned[name].alone else "at once with the others"}
            for name, r in runs.items()}  # fmt: skip
    return pd.DataFrame(rows).T.rename_axis("run")


def run_facts(r: OrdersRun) -> str:
    """:func:`~bulkhead_lab.live.orders.reading.burst.facts`, and the fact the story tells of its
    variant: on the Node-like shared pool, the stock checks behind every waiting order; with a pool
    each, Inventory's pool idle while orders waited for Payment's."""
    lines, s = [facts(r)], r.settings
    if s is not None and s.variant == "shared" and s.pool_rule == "node" and r.slow:
        lines.append(f"every stock check had a connection only after all {r.served} orders had theirs: "
                     f"{burst.stock_after_every_order(r)}")  # fmt: skip
    if s is not None and s.variant == "separate" and r.slow:
        lines.append("Inventory's pool sat idle while orders waited for Payment's: "
                     f"{burst.inventory_idle_while_orders_waited(r)}")  # fmt: skip
    return "\n".join(lines)


def sizing_text(small: OrdersRun, right: OrdersRun) -> str:
    """Section 7's "too small" beside the lesson's own size on the same healthy burst: what each refused,
    and the calls in flight at the burst's instant against Little's Law's average."""
    burst = len(small.orders)
    lines = [
        f"the lesson's burst: {burst} orders sent at the same instant, Payment healthy "
        f"({FAST_LATENCY * 1000:g} ms a call)",
        f"orders in flight at that instant: {burst}; Little's Law's average at {RATE:g} calls/s of "
        f"{HOLD:g} s: {sizing.in_flight(RATE, HOLD):g}",
    ]
    for r in (small, right):
        s = r.settings
        size = "?" if s is None else f"limit {s.limit}, {s.queue} waiting places ({s.limit + s.queue} places)"
        lines.append(f"{size}: {r.served} served, {r.refused} refused, Payment's peak {r.payment.peak}")
    return "\n".join(lines)


def check_verdicts(limited: OrdersRun, shared: OrdersRun) -> pd.DataFrame:
    """check.js's four checks against the bulkhead and against the shared pool: PASS or FAIL."""
    columns = {f"against {run_label(r)}": {c.check: "PASS" if c.passed else "FAIL"
                                           for c in burst.check_orders(r)}
               for r in (limited, shared)}  # fmt: skip
    return pd.DataFrame(columns).rename_axis("check.js checks")


def burst_text(without: OrdersRun, limited: OrdersRun) -> str:
    """The lesson's burst without a bulkhead and with it, as Payment counted it."""
    return "\n".join([
        f"{run_label(without)}, {payment_state(without)}: Payment counted {without.payment.calls} calls of "
        f"the burst of {len(without.orders)}",
        f"{run_label(limited)}, {payment_state(limited)}: Payment counted {limited.payment.calls}; every "
        f"refusal answered before Payment's first answer: {burst.refusals_before_first_answer(limited)}",
    ])  # fmt: skip


def requests_table(r: OrdersRun) -> pd.DataFrame:
    """Every request: its status and outcome, when it was sent, how long it waited and ran, in ms."""
    rows = [{"stream": x.kind, "#": x.index, "status": x.status, "outcome": x.outcome,
             "sent (ms)": ms(x.start), "waited (ms)": ms(x.waited or 0.0), "ran (ms)": ms(x.ran or 0.0),
             "answered (ms)": ms(x.end)} for x in r.requests]  # fmt: skip
    return pd.DataFrame(rows).set_index(["stream", "#"])


def checks_table(r: OrdersRun) -> pd.DataFrame:
    """check.js's four checks against one run: passed or not, and what was measured."""
    return pd.DataFrame(burst.check_orders(r)).set_index("check")


def headroom_table() -> pd.DataFrame:
    """For 2, 5, 50 and 100 calls in flight, the smallest limit that refuses at most 1% of calls (Erlang-B,
    no waiting places: :func:`bulkhead_lab.sizing.smallest_pool`) beside the 2.5x rule of thumb."""
    rows = {}
    for load in (2, 5, 50, 100):
        limit = sizing.smallest_pool(load, 0.01)
        rows[f"{load:g}"] = {"limit for 1% refused": limit,
                             "times the load": f"{limit / load:.2f}x",
                             "2.5x rule": math.ceil(2.5 * load)}  # fmt: skip
    return pd.DataFrame(rows).T.rename_axis("calls in flight (Little's Law)")
