"""Lesson 004's load from outside: ``load.js`` and the measuring half of ``check.js``.

:func:`drive` switches Payment slow, sends ``orders`` orders at once and ``stock_checks``
stock checks a moment later to a running Order Service, and records every answer as a
:class:`~.clients.RequestResult` in an :class:`OrdersRun`, with what Payment, Inventory,
Order Service and the bulkhead reported. :func:`run_orders` starts Payment, Inventory
and Order Service on free ports, drives them once and stops them. A *wave* is the orders
Payment serves together in one stretch of its latency: :meth:`OrdersRun.served_waves`
counts them. The orders' client may retry 503s (``retry``, ``budget``: :mod:`.clients`).

Timelines, all in seconds on the drive's clock (0 = the orders are sent):
``run.timelines[name]`` is ``(t, open calls)`` for ``payment`` and ``inventory``;
``run.bulkhead_timeline`` is :class:`~.bulkhead.BulkheadPoint` ``(t, running, queued,
rejected, limit)`` at every change. From :func:`run_orders` they are exact (one clock);
from :func:`drive` alone the bulkhead's is read over HTTP and placed within the
millisecond or two of the Order Service's reset.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

import aiohttp

from bulkhead_lab.live.bulkhead import BulkheadPoint
from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.net.server import Progress, check_fd_budget, check_planned
from bulkhead_lab.live.orders.clients import (
    Client,
    RequestResult,
    Try,
    admin_json,
    bulkhead_reading,
    check_budget,
    check_policy,
    heal_payment,
    read_services,
)
from bulkhead_lab.live.orders.results import OrdersRun, Recorder, exact_timelines
from bulkhead_lab.live.orders.service import (
    ADAPTIVE,
    CALL_TIMEOUT,
    FAST_LATENCY,
    KEEPALIVE_TIMEOUT,
    SLOW_LATENCY,
    OrderService,
    OrderSettings,
    inventory,
    payment,
)
from bulkhead_lab.retries.policy import JITTER_SEED, Budget, RetryPolicy
from bulkhead_lab.validation import check_int, check_real

__all__ = ["OrdersRun", "RequestResult", "Try", "drive", "planned_seconds", "run_orders", "run_sockets"]

MAX_REQUESTS = 10_000  # per stream in one drive
MAX_SLOW_LATENCY = 60.0  # seconds: the longest slowdown of Payment a run asks for
MAX_STOCK_DELAY = 60.0  # seconds between sending the orders and the stock checks
_POLL = 0.01  # seconds between two readings of /admin/bulkhead while waiting for it to be busy


def check_load(orders: object, stock_checks: object, stock_delay: object) -> tuple[int, int, float]:
    """The burst's sizes, each refused with one line if out of range."""
    return (
        check_int("orders", orders, 0, MAX_REQUESTS),
        check_int("stock_checks", stock_checks, 0, MAX_REQUESTS),
        check_real("stock_delay", stock_delay, 0.0, MAX_STOCK_DELAY),
    )


async def drive(
    order_url: str,
    payment_url: str,
    inventory_url: str,
    *,
    slow: bool = True,
    orders: int = 20,
    stock_checks: int = 10,
    stock_delay: float = 0.1,
    slow_latency: float | None = None,
    on_progress: Progress | None = None,
    timeout: float = 120.0,
    retry: RetryPolicy | None = None,
    budget: Budget | None = None,
    seed: int = JITTER_SEED,
) -> OrdersRun:
    """Lesson 004's load from outside: Payment slow (or not), ``orders`` orders at once and
    ``stock_checks`` stock checks ``stock_delay`` seconds later; every answer recorded.

    ``slow_latency`` (seconds, optional) sets Payment's slowdown through ``/admin/slow?ms=``.
    ``retry`` (a RetryPolicy, backoff in seconds) retries refused orders within ``budget``
    (counted over this drive: one client), jitter drawn from ``random.Random(seed)``.
    Payment is switched back to normal at the end, whatever happened.
    """
    orders, stock_checks, stock_delay = check_load(orders, stock_checks, stock_delay)
    if slow_latency is not None:
        check_real("slow_latency", slow_latency, 0.0, MAX_SLOW_LATENCY)
    retry, budget = check_policy(retry), check_budget(budget)
    total = orders + stock_checks
    check_fd_budget(f"orders + stock_checks = {total}", total + 4)  # this side's end of each connection
    connector = aiohttp.TCPConnector(limit=0, force_close=True)  # the client itself is never the limit
    async with aiohttp.ClientSession(
        connector=connector, timeout=aiohttp.ClientTimeout(total=timeout)
    ) as session:
        for url in (payment_url, inventory_url, order_url):  # each back to its start state
            await admin_json(session, "POST", url + "/admin/reset")
        reset_at = time.monotonic()  # Order Service's clock starts within this reset's round trip
        try:
            if slow:
                slow_url = f"{payment_url}/admin/slow?on=1"
                if slow_latency is not None:
                    slow_url += f"&ms={round(slow_latency * 1000)}"
                await admin_json(session, "POST", slow_url)
            t0 = time.monotonic()
            client = Client(
                session, t0, retry=retry, budget=budget, seed=seed, total=total, on_progress=on_progress
            )
            tasks: list[asyncio.Task[RequestResult]] = []
            try:
                tasks += [
                    asyncio.create_task(client.send("order", i + 1, "POST", order_url + "/orders"))
                    for i in range(orders)
                ]
                await asyncio.sleep(stock_delay)
                tasks += [
                    asyncio.create_task(client.send("stock", i + 1, "GET", order_url + "/stock", retry=False))
                    for i in range(stock_checks)
                ]
                busy = await _bulkhead_when_busy(session, order_url, tasks[:orders], timeout)
                results = await asyncio.gather(*tasks)
            except BaseException:
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                raise
            duration = time.monotonic() - t0
            read = await read_services(session, order_url, payment_url, inventory_url, timeline=True)
        finally:
            await heal_payment(session, payment_url)
    after = read.bulkhead
    timeline = []
    if after is not None:
        shift = reset_at - t0
        timeline = [BulkheadPoint(max(0.0, p[0] + shift), *p[1:]) for p in after.pop("timeline", [])]
        after.pop("truncated", None)
    return OrdersRun(
        variant=str(read.pools.get("variant", "?")),
        settings=None,
        slow=slow,
        slow_latency=slow_latency,
        requests=list(results),
        payment=read.payment,
        inventory=read.inventory,
        bulkhead_busy=busy,
        bulkhead_after=after,
        pools=read.pools,
        duration=duration,
        stock_delay=stock_delay,
        bulkhead_timeline=timeline,
        order_service=read.order_service,
        retry=retry,
        budget=budget,
        t0=t0,
    )


async def _bulkhead_when_busy(
    session: aiohttp.ClientSession,
    order_url: str,
    orders: list[asyncio.Task[RequestResult]],
    timeout: float,
) -> dict[str, int] | None:
    """``/admin/bulkhead`` once it is seen busy, polled with a deadline (not after a guessed pause).

    Busy means every running place is taken and every order has reached the bulkhead
    (running, waiting, refused or already answered), which is the moment lesson 004
    reads "5 running, 0 free waiting places". If every order is answered first (a
    healthy Payment), or the deadline passes, the last reading is returned.
    """
    deadline = time.monotonic() + timeout
    while True:
        stats = await bulkhead_reading(session, order_url)
        if stats is None:
            return None  # a variant without a bulkhead
        answered = [t.result() for t in orders if t.done()]
        if len(answered) == len(orders) or time.monotonic() >= deadline:
            return _counters(stats)
        reached = stats["running"] + stats["queued"] + stats["rejected"]
        reached += sum(r.outcome != "refused" for r in answered)  # refusals are in "rejected" already
        if stats["executionSlots"] == 0 and reached >= len(orders):
            return _counters(stats)
        await asyncio.sleep(_POLL)


_COUNTERS = ("running", "queued", "executionSlots", "queueSlots", "rejected", "limit")


def _counters(stats: dict[str, Any]) -> dict[str, int]:
    """The bulkhead's counters and limit (an adaptive one's extra readings left out)."""
    return {k: stats[k] for k in _COUNTERS if k in stats}


def planned_seconds(
    settings: OrderSettings, orders: int, latency: float, retry: RetryPolicy | None = None
) -> tuple[float, str]:
    """How long Payment needs for ``orders`` at ``latency`` under ``settings``, and the sum in words.

    ``ceil(orders served / places) x latency``: the pool (or the bulkhead's running places)
    serves its orders in waves; the bulkhead serves at most ``limit + queue`` of a burst and
    refuses the rest at once. A call never lasts past ``payment_timeout``. A shared pool
    under the node rule with keep-alive adds its idle sockets' 5 s; retries add their
    longest backoffs.
    """
    call = min(latency, settings.payment_timeout)
    spec = settings.spec()
    places = settings.pool if settings.variant == "shared" else settings.limit
    if spec is not None:
        places = int(spec.get("initial") or spec.get("min_limit"))
    bounded = settings.variant in ("limited", ADAPTIVE)
    served = min(orders, places + settings.queue) if bounded else orders
    waves = math.ceil(served / places)
    unit = "places" if bounded else "connections"
    seconds, how = waves * call, f"ceil({served} orders / {places} {unit}) x {call:g} s"
    if settings.pool_rule == "node" and settings.keepalive:
        seconds += KEEPALIVE_TIMEOUT
        how += f" + {KEEPALIVE_TIMEOUT:g} s of idle kept-alive sockets"
    if retry is not None and retry.backoff is not None and retry.attempts > 1:
        b = retry.backoff
        backoff = sum(b.cap if b.jitter == "decorrelated" else b.ceiling(n) for n in range(1, retry.attempts))
        seconds += backoff
        how += f" + {backoff:g} s of backoff"
    return seconds, how


def run_sockets(settings: OrderSettings, requests: int) -> int:
    """File descriptors a run holds at once: both ends of every client request and of every pool
    connection (never more connections than requests), three listening sockets and the admin calls' few."""
    return 2 * requests + 2 * min(settings.slots(), requests) + 8


async def run_orders(
    variant: str = "limited",
    *,
    pool: int = 10,
    limit: int = 5,
    queue: int = 5,
    keepalive: bool = False,
    slow: bool = True,
    orders: int = 20,
    stock_checks: int = 10,
    stock_delay: float = 0.1,
    slow_latency: float = SLOW_LATENCY,
    fast_latency: float = FAST_LATENCY,
    payment_timeout: float = CALL_TIMEOUT,
    on_progress: Progress | None = None,
    allow_long: bool = False,
    pool_rule: str = "aiohttp",
    algorithm: str = "Gradient2",
    limiter_options: Mapping[str, Any] | None = None,
    retry: RetryPolicy | None = None,
    budget: Budget | None = None,
    seed: int = JITTER_SEED,
) -> OrdersRun:
    """Start Payment, Inventory and Order Service on free ports, drive them once, stop them.

    The defaults are the lesson's run: ``limited`` (5 running, 5 waiting), Payment slow at
    3 s, 20 orders at once and 10 stock checks 100 ms later. Nothing stays listening after
    it returns, raises or is cancelled. ``pool_rule``, ``algorithm`` and
    ``limiter_options`` are :class:`OrderSettings`'; ``retry``, ``budget`` and ``seed``
    :func:`drive`'s.

    Every value is checked before anything starts. A Payment call longer than
    ``payment_timeout`` is answered 504. A run planned to take over two minutes
    (:func:`planned_seconds`) needs ``allow_long=True``; one that needs more sockets than
    ``ulimit -n`` allows is refused with one line saying how to raise it.
    """
    settings = OrderSettings(
        variant,
        pool,
        limit,
        queue,
        keepalive,
        payment_timeout=payment_timeout,
        pool_rule=pool_rule,
        algorithm=algorithm,
        limiter_options=tuple((limiter_options or {}).items()),
    )
    check_real("slow_latency", slow_latency, 0.0, MAX_SLOW_LATENCY)
    check_real("fast_latency", fast_latency, 0.0, MAX_SLOW_LATENCY)
    orders, stock_checks, stock_delay = check_load(orders, stock_checks, stock_delay)
    retry, budget = check_policy(retry), check_budget(budget)
    seconds, how = planned_seconds(settings, orders, slow_latency if slow else fast_latency, retry)
    check_planned(stock_delay + seconds, how, allow_long)
    check_fd_budget(
        f"orders + stock_checks = {orders + stock_checks}", run_sockets(settings, orders + stock_checks)
    )
    async with order_services(settings, slow_latency, fast_latency) as (service, pay, inv):
        run = await drive(
            service.url,
            pay.url,
            inv.url,
            slow=slow,
            orders=orders,
            stock_checks=stock_checks,
            stock_delay=stock_delay,
            slow_latency=slow_latency,
            on_progress=on_progress,
            timeout=max(120.0, 4 * (orders + 1) * slow_latency + seconds),
            retry=retry,
            budget=budget,
            seed=seed,
        )
        service.record(run)
    return run


class RecordedService:
    """An Order Service and its dependencies' open-call recorders, for :meth:`record`."""

    def __init__(self, service: OrderService, recorders: dict[str, Recorder], ports: dict[str, int]) -> None:
        self.service, self.recorders, self.ports = service, recorders, ports
        self.url = service.url

    def record(self, run: OrdersRun) -> None:
        """Give ``run`` the in-process timelines (the dependencies' and the bulkhead's) on its own clock."""
        exact_timelines(run, self.service, self.recorders, self.ports)


@contextlib.asynccontextmanager
async def order_services(
    settings: OrderSettings, slow_latency: float, fast_latency: float
) -> AsyncIterator[tuple[RecordedService, Dependency, Dependency]]:
    """Payment, Inventory and an Order Service of ``settings`` on free ports, each dependency recording
    its open calls; yields ``(order service, payment, inventory)`` and closes all three on the way out."""
    recorders = {"payment": Recorder(), "inventory": Recorder()}
    async with (
        payment(slow_latency=slow_latency, latency=fast_latency, on_change=recorders["payment"]) as pay,
        inventory(latency=fast_latency, on_change=recorders["inventory"]) as inv,
        OrderService(settings, pay.url, inv.url) as service,
    ):
        ports = {"order": service.port, "payment": pay.port, "inventory": inv.port}
        yield RecordedService(service, recorders, ports), pay, inv
