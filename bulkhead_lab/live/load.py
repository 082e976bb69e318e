"""Lesson 004's load from outside: ``load.js`` and the measuring half of ``check.js``.

:func:`drive` switches Payment slow, sends ``orders`` orders at once and ``stock_checks``
stock checks a moment later to a running Order Service, and records every answer as a
:class:`RequestResult` in an :class:`OrdersRun`, with what Payment, Inventory and the
bulkhead reported. :func:`run_orders` starts Payment, Inventory and Order Service on
free ports, drives them once and stops them. A *wave* is the orders Payment serves
together in one stretch of its latency: :meth:`OrdersRun.served_waves` counts them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from ..validation import check_int, check_real
from .order_service import (
    CALL_TIMEOUT,
    FAST_LATENCY,
    SLOW_LATENCY,
    OrderService,
    OrderSettings,
    inventory,
    payment,
)
from .server import Progress, check_fd_budget, check_planned

MAX_REQUESTS = 10_000  # per stream in one drive
MAX_SLOW_LATENCY = 60.0  # seconds: the longest slowdown of Payment a run asks for
MAX_STOCK_DELAY = 60.0  # seconds between sending the orders and the stock checks
_POLL = 0.01  # seconds between two readings of /admin/bulkhead while waiting for it to be busy


@dataclass(frozen=True)
class RequestResult:
    """One answer as the outside client saw it; times in seconds from the drive's start."""

    kind: str  # "order" or "stock"
    index: int  # the client's sending order, from 1
    status: int  # HTTP status, or 0 when no answer came (connection failed)
    latency: float
    start: float
    end: float
    body: dict[str, Any] = field(default_factory=dict)

    @property
    def outcome(self) -> str:
        """served, refused (503), failed (other status) or no answer."""
        if self.status == 200:
            return "served"
        if self.status == 503:
            return "refused"
        return "failed" if self.status else "no answer"


@dataclass
class OrdersRun:
    """One drive of the Order Service: every answer, what Payment and Inventory saw, the bulkhead."""

    variant: str
    settings: OrderSettings | None
    slow: bool
    slow_latency: float | None
    requests: list[RequestResult]
    payment: dict[str, int]
    inventory: dict[str, int]
    bulkhead_busy: dict[str, int] | None  # /admin/bulkhead while the orders were in flight
    bulkhead_after: dict[str, int] | None
    pools: dict[str, Any] | None
    duration: float
    stock_delay: float
    timelines: dict[str, list[tuple[float, int]]] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)

    def of(self, kind: str) -> list[RequestResult]:
        return [r for r in self.requests if r.kind == kind]

    @property
    def orders(self) -> list[RequestResult]:
        return self.of("order")

    @property
    def stock_checks(self) -> list[RequestResult]:
        return self.of("stock")

    def count(self, outcome: str, kind: str = "order") -> int:
        return sum(r.outcome == outcome for r in self.of(kind))

    @property
    def served(self) -> int:
        return self.count("served")

    @property
    def refused(self) -> int:
        return self.count("refused")

    def refused_arrivals(self) -> list[int]:
        """Which orders were refused, numbered by their arrival at Order Service (1 = first)."""
        return sorted(int(r.body.get("order", 0)) for r in self.orders if r.outcome == "refused")

    def slowest(self, kind: str, outcome: str | None = None) -> float:
        """The longest latency of that kind (and outcome), in seconds; 0 when there is none."""
        times = [r.latency for r in self.of(kind) if outcome is None or r.outcome == outcome]
        return max(times, default=0.0)

    def served_waves(self, slow_latency: float | None = None) -> dict[int, int]:
        """How many orders were served in Payment's 1st, 2nd, 3rd ... slow wave.

        A wave is a group of orders answered together: a gap of more than half the slow
        latency between two answers starts the next one (counting by gaps, not by dividing
        latencies, so each wave's few milliseconds of overhead never add up to a wrong wave).
        ``slow_latency``: Payment's slowdown when the run did not set it (a server's default).
        """
        latency = slow_latency if slow_latency is not None else self.slow_latency
        if not self.slow or not latency:
            return {}
        ends = sorted(r.end for r in self.orders if r.outcome == "served")
        waves: dict[int, int] = {}
        k, last = 0, -float("inf")
        for end in ends:
            if end - last > latency / 2:
                k += 1
            waves[k] = waves.get(k, 0) + 1
            last = end
        return waves


async def _json(session: aiohttp.ClientSession, method: str, url: str) -> dict[str, Any]:
    """An admin call's JSON answer; a refused or failed call is a one-line RuntimeError."""
    try:
        async with session.request(method, url) as r:
            text = await r.text()
    except aiohttp.ClientError as exc:
        reason = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise RuntimeError(f"{method} {url} failed: {reason}") from None
    if r.status >= 400:
        raise RuntimeError(f"{method} {url} answered HTTP {r.status}: {text.strip()}")
    return json.loads(text)


async def _send(
    session: aiohttp.ClientSession, kind: str, index: int, method: str, url: str, t0: float
) -> RequestResult:
    start = time.monotonic()
    status, body = 0, {}
    try:
        async with session.request(method, url) as r:
            status = r.status
            try:
                body = await r.json(content_type=None)
            except ValueError:
                body = {"error": "not JSON"}
    except aiohttp.ClientError as exc:
        body = {"error": (str(exc).splitlines() or [type(exc).__name__])[0]}
    end = time.monotonic()
    return RequestResult(kind, index, status, end - start, start - t0, end - t0, body)


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
) -> OrdersRun:
    """Lesson 004's load from outside: Payment slow (or not), ``orders`` orders at once and
    ``stock_checks`` stock checks ``stock_delay`` seconds later; every answer recorded.

    ``slow_latency`` (seconds, optional) sets Payment's slowdown through ``/admin/slow?ms=``.
    Payment is switched back to normal at the end, whatever happened.
    """
    orders = check_int("orders", orders, 0, MAX_REQUESTS)
    stock_checks = check_int("stock_checks", stock_checks, 0, MAX_REQUESTS)
    stock_delay = check_real("stock_delay", stock_delay, 0.0, MAX_STOCK_DELAY)
    if slow_latency is not None:
        check_real("slow_latency", slow_latency, 0.0, MAX_SLOW_LATENCY)
    total = orders + stock_checks
    check_fd_budget(f"orders + stock_checks = {total}", total + 4)  # this side's end of each connection
    connector = aiohttp.TCPConnector(limit=0, force_close=True)  # the client itself is never the limit
    async with aiohttp.ClientSession(
        connector=connector, timeout=aiohttp.ClientTimeout(total=timeout)
    ) as client:
        for url in (payment_url, inventory_url, order_url):  # each back to its start state
            await _json(client, "POST", url + "/admin/reset")
        try:
            if slow:
                slow_url = f"{payment_url}/admin/slow?on=1"
                if slow_latency is not None:
                    slow_url += f"&ms={round(slow_latency * 1000)}"
                await _json(client, "POST", slow_url)
            done = 0

            async def send(kind: str, index: int, method: str, path: str) -> RequestResult:
                nonlocal done
                result = await _send(client, kind, index, method, order_url + path, t0)
                done += 1
                if on_progress is not None:
                    on_progress(done, total)
                return result

            t0 = time.monotonic()
            tasks: list[asyncio.Task[RequestResult]] = []
            try:
                tasks += [asyncio.create_task(send("order", i + 1, "POST", "/orders")) for i in range(orders)]
                await asyncio.sleep(stock_delay)
                tasks += [
                    asyncio.create_task(send("stock", i + 1, "GET", "/stock")) for i in range(stock_checks)
                ]
                busy = await _bulkhead_when_busy(client, order_url, tasks[:orders], timeout)
                results = await asyncio.gather(*tasks)
            except BaseException:
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                raise
            duration = time.monotonic() - t0
            payment = await _stats(client, payment_url)
            inv = await _stats(client, inventory_url)
            after = await _bulkhead(client, order_url)
            pools = await _json(client, "GET", order_url + "/admin/pools")
        finally:
            with contextlib.suppress(aiohttp.ClientError, RuntimeError):  # Payment may be gone
                await _json(client, "POST", f"{payment_url}/admin/slow?on=0")
    variant = str(pools.get("variant", "?"))
    return OrdersRun(
        variant=variant,
        settings=None,
        slow=slow,
        slow_latency=slow_latency,
        requests=list(results),
        payment=payment,
        inventory=inv,
        bulkhead_busy=busy,
        bulkhead_after=after,
        pools=pools,
        duration=duration,
        stock_delay=stock_delay,
    )


async def _stats(client: aiohttp.ClientSession, url: str) -> dict[str, Any]:
    """A dependency's ``/admin/stats``, or ``{"error": ...}`` if it is gone (killed mid-run)."""
    try:
        return await _json(client, "GET", url + "/admin/stats")
    except (aiohttp.ClientError, RuntimeError) as exc:
        return {"error": (str(exc).splitlines() or [type(exc).__name__])[0]}


async def _bulkhead_when_busy(
    client: aiohttp.ClientSession,
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
        stats = await _bulkhead(client, order_url)
        if stats is None:
            return None  # a variant without a bulkhead
        answered = [t.result() for t in orders if t.done()]
        if len(answered) == len(orders) or time.monotonic() >= deadline:
            return stats
        reached = stats["running"] + stats["queued"] + stats["rejected"]
        reached += sum(r.outcome != "refused" for r in answered)  # refusals are in "rejected" already
        if stats["executionSlots"] == 0 and reached >= len(orders):
            return stats
        await asyncio.sleep(_POLL)


async def _bulkhead(client: aiohttp.ClientSession, order_url: str) -> dict[str, int] | None:
    """``/admin/bulkhead``, or None for a variant without one; a failed call is a one-line RuntimeError."""
    url = order_url + "/admin/bulkhead"
    try:
        async with client.get(url) as r:
            if r.status == 404:
                return None
            if r.status >= 400:
                raise RuntimeError(f"GET {url} answered HTTP {r.status}: {(await r.text()).strip()}")
            return await r.json()
    except aiohttp.ClientError as exc:
        reason = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise RuntimeError(f"GET {url} failed: {reason}") from None


def planned_seconds(settings: OrderSettings, orders: int, latency: float) -> tuple[float, str]:
    """How long Payment needs for ``orders`` at ``latency`` under ``settings``, and the sum in words.

    ``ceil(orders served / places) x latency``: the pool (or the bulkhead's running places)
    serves its orders in waves; the bulkhead serves at most ``limit + queue`` of a burst and
    refuses the rest at once. A call never lasts past ``payment_timeout``.
    """
    call = min(latency, settings.payment_timeout)
    places = settings.pool if settings.variant == "shared" else settings.limit
    served = min(orders, settings.limit + settings.queue) if settings.variant == "limited" else orders
    waves = math.ceil(served / places)
    unit = "connections" if settings.variant != "limited" else "places"
    return waves * call, f"ceil({served} orders / {places} {unit}) x {call:g} s"


def run_sockets(settings: OrderSettings, requests: int) -> int:
    """File descriptors a run holds at once: both ends of every client request and of every pool
    connection, three listening sockets and the admin calls' few."""
    return 2 * requests + 2 * settings.slots() + 8


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
) -> OrdersRun:
    """Start Payment, Inventory and Order Service on free ports, drive them once, stop them.

    The defaults are the lesson's run: ``limited`` (5 running, 5 waiting), Payment slow at
    3 s, 20 orders at once and 10 stock checks 100 ms later. Nothing stays listening after
    it returns, raises or is cancelled.

    Every value is checked before anything starts. A Payment call longer than
    ``payment_timeout`` is answered 504. A run planned to take over two minutes
    (:func:`planned_seconds`) needs ``allow_long=True``; one that needs more sockets than
    ``ulimit -n`` allows is refused with one line saying how to raise it.
    """
    settings = OrderSettings(variant, pool, limit, queue, keepalive, payment_timeout=payment_timeout)
    check_real("slow_latency", slow_latency, 0.0, MAX_SLOW_LATENCY)
    check_real("fast_latency", fast_latency, 0.0, MAX_SLOW_LATENCY)
    orders = check_int("orders", orders, 0, MAX_REQUESTS)
    stock_checks = check_int("stock_checks", stock_checks, 0, MAX_REQUESTS)
    stock_delay = check_real("stock_delay", stock_delay, 0.0, MAX_STOCK_DELAY)
    latency = slow_latency if slow else fast_latency
    seconds, how = planned_seconds(settings, orders, latency)
    check_planned(stock_delay + seconds, how, allow_long)
    check_fd_budget(
        f"orders + stock_checks = {orders + stock_checks}", run_sockets(settings, orders + stock_checks)
    )
    async with (
        payment(slow_latency=slow_latency, latency=fast_latency, timeline=True) as pay,
        inventory(latency=fast_latency, timeline=True) as inv,
        OrderService(settings, pay.url, inv.url) as service,
    ):
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
            timeout=max(120.0, 4 * (orders + 1) * slow_latency),
        )
        run.timelines = {"payment": list(pay.timeline), "inventory": list(inv.timeline)}
        run.ports = {"order": service.port, "payment": pay.port, "inventory": inv.port}
    run.variant = variant
    run.settings = settings
    return run
