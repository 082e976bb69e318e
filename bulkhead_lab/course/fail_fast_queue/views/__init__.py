"""What notebook 04 shows, as numbers: lesson 004's runs, their tables, facts and claims.

Everything here reads :class:`~bulkhead_lab.live.orders.load.OrdersRun` objects that :func:`run`
measured on real sockets in this session. This module holds the run tables and the
sizing rule worked; it re-exports how a run is read (:mod:`.reading`: the runs, the one
time axis, each request's wait and run), a run's own facts nbval compares (:mod:`.facts`)
and the lesson's claims beside the runs (:mod:`.claims`), so every notebook cell reads
``views.<name>``.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable

import pandas as pd

from bulkhead_lab import sizing
from bulkhead_lab.course.fail_fast_queue.views import lesson004
from bulkhead_lab.course.fail_fast_queue.views.claims import (
    Runs,
    beside,
    burst_claims,
    check_claims,
    claims_count,
    claims_table,
    keepalive_claims,
    lesson_claims,
    limited_claims,
    separate_claims,
    setup_table,
    shared_claims,
    sizing_claims,
)
from bulkhead_lab.course.fail_fast_queue.views.facts import (
    bulkhead_counters_text,
    facts,
    keepalive_text,
    refusal_text,
    stall_text,
)
from bulkhead_lab.course.fail_fast_queue.views.reading import (
    LESSON_AXIS,
    RULE_WORDS,
    VARIANT_WORDS,
    Bar,
    Counters,
    bars,
    counters,
    measure,
    ms,
    nice_end,
    payment_state,
    run,
    run_label,
    span,
    time_axis,
    waiting,
    wave_ends,
    waves_needed,
)
from bulkhead_lab.live.orders.checks import check_orders
from bulkhead_lab.live.orders.load import OrdersRun


def summary_row(r: OrdersRun) -> dict[str, object]:
    """One run as the lesson reports it: stock checks, orders served and refused, peaks."""
    rejected = (r.bulkhead_after or {}).get("rejected")
    return {
        "stock checks": span([x.latency for x in r.stock_checks], "ms"),
        "orders served": r.served,
        "orders refused": r.refused,
        "slowest order": f"{r.slowest('order'):.2f} s",
        "slowest refusal": f"{ms(r.slowest('order', 'refused'))} ms" if r.refused else "-",
        "Payment peak": "?" if r.payment.error else r.payment.peak,
        "Inventory peak": "?" if r.inventory.error else r.inventory.peak,
        "rejected (bulkhead)": "-" if rejected is None else rejected,
    }


def summary_table(runs: Iterable[OrdersRun]) -> pd.DataFrame:
    """One row per run (its variant, sizes and Payment's state), the lesson's measures as columns."""
    rows = {f"{run_label(r)}, {payment_state(r)}": summary_row(r) for r in runs}
    frame = pd.DataFrame(rows).T
    frame.index.name = "Order Service"
    return frame


def _lesson_row(r: OrdersRun) -> dict[str, object] | None:
    """Lesson 004's row for a run at the lesson's sizes (its counts; its timings at 3 s), or None."""
    s = r.settings
    if s is None or not r.slow or s.keepalive or len(r.orders) != lesson004.ORDERS:
        return None
    blank = dict.fromkeys(summary_row(r), "-")
    if s.variant == "shared" and s.pool == lesson004.SHARED_POOL:
        return blank | {"stock checks": f"about {lesson004.SHARED_STOCK_S:g} s",
                        "Payment peak": lesson004.SHARED_PAYMENT_PEAK}  # fmt: skip
    if s.limit != lesson004.POOL_EACH:
        return None
    lo, hi = lesson004.SEPARATE_STOCK_MS if s.variant == "separate" else lesson004.LIMITED_STOCK_MS
    row = blank | {"stock checks": f"{lo} - {hi} ms", "Payment peak": lesson004.POOL_EACH}
    if s.variant == "separate":
        return row | {"orders served": lesson004.ORDERS, "orders refused": 0,
                      "slowest order": f"{lesson004.SEPARATE_SLOWEST_S:g} s"}  # fmt: skip
    if s.variant == "limited" and s.queue == lesson004.QUEUE:
        return row | {
            "orders served": lesson004.LIMITED_SERVED,
            "orders refused": lesson004.LIMITED_REFUSED,
            "slowest order": f"{2 * lesson004.SLOW_S:g} s",
            "slowest refusal": f"{lesson004.REFUSAL_MS} ms",
        }
    return None


def panel_table(r: OrdersRun) -> pd.DataFrame:
    """The panel's table: this run, and lesson 004's row below it when the sizes are the lesson's
    (its counts compare at any latency; its timings are at Payment slow = 3 s)."""
    rows = {f"this run: {run_label(r)}, {payment_state(r)}": summary_row(r)}
    lesson = _lesson_row(r)
    if lesson is not None:
        rows[f"lesson 004: {VARIANT_WORDS.get(r.variant, r.variant)}, Payment slow (3 s)"] = lesson
    frame = pd.DataFrame(rows).T
    frame.index.name = "run"
    return frame


def requests_table(r: OrdersRun) -> pd.DataFrame:
    """Every request: its status and outcome, when it was sent, how long it waited and ran, in ms."""
    frame = pd.DataFrame(
        [
            {
                "stream": x.kind,
                "#": x.index,
                "status": x.status,
                "outcome": x.outcome,
                "sent (ms)": ms(x.start),
                "waited (ms)": ms(x.waited or 0.0),
                "ran (ms)": ms(x.ran or 0.0),
                "answered (ms)": ms(x.end),
            }
            for x in r.requests
        ]
    )
    return frame.set_index(["stream", "#"])


def checks_table(r: OrdersRun) -> pd.DataFrame:
    """check.js's four checks against one run: passed or not, and what was measured."""
    return pd.DataFrame(check_orders(r)).set_index("check")


def limit_rule_source() -> str:
    """The installed aiohttp's own code that decides whether a pool has a free connection."""
    from aiohttp.connector import BaseConnector

    return inspect.getsource(BaseConnector._available_connections)


def littles_law() -> str:
    """The lesson's sizing rule worked: 20 calls/s x 0.1 s = 2 in flight; x 2.5 and x 3 give 5 and 6
    (the lesson's own "about 2" and "say 5 or 6" stand beside them in :func:`.claims.sizing_claims`)."""
    rate, hold = lesson004.RATE, lesson004.HOLD
    load = sizing.in_flight(rate, hold)
    low, high = sizing.suggested_limit(rate, hold, 2.5), sizing.suggested_limit(rate, hold, 3.0)
    return "\n".join(
        [
            f"in flight = {rate:g} calls/s x {hold:g} s = {load:g} calls",
            f"limit with 2.5x headroom: ceil({load:g} x 2.5) = {low}",
            f"limit with 3x headroom:   ceil({load:g} x 3) = {high}",
        ]
    )


__all__ = [
    "Bar",
    "Counters",
    "LESSON_AXIS",
    "RULE_WORDS",
    "Runs",
    "VARIANT_WORDS",
    "bars",
    "beside",
    "bulkhead_counters_text",
    "burst_claims",
    "check_claims",
    "checks_table",
    "claims_count",
    "claims_table",
    "counters",
    "facts",
    "keepalive_claims",
    "keepalive_text",
    "lesson_claims",
    "limit_rule_source",
    "limited_claims",
    "littles_law",
    "measure",
    "nice_end",
    "panel_table",
    "payment_state",
    "refusal_text",
    "requests_table",
    "run",
    "run_label",
    "separate_claims",
    "setup_table",
    "shared_claims",
    "sizing_claims",
    "stall_text",
    "summary_table",
    "time_axis",
    "waiting",
    "wave_ends",
    "waves_needed",
]
