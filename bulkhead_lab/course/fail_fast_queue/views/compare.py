"""Lesson 004's numbers beside this kernel's, section by section, and why they differ where they do.

Each table has a ``lesson 004`` column (:mod:`.lesson004`'s constants) beside what a run
measured here and a ``why they differ`` column, empty where they agree. The measured
columns hold timings, so the notebook does not compare these tables; the facts behind
them are printed by :mod:`.facts` and compared.
"""

from __future__ import annotations

import pandas as pd

from bulkhead_lab.course.fail_fast_queue.views import lesson004 as L
from bulkhead_lab.course.fail_fast_queue.views.facts import stall_ratio
from bulkhead_lab.course.fail_fast_queue.views.reading import ms, span
from bulkhead_lab.course.ui.beside import WideFrame
from bulkhead_lab.live.orders.checks import check_orders
from bulkhead_lab.live.orders.load import OrdersRun
from bulkhead_lab.live.orders.service import FAST_LATENCY, KEEPALIVE_TIMEOUT, SLOW_LATENCY

NODE_HANDOFF = (
    "aiohttp hands a freed connection to a waiting request of a randomly chosen destination, so stock "
    "checks get in after the first or the second round; Node's Agent (and the Node-like pool) serves "
    "its own destination's queue first, so they wait out both rounds"
)
NODE_BUFFER = (
    "ours: the 5-s keep-alive timeout less the ~50 ms the orders took. Node 24.6 and newer close an "
    "idle socket keepAliveTimeout + keepAliveTimeoutBuffer (1 s by default) after its last answer: 6 s"
)
OVERHEAD = "a few ms of Python HTTP, and two cores shared with other work, on top of each call"


def _frame(rows: dict[str, dict[str, object]], index: str = "measure") -> WideFrame:
    frame = WideFrame(pd.DataFrame(rows).T.fillna(""))
    frame.index.name = index
    return frame


def _ms_range(pair: tuple[int, int]) -> str:
    return f"{pair[0]} - {pair[1]} ms"


def setup_table() -> WideFrame:
    """The lesson's setup beside this notebook's (constants only: the notebook compares this table)."""
    rows = {
        "Payment answers in": (f"{L.PAYMENT_MS} ms", f"{FAST_LATENCY * 1000:g} ms", ""),
        "Payment switched slow": (f"{L.SLOW_S:g} s", f"{SLOW_LATENCY:g} s", ""),
        "Inventory answers in": (f"{L.INVENTORY_MS} ms", f"{FAST_LATENCY * 1000:g} ms", ""),
        "the load": (
            f"{L.ORDERS} orders at once, {L.STOCK_CHECKS} stock checks {L.STOCK_DELAY_MS} ms later",
            f"{L.ORDERS} orders at once, {L.STOCK_CHECKS} stock checks {L.STOCK_DELAY_MS} ms later",
            "",
        ),
        "one shared pool": (f"{L.SHARED_POOL} connections", f"{L.SHARED_POOL} connections", ""),
        "a pool per dependency": (f"{L.POOL_EACH} + {L.POOL_EACH}", f"{L.POOL_EACH} + {L.POOL_EACH}", ""),
        "bulkhead around Payment": (
            f"{L.LIMIT} running + {L.QUEUE} waiting (cockatiel)",
            f"{L.LIMIT} running + {L.QUEUE} waiting (bulkhead_lab.live.bulkhead)",
            "",
        ),
        "what a pool's limit counts": (
            "every socket, busy or idle (Node's maxTotalSockets)",
            "connections in use (aiohttp), or every socket (the Node-like pool)",
            "two pools here, so the lesson's Node rule can be run beside aiohttp's",
        ),
        "an idle kept-alive socket closes after": (
            f"about {L.KEEPALIVE_CLOSE_S:g} s (Node's server)",
            f"{KEEPALIVE_TIMEOUT:g} s",
            "",
        ),
        "ports": ("3001 - 3003", "free ports, closed after each run",
                  "so runs never clash; the CLI uses 3001 - 3003"),
    }  # fmt: skip
    return _frame(
        {k: {"lesson 004": a, "here": b, "why they differ": c} for k, (a, b, c) in rows.items()}, "setup"
    )


def _failed(r: OrdersRun) -> int:
    return sum(not c.passed for c in check_orders(r))


def shared_compare(node: OrdersRun, aiohttp: OrdersRun) -> WideFrame:
    """One shared pool, Payment slow: the lesson's Node run beside both pools here."""
    rows = {
        "stock checks": (f"about {L.SHARED_STOCK_S:g} s", span([x.latency for x in node.stock_checks]),
                         span([x.latency for x in aiohttp.stock_checks]), NODE_HANDOFF),
        "Payment's peak": (L.SHARED_PAYMENT_PEAK, node.payment.get("peak"), aiohttp.payment.get("peak"), ""),
        "slowest stock check (check.js)": (f"{L.CHECK_SHARED_STOCK_S:g} s", f"{node.slowest('stock'):.2f} s",
                                           f"{aiohttp.slowest('stock'):.2f} s", OVERHEAD),
        "check.js checks failed": (L.CHECKS_FAILED_SHARED, _failed(node), _failed(aiohttp), ""),
    }  # fmt: skip
    return _frame(
        {
            k: {"lesson 004": a, "here: Node-like pool": b, "here: aiohttp's pool": c, "why they differ": d}
            for k, (a, b, c, d) in rows.items()
        }
    )


def separate_compare(r: OrdersRun) -> WideFrame:
    """A pool per dependency, Payment slow."""
    waves = r.served_waves()
    rows = {
        "stock checks": (_ms_range(L.SEPARATE_STOCK_MS), span([x.latency for x in r.stock_checks]),
                         "Python's HTTP stack, on a busy machine"),
        "slowest order": (f"{L.SEPARATE_SLOWEST_S:g} s", f"{r.slowest('order'):.2f} s", ""),
        "rounds of 3 s": (L.SEPARATE_ROUNDS, len(waves), ""),
        "orders per round": (L.POOL_EACH, ", ".join(str(n) for n in waves.values()), ""),
        "Payment's peak": (L.POOL_EACH, r.payment.get("peak"), ""),
    }  # fmt: skip
    return _frame({k: {"lesson 004": a, "here": b, "why they differ": c} for k, (a, b, c) in rows.items()})


def limited_compare(r: OrdersRun) -> WideFrame:
    """The bulkhead (5 running, 5 waiting), Payment slow."""
    waves = r.served_waves()
    busy = r.bulkhead_busy or {}
    rows = {
        "stock checks": (_ms_range(L.LIMITED_STOCK_MS), span([x.latency for x in r.stock_checks]), ""),
        "orders served": (L.LIMITED_SERVED, r.served, ""),
        "served after 3 s, after 6 s": (" / ".join(str(n) for n in L.LIMITED_ROUNDS.values()),
                                        " / ".join(str(n) for n in waves.values()), ""),
        "orders refused": (L.LIMITED_REFUSED, r.refused, ""),
        "slowest refusal": (f"{L.REFUSAL_MS} ms", f"{ms(r.slowest('order', 'refused'))} ms",
                            "the time to open a connection and answer, on each machine"),
        "Payment's peak": (L.LIMITED_PAYMENT_PEAK, r.payment.get("peak"), ""),
        "/admin/bulkhead while busy": (
            f"{L.BUSY_RUNNING} running, {L.BUSY_FREE_WAITING} free waiting places",
            f"{busy.get('running')} running, {busy.get('queueSlots')} free waiting places", ""),
        "rejected (/admin/bulkhead)": ("not printed", (r.bulkhead_after or {}).get("rejected"), ""),
    }  # fmt: skip
    return _frame({k: {"lesson 004": a, "here": b, "why they differ": c} for k, (a, b, c) in rows.items()})


def keepalive_compare(baseline: OrdersRun, node: OrdersRun, aiohttp: OrdersRun) -> WideFrame:
    """Payment healthy, one shared pool: no keep-alive (the baseline), then keep-alive on both pools."""
    p_node, p_aio = (node.pools or {}).get("payment", {}), (aiohttp.pools or {}).get("payment", {})
    base = span([x.latency for x in baseline.stock_checks])
    rows = {
        "stock checks, no keep-alive (the baseline)": (_ms_range(L.HEALTHY_STOCK_MS), base, base, ""),
        "orders, keep-alive": (f"about {L.KEEPALIVE_ORDERS_MS} ms", span([x.latency for x in node.orders]),
                               span([x.latency for x in aiohttp.orders]), ""),
        "stock checks, keep-alive": (f"about {L.KEEPALIVE_STOCK_S:g} s",
                                     span([x.latency for x in node.stock_checks]),
                                     span([x.latency for x in aiohttp.stock_checks]), NODE_BUFFER),
        "sockets open at once": (L.SHARED_POOL, p_node.get("peak"), p_aio.get("peak"),
                                 "aiohttp's limit counts only connections in use"),
        "times slower than the baseline": (L.KEEPALIVE_SLOWER, f"{stall_ratio(node, baseline):.0f}",
                                           f"{stall_ratio(aiohttp, baseline):.1f}",
                                           "a ratio of two timings: 6 s / 20 ms in the lesson"),
    }  # fmt: skip
    return _frame(
        {
            k: {"lesson 004": a, "here: Node-like pool": b, "here: aiohttp's pool": c, "why they differ": d}
            for k, (a, b, c, d) in rows.items()
        }
    )
