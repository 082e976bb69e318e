"""Lesson-shaped :class:`OrdersRun` objects for notebook 04's tests, without sockets.

Each builder returns what a live run at the lesson's sizes reports (every answer with its
``waited_ms`` and ``ran_ms``, Payment's and Inventory's counters, the pools, the bulkhead's
readings and timeline), with round numbers, so the views, facts, claims and figures can be
tested exactly. The live tests (``tests/live/test_course_fail_fast_queue.py``) check the
same functions against real runs.
"""

from __future__ import annotations

from bulkhead_lab.live.bulkhead import BulkheadPoint
from bulkhead_lab.live.net.dependency import DependencyStats
from bulkhead_lab.live.orders.clients import PoolsReading, RequestResult
from bulkhead_lab.live.orders.load import OrdersRun
from bulkhead_lab.live.orders.service import BUSY, OrderSettings
from bulkhead_lab.live.orders.socket_pools import PoolStats

STOCK_AT = 0.1  # s: the stock checks are sent 100 ms after the orders
INVENTORY = 0.022  # s: one Inventory call
PAYMENT = 0.021  # s: one healthy Payment call


def answer(kind: str, index: int, status: int, start: float, waited: float, ran: float, **body: object):
    end = start + waited + ran
    fields = {"waited_ms": round(waited * 1000, 1), "ran_ms": round(ran * 1000, 1), **body}
    if kind == "order":
        fields.setdefault("order", index)
    if status == 503:
        fields |= {"error": BUSY, "bulkhead": "bulkhead full: 5/5 running, 5/5 queued"}
    return RequestResult(kind, index, status, end - start, start, end, fields)


def _pools(settings: OrderSettings, **extra: dict) -> PoolsReading:
    sizes = settings.pool_sizes()
    pools = {
        name: PoolStats(**({"limit": sizes[name], "opened": 0, "reused": 0, "open": 0, "peak": 0, "waited": 0}
                           | extra.get(name, {})))
        for name in ("payment", "inventory")
    }  # fmt: skip
    return PoolsReading(settings.variant, settings.pool_rule, pools["payment"], pools["inventory"])


def _run(settings: OrderSettings, requests: list, *, slow: bool = True, latency: float | None = 3.0, **kw):
    fields = {
        "variant": settings.variant,
        "settings": settings,
        "slow": slow,
        "slow_latency": latency if slow else None,
        "requests": requests,
        "payment": DependencyStats(0, 0, 20),
        "inventory": DependencyStats(5, 0, 10),
        "bulkhead_busy": None,
        "bulkhead_after": None,
        "pools": _pools(settings),
        "duration": max(r.end for r in requests),
        "stock_delay": STOCK_AT,
        "timelines": {"payment": [(0.0, 0)], "inventory": [(0.0, 0), (STOCK_AT, 5), (0.2, 0)]},
    }
    return OrdersRun(**(fields | kw))


def _stock(waited: float = 0.0, waited_half: float | None = None) -> list:
    """Ten stock checks; with a pool of 5 the second five wait one Inventory call (or ``waited_half``)."""
    second = INVENTORY if waited_half is None else waited_half
    return [answer("stock", i, 200, STOCK_AT, waited if i <= 5 else max(waited, second), INVENTORY)
            for i in range(1, 11)]  # fmt: skip


def shared(rule: str = "node", latency: float = 3.0) -> OrdersRun:
    """One shared pool of 10, Payment slow: two rounds of 10; the stock checks wait out both (node) or
    get in after the first (aiohttp)."""
    orders = [answer("order", i, 200, 0.0, 0.0 if i <= 10 else latency, latency) for i in range(1, 21)]
    # node: after both rounds' orders; aiohttp: a random hand-off, here just before the second round's
    stock_wait = 2 * latency - STOCK_AT + 0.002 if rule == "node" else latency - STOCK_AT - 0.01
    s = OrderSettings("shared", pool_rule=rule)
    got = stock_wait + STOCK_AT  # when the stock checks had their connections
    timelines = {"payment": [(0.0, 0), (0.001, 10), (2 * latency, 0)],
                 "inventory": [(0.0, 0), (got, 10), (got + 0.05, 0)]}  # fmt: skip
    counts = {
        "payment": DependencyStats(10, 0, 20),
        "inventory": DependencyStats(10, 0, 10),
    }
    return _run(s, orders + _stock(stock_wait, stock_wait), latency=latency, timelines=timelines, **counts)


def separate(latency: float = 3.0) -> OrdersRun:
    """A pool of 5 each, Payment slow: four rounds of 5; the stock checks through in milliseconds."""
    orders = [answer("order", i, 200, 0.0, (i - 1) // 5 * latency, latency) for i in range(1, 21)]
    return _run(OrderSettings("separate"), orders + _stock(), latency=latency,
                payment=DependencyStats(5, 0, 20))  # fmt: skip


def limited(latency: float = 3.0) -> OrdersRun:
    """The bulkhead 5 + 5, Payment slow: 5 run, 5 wait one round, 10 refused at once."""
    served = [answer("order", i, 200, 0.0, 0.0 if i <= 5 else latency, latency) for i in range(1, 11)]
    refused = [answer("order", i, 503, 0.0, 0.005, 0.0) for i in range(11, 21)]
    timeline = [BulkheadPoint(0.0, 0, 0, 0, 5), BulkheadPoint(0.001, 5, 0, 0, 5),
                BulkheadPoint(0.002, 5, 5, 0, 5), BulkheadPoint(0.004, 5, 5, 10, 5),
                BulkheadPoint(latency, 5, 0, 10, 5), BulkheadPoint(2 * latency, 0, 0, 10, 5)]  # fmt: skip
    busy = {"running": 5, "queued": 5, "executionSlots": 0, "queueSlots": 0, "rejected": 10, "limit": 5}
    after = {"running": 0, "queued": 0, "executionSlots": 5, "queueSlots": 5, "rejected": 10, "limit": 5}
    return _run(OrderSettings("limited"), served + refused + _stock(), latency=latency,
                payment=DependencyStats(5, 0, 10), bulkhead_busy=busy, bulkhead_after=after,
                bulkhead_timeline=timeline)  # fmt: skip


def healthy(
    variant: str = "shared", keepalive: bool = False, rule: str = "aiohttp", **sizes: int
) -> OrdersRun:
    """Payment healthy; with keep-alive on the node rule the stock checks wait out the idle sockets."""
    s = OrderSettings(variant, keepalive=keepalive, pool_rule=rule, **sizes)
    orders = [answer("order", i, 200, 0.0, 0.0 if i <= 10 else PAYMENT, PAYMENT) for i in range(1, 21)]
    stall = variant == "shared" and keepalive and rule == "node"
    stock = _stock(5.0 - STOCK_AT + 0.03, 5.0 - STOCK_AT + 0.03) if stall else _stock()
    peak = 10 if stall else 20
    pools = _pools(s, payment={"opened": 10, "reused": 10 if keepalive else 0, "peak": peak},
                   inventory={"opened": 10, "peak": peak})  # fmt: skip
    return _run(s, orders + stock, slow=False, latency=None, payment=DependencyStats(10, 0, 20),
                pools=pools)  # fmt: skip


def small() -> OrdersRun:
    """A limit of 2 and no waiting place, Payment healthy: 2 served at once, the rest of the burst refused."""
    s = OrderSettings("limited", limit=2, queue=0)
    orders = [answer("order", i, 200, 0.0, 0.0, PAYMENT) for i in (1, 2)]
    orders += [answer("order", i, 503, 0.0, 0.004, 0.0) for i in range(3, 21)]
    return _run(s, orders + _stock(), slow=False, latency=None, payment=DependencyStats(2, 0, 2))


def right_sized() -> OrdersRun:
    """The lesson's bulkhead, 5 running and 5 waiting, Payment healthy: the burst still loses 10."""
    s = OrderSettings("limited", limit=5, queue=5)
    orders = [answer("order", i, 200, 0.0, 0.0 if i <= 5 else PAYMENT, PAYMENT) for i in range(1, 11)]
    orders += [answer("order", i, 503, 0.0, 0.004, 0.0) for i in range(11, 21)]
    return _run(s, orders + _stock(), slow=False, latency=None, payment=DependencyStats(5, 0, 10))


def big(latency: float = 1.0) -> OrdersRun:
    """A limit of 15 and 5 waiting places, Payment slow: Payment holds 15 and nothing is refused."""
    s = OrderSettings("limited", limit=15, queue=5)
    orders = [answer("order", i, 200, 0.0, 0.0 if i <= 15 else latency, latency) for i in range(1, 21)]
    return _run(s, orders + _stock(), latency=latency, payment=DependencyStats(15, 0, 20))
