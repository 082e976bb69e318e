"""Lesson 004's services on real sockets: Order Service, Payment and Inventory on 127.0.0.1.

Payment answers ``POST /pay`` in 20 ms, or 3 s while switched slow; Inventory answers
``GET /stock`` in 20 ms. Order Service answers ``POST /orders`` by calling Payment and
``GET /stock`` by calling Inventory, in one of four variants (:class:`OrderSettings`):

- ``shared``: one pool of ``pool`` connections for both dependencies;
- ``separate``: a pool of ``limit`` connections each (the first bulkhead);
- ``limited``: separate pools plus a :class:`~.bulkhead.Bulkhead` of ``limit`` running
  and ``queue`` waiting around Payment; a refused order is HTTP 503
  ``{"error": "busy, try again", ...}`` at once (the second half of the pattern);
- ``adaptive``: ``limited`` with a limit an adaptive limiter moves from each Payment
  call's round trip (:mod:`.adaptive`).

Each pool counts against its limit what its ``pool_rule`` says (:mod:`.socket_pools`):
connections in use (aiohttp's rule) or every socket it owns (Node's).

Every call to a dependency has a deadline (``payment_timeout``, ``inventory_timeout``,
10 s by default, well above the lesson's 3 s slowdown): the time from sending the call to
its answer, not the wait for a free connection. A call past it is HTTP 504 with one line.
An order whose client went away is cancelled at once and gives its place back.

Every answer to an order or a stock check says where its time went, in milliseconds:
``"waited_ms"`` from its arrival until its call had a connection to the dependency (the
bulkhead's queue, then the pool's wait; for a refused order, until the refusal) and
``"ran_ms"`` from then until the dependency's answer (0 when no call was made).

Its admin routes: ``GET /admin/bulkhead`` (404 for a variant without one; the counters,
the limit, an adaptive limiter's ``algorithm``, ``baseline_ms``, ``samples`` and
``drops``; with ``?timeline=1`` also ``"timeline"``: ``[t, running, queued, rejected,
limit]`` at every change, ``t`` in seconds since the service's start or reset),
``GET /admin/pools`` (each pool's rule, limit, sockets opened, reused, open now and at
most at once, calls that waited), ``GET /admin/stats`` (orders and stock checks
received) and ``POST /admin/reset`` (every order and stock check still open is answered
503 at once, so the bulkhead's places are free again, and every counter is zero). The
load that drives it from outside is :mod:`.load`.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import Any

import aiohttp
from aiohttp import web

from bulkhead_lab.live.bulkhead import Bulkhead, BulkheadRejectedError, InstrumentedBulkhead, instrumented
from bulkhead_lab.live.net.dependency import Dependency, Route
from bulkhead_lab.live.net.server import (
    LOOPBACK,
    LoopbackServer,
    Served,
    bad_request,
    error_response,
    finish,
)
from bulkhead_lab.live.orders.settings import (
    ADAPTIVE,
    ALL_VARIANTS,
    CALL_TIMEOUT,
    FAST_LATENCY,
    KEEPALIVE_TIMEOUT,
    SLOW_LATENCY,
    VARIANTS,
    DependencyName,
    LimitControl,
    OrderSettings,
    Variant,
)
from bulkhead_lab.live.orders.socket_pools import CallerPool, make_pool

__all__ = [
    "ADAPTIVE",
    "ALL_VARIANTS",
    "BUSY",
    "CALL_TIMEOUT",
    "FAST_LATENCY",
    "KEEPALIVE_TIMEOUT",
    "SLOW_LATENCY",
    "VARIANTS",
    "DependencyName",
    "OrderService",
    "OrderSettings",
    "Variant",
    "inventory",
    "payment",
]

# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/04_fail_fast_queue.ipynb, section 4. A bulkhead in code
BUSY = "busy, try again"


async def order_through(bulkhead: Bulkhead, pay: Callable[[], Awaitable[object]]) -> tuple[int, dict]:
    """One order: Payment's call inside the bulkhead; a refusal is HTTP 503 "busy, try again" at once."""
    try:
        await bulkhead.execute(pay)
    except BulkheadRejectedError as full:
        return 503, {"error": BUSY, "bulkhead": str(full)}
    return 200, {"ok": True}


# <<< saved cells


# --- Payment and Inventory ------------------------------------------------------------------


def payment(
    *, port: int = 0, slow_latency: float = SLOW_LATENCY, latency: float = FAST_LATENCY, **kw: Any
) -> Dependency:
    """Lesson 004's Payment: ``POST /pay`` in 20 ms, or ``slow_latency`` while slow.

    ``POST /admin/slow?on=1&ms=N`` also sets the slow latency (an addition to the lesson's
    protocol, so outside tests can run the lesson's scenario with a shorter slowdown).
    """
    route = Route("POST", "/pay", latency, slow_latency=slow_latency)
    return Dependency("payment", routes=[route], port=port, **kw)


def inventory(*, port: int = 0, latency: float = FAST_LATENCY, **kw: Any) -> Dependency:
    """Lesson 004's Inventory: ``GET /stock`` in 20 ms, always healthy."""
    return Dependency("inventory", routes=[Route("GET", "/stock", latency)], port=port, **kw)


# --- Order Service --------------------------------------------------------------------------


class OrderService(Served):
    """Lesson 004's Order Service for one :class:`OrderSettings`; ``async with`` starts and stops it."""

    def __init__(
        self,
        settings: OrderSettings,
        payment_url: str,
        inventory_url: str,
        *,
        port: int = 0,
        host: str = LOOPBACK,
    ) -> None:
        self.settings = settings
        self.payment_url = payment_url
        self.inventory_url = inventory_url
        self.bulkhead: InstrumentedBulkhead | None = None
        self.limit_control: LimitControl | None = None  # notebook 05's adaptive limit
        if settings.bounded:  # settings.bulkhead: notebook 04's class, or a notebook's own copy
            self.bulkhead = instrumented(settings.bulkhead)(settings.limit, settings.queue, timeline=True)
            self.limit_control = settings.limit_control(self.bulkhead)
            if self.limit_control is not None:
                self.bulkhead.reset()  # its timeline starts at the limiter's initial limit
        self._pools: dict[DependencyName, CallerPool] = {}
        self._orders = itertools.count(1)
        self._checks = itertools.count(1)
        self.received = {"orders": 0, "stock_checks": 0}
        self._open: set[asyncio.Task[web.Response]] = set()  # each open order or stock check's work
        self._ended: dict[asyncio.Task[web.Response], str] = {}  # work ended by reset or stop: why
        self.server = LoopbackServer(
            self._make_app(), port=port, host=host, name="port", service="Order Service"
        )

    async def start(self) -> None:
        """Open the pools, then bind and serve (a busy port raises with the pools closed again)."""
        s = self.settings
        sizes = s.pool_sizes()
        if s.shared:
            shared = make_pool(s.pool_rule, s.pool, s.keepalive, ("payment", "inventory"))
            self._pools = {"payment": shared, "inventory": shared}
        else:
            self._pools = {name: make_pool(s.pool_rule, sizes[name], s.keepalive, (name,)) for name in sizes}
        try:
            await self.server.start()
        except BaseException:
            await self._close_pools()
            raise

    async def stop(self) -> None:
        """Answer what is still open (503), stop serving, then close every pool.

        No handler wakes after its pool is closed, and no connection outlives the service.
        """
        try:
            await finish(self._end_open("order service is stopping"))
            await self.server.stop()
        finally:
            await self._close_pools()

    async def _end_open(self, why: str) -> None:
        """End every open order and stock check; each answers HTTP 503 with ``why``."""
        tasks = list(self._open)
        for task in tasks:
            self._ended[task] = why
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)

    async def _close_pools(self) -> None:
        pools, self._pools = self._pools, {}
        for p in {id(p): p for p in pools.values()}.values():
            await p.close()

    def bulkhead_stats(self) -> dict[str, Any] | None:
        """``GET /admin/bulkhead``'s numbers, or None for a variant without a bulkhead."""
        if self.bulkhead is None:
            return None
        stats: dict[str, Any] = self.bulkhead.stats()
        if self.limit_control is not None:
            stats |= {k: v for k, v in self.limit_control.stats().items() if k != "limit"}
        return stats

    def pool_stats(self) -> dict[str, Any]:
        """``GET /admin/pools``: each dependency's pool (:class:`~.socket_pools.PoolStats`, as JSON),
        the variant and the pool rule."""
        return {name: asdict(p.stats(name)) for name, p in self._pools.items()} | {
            "variant": self.settings.variant,
            "shared": self.settings.shared,
            "pool_rule": self.settings.pool_rule,
        }

    # -- calls out ---------------------------------------------------------------------------
    async def _call(self, dependency: DependencyName, method: str, url: str, ctx: dict[str, Any]) -> None:
        pool = self._pools.get(dependency)
        if pool is None:
            raise _Failed(503, "order service is stopping", dropped=False)
        deadline = self.settings.timeout(dependency)
        # sock_read: from the call's sending to its answer; the wait for a free connection is
        # the pool's (or the bulkhead's) and is not cut short, as in the lesson.
        timeout = aiohttp.ClientTimeout(total=None, sock_read=deadline)
        ctx["dependency"] = dependency
        try:
            async with pool.request(dependency, method, url, timeout=timeout, ctx=ctx) as r:
                status = r.status
                await r.read()
        except asyncio.TimeoutError as exc:  # aiohttp's read timeout is one
            name = f"{dependency}_timeout"
            raise _Failed(504, f"{dependency} did not answer within {deadline:g} s ({name})") from exc
        except aiohttp.ClientError as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise _Failed(502, f"{dependency} unreachable: {reason}") from exc
        if status >= 400:
            raise _Failed(502, f"{dependency} answered HTTP {status}")

    async def _answer(self, work: Awaitable[web.Response], timing: _Timing, **ids: int) -> web.Response:
        """Run ``work`` as a task this service can end (reset, stop); a client that leaves ends it too."""
        task = asyncio.ensure_future(work)
        self._open.add(task)
        try:
            return await task  # a cancelled handler (its client left) cancels the task it awaits
        except asyncio.CancelledError:
            why = self._ended.get(task)
            if why is None:
                raise
            # reset or stopping: answered, not cut off
            return error_response(503, why, **ids, **timing.fields())
        finally:
            self._open.discard(task)
            self._ended.pop(task, None)

    # -- routes ------------------------------------------------------------------------------
    async def _order(self, request: web.Request) -> web.Response:
        timing = _Timing()
        n = next(self._orders)
        self.received["orders"] += 1
        return await self._answer(self._place_order(n, timing), timing, order=n)

    async def _place_order(self, n: int, timing: _Timing) -> web.Response:
        url = self.payment_url + "/pay"
        status, body = 200, {"ok": True}
        try:
            if self.bulkhead is None:
                await self._call("payment", "POST", url, timing.ctx)
            else:
                status, body = await order_through(self.bulkhead, lambda: self._limited_call(url, timing))
        except _Failed as exc:
            return error_response(exc.status, str(exc), order=n, **timing.fields())
        return web.json_response({**body, "order": n, **timing.fields()}, status=status)

    async def _limited_call(self, url: str, timing: _Timing) -> None:
        """One Payment call holding a bulkhead place; an adaptive limit hears how it ended."""
        if self.limit_control is None:
            await self._call("payment", "POST", url, timing.ctx)
            return
        admitted = self.limit_control.admitted()
        try:
            await self._call("payment", "POST", url, timing.ctx)
        except _Failed as exc:
            if exc.dropped:
                self.limit_control.ended(admitted, dropped=True)
            raise
        self.limit_control.ended(admitted)  # a cancelled call (client left, reset) is no sample

    async def _stock(self, request: web.Request) -> web.Response:
        timing = _Timing()
        n = next(self._checks)
        self.received["stock_checks"] += 1
        return await self._answer(self._check_stock(n, timing), timing, check=n)

    async def _check_stock(self, n: int, timing: _Timing) -> web.Response:
        try:
            await self._call("inventory", "GET", self.inventory_url + "/stock", timing.ctx)
        except _Failed as exc:
            return error_response(exc.status, str(exc), check=n, **timing.fields())
        return web.json_response({"ok": True, "check": n, **timing.fields()})

    async def _bulkhead(self, request: web.Request) -> web.Response:
        stats = self.bulkhead_stats()
        if stats is None or self.bulkhead is None:
            return web.json_response(
                {"error": f"variant {self.settings.variant} has no bulkhead"}, status=404
            )
        flag = request.query.get("timeline", "0")
        if flag not in ("0", "1"):
            return bad_request(f"timeline must be 1 or 0 (got {flag!r})")
        if flag == "1":
            stats["timeline"] = [[round(p.t, 6), *p[1:]] for p in self.bulkhead.timeline]
            stats["truncated"] = self.bulkhead.truncated
        return web.json_response(stats)

    async def _pools_route(self, request: web.Request) -> web.Response:
        return web.json_response(self.pool_stats())

    async def _stats(self, request: web.Request) -> web.Response:
        return web.json_response(dict(self.received))

    async def _reset(self, request: web.Request) -> web.Response:
        """Back to the start state: every open order and stock check answered 503 (so every place
        and connection is free again), orders and stock checks numbered from 1, counters zero,
        an adaptive limit back at its start."""
        await self._end_open("order service was reset while this request was open")
        self._orders = itertools.count(1)
        self._checks = itertools.count(1)
        self.received = {"orders": 0, "stock_checks": 0}
        if self.limit_control is not None:
            self.limit_control.restart()
        if self.bulkhead is not None:
            self.bulkhead.reset()
        for p in self._pools.values():
            p.reset()
        return web.json_response({"variant": self.settings.variant})

    def _make_app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/orders", self._order)
        app.router.add_get("/stock", self._stock)
        app.router.add_get("/admin/bulkhead", self._bulkhead)
        app.router.add_get("/admin/pools", self._pools_route)
        app.router.add_get("/admin/stats", self._stats)
        app.router.add_post("/admin/reset", self._reset)
        return app


class _Timing:
    """One request's moments: its arrival, and when its call had a connection (set by the pool's trace)."""

    def __init__(self) -> None:
        self.arrived = time.monotonic()
        self.ctx: dict[str, Any] = {}  # the call's trace_request_ctx: "dependency", "connected"

    def fields(self) -> dict[str, float]:
        """``waited_ms`` (arrival to connection, or to now without one) and ``ran_ms`` (connection to now)."""
        now = time.monotonic()
        connected = self.ctx.get("connected")
        if connected is None:
            return {"waited_ms": _ms(now - self.arrived), "ran_ms": 0.0}
        return {"waited_ms": _ms(connected - self.arrived), "ran_ms": _ms(now - connected)}


def _ms(seconds: float) -> float:
    return round(max(seconds, 0.0) * 1000, 1)


class _Failed(Exception):
    """A dependency call failed; ``status`` (502, 503 or 504) and a one-line message for the caller.
    ``dropped``: a failure an adaptive limit hears as a drop (not the service stopping)."""

    def __init__(self, status: int, message: str, *, dropped: bool = True) -> None:
        super().__init__(message)
        self.status = status
        self.dropped = dropped
