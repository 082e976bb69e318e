"""Lesson 004's services on real sockets: Order Service, Payment and Inventory on 127.0.0.1.

Payment answers ``POST /pay`` in 20 ms, or 3 s while switched slow; Inventory answers
``GET /stock`` in 20 ms. Order Service answers ``POST /orders`` by calling Payment and
``GET /stock`` by calling Inventory, in one of three variants (:class:`OrderSettings`):

- ``shared``: one pool of ``pool`` connections for both dependencies;
- ``separate``: a pool of ``limit`` connections each (the first bulkhead);
- ``limited``: separate pools plus a :class:`~.bulkhead.Bulkhead` of ``limit`` running
  and ``queue`` waiting around Payment; a refused order is HTTP 503
  ``{"error": "busy, try again", ...}`` at once (the second half of the pattern).

Every call to a dependency has a deadline (``payment_timeout``, ``inventory_timeout``,
10 s by default, well above the lesson's 3 s slowdown): the time from sending the call to
its answer, not the wait for a free connection. A call past it is HTTP 504 with one line.
An order whose client went away is cancelled at once and gives its place back.

Its admin routes: ``GET /admin/bulkhead`` (404 for a variant without one),
``GET /admin/pools`` (each pool's limit and connections opened and reused) and
``POST /admin/reset`` (every order and stock check still open is answered 503 at once,
so the bulkhead's places are free again, and every counter is zero). The load that
drives it from outside is :mod:`.load`.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import aiohttp
from aiohttp import web

from ..validation import check_choice, check_int, check_real
from .bulkhead import Bulkhead, BulkheadRejectedError
from .dependency import MAX_DEPENDENCY_LATENCY, Dependency, Route
from .pools import MAX_POOL_SLOTS
from .server import LOOPBACK, LoopbackServer, Service, _finish, error_response

VARIANTS = ("shared", "separate", "limited")
FAST_LATENCY = 0.020  # seconds: Payment and Inventory on a normal day
SLOW_LATENCY = 3.0  # seconds: Payment switched slow
KEEPALIVE_TIMEOUT = 5.0  # seconds an idle kept-alive connection stays open (Node's server default)
CALL_TIMEOUT = 10.0  # seconds: a dependency call's default deadline, well above the 3 s slowdown
BUSY = "busy, try again"


# --- the settings of one Order Service ----------------------------------------------------


@dataclass(frozen=True)
class OrderSettings:
    """Which variant, and its sizes; every bad value is a one-line :class:`ValueError`."""

    variant: str = "limited"
    pool: int = 10  # shared: connections for both dependencies
    limit: int = 5  # separate/limited: connections per dependency, and the bulkhead's running places
    queue: int = 5  # limited: the bulkhead's waiting places
    keepalive: bool = False  # keep idle connections open for KEEPALIVE_TIMEOUT
    payment_timeout: float = CALL_TIMEOUT  # seconds a Payment call may take once sent (then 504)
    inventory_timeout: float = CALL_TIMEOUT  # the same for Inventory

    def __post_init__(self) -> None:
        check_choice("variant", self.variant, VARIANTS)
        check_int("pool", self.pool, 1, MAX_POOL_SLOTS)
        check_int("limit", self.limit, 1, MAX_POOL_SLOTS)
        check_int("queue", self.queue, 0, MAX_POOL_SLOTS)
        if not isinstance(self.keepalive, bool):
            raise ValueError(f"keepalive must be True or False (got {self.keepalive!r})")
        for name in ("payment_timeout", "inventory_timeout"):
            check_real(name, getattr(self, name), 0.0, MAX_DEPENDENCY_LATENCY, low_open=True)

    def timeout(self, dependency: str) -> float:
        """The deadline of a call to ``dependency`` ("payment" or "inventory"), in seconds."""
        return self.payment_timeout if dependency == "payment" else self.inventory_timeout

    def slots(self) -> int:
        """Connections the Order Service may hold to its dependencies at once."""
        return self.pool if self.variant == "shared" else 2 * self.limit

    def describe(self) -> str:
        """One line, e.g. ``limited: pools of 5 + 5, bulkhead 5 running + 5 waiting around Payment``."""
        ka = ", keep-alive" if self.keepalive else ""
        if self.variant == "shared":
            return f"shared: one pool of {self.pool} for Payment and Inventory{ka}"
        text = f"{self.variant}: pools of {self.limit} + {self.limit}{ka}"
        if self.variant == "limited":
            text += f", bulkhead {self.limit} running + {self.queue} waiting around Payment"
        return text


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


class _Pool:
    """One caller pool (a ClientSession over a TCPConnector) and a count of the connections it opened."""

    def __init__(self, limit: int, keepalive: bool) -> None:
        self.limit = limit
        self.opened: dict[str, int] = {"payment": 0, "inventory": 0}
        self.reused: dict[str, int] = {"payment": 0, "inventory": 0}
        trace = aiohttp.TraceConfig()
        trace.on_connection_create_end.append(self._count(self.opened))
        trace.on_connection_reuseconn.append(self._count(self.reused))
        if keepalive:
            connector = aiohttp.TCPConnector(limit=limit, keepalive_timeout=KEEPALIVE_TIMEOUT)
        else:
            connector = aiohttp.TCPConnector(limit=limit, force_close=True)
        self.session = aiohttp.ClientSession(
            connector=connector, timeout=aiohttp.ClientTimeout(total=None), trace_configs=[trace]
        )

    @staticmethod
    def _count(tally: dict[str, int]) -> Callable[..., Any]:
        async def on_event(session: Any, ctx: SimpleNamespace, params: Any) -> None:
            name = (ctx.trace_request_ctx or {}).get("dependency")
            if name in tally:
                tally[name] += 1

        return on_event

    def reset(self) -> None:
        for tally in (self.opened, self.reused):
            for name in tally:
                tally[name] = 0


class OrderService(Service):
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
        self.bulkhead = Bulkhead(settings.limit, settings.queue) if settings.variant == "limited" else None
        self._pools: dict[str, _Pool] = {}
        self._orders = itertools.count(1)
        self._checks = itertools.count(1)
        self._open: set[asyncio.Task[web.Response]] = set()  # each open order or stock check's work
        self._ended: dict[asyncio.Task[web.Response], str] = {}  # work ended by reset or stop: why
        self.server = LoopbackServer(self._make_app(), port=port, host=host, name="port")

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def port(self) -> int:
        return self.server.port

    async def start(self) -> None:
        """Open the pools, then bind and serve (a busy port raises with the pools closed again)."""
        s = self.settings
        if s.variant == "shared":
            shared = _Pool(s.pool, s.keepalive)
            self._pools = {"payment": shared, "inventory": shared}
        else:
            self._pools = {"payment": _Pool(s.limit, s.keepalive), "inventory": _Pool(s.limit, s.keepalive)}
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
            await _finish(self._end_open("order service is stopping"))
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
            await p.session.close()

    def bulkhead_stats(self) -> dict[str, int] | None:
        """``GET /admin/bulkhead``'s numbers, or None for a variant without a bulkhead."""
        return None if self.bulkhead is None else self.bulkhead.stats()

    def pool_stats(self) -> dict[str, Any]:
        """Each dependency's pool limit and the connections opened to it and reused."""
        return {
            name: {"limit": p.limit, "opened": p.opened[name], "reused": p.reused[name]}
            for name, p in self._pools.items()
        } | {"variant": self.settings.variant, "shared": self.settings.variant == "shared"}

    # -- calls out ---------------------------------------------------------------------------
    async def _call(self, dependency: str, method: str, url: str) -> dict[str, Any]:
        pool = self._pools.get(dependency)
        if pool is None:
            raise _Failed(503, "order service is stopping")
        deadline = self.settings.timeout(dependency)
        # sock_read: from the call's sending to its answer; the wait for a free connection is
        # the pool's (or the bulkhead's) and is not cut short, as in the lesson.
        timeout = aiohttp.ClientTimeout(total=None, sock_read=deadline)
        ctx = {"dependency": dependency}
        try:
            async with pool.session.request(method, url, timeout=timeout, trace_request_ctx=ctx) as r:
                body = await r.read()
                if r.status >= 400:
                    raise _Failed(502, f"{dependency} answered HTTP {r.status}")
                return json.loads(body or b"{}")
        except asyncio.TimeoutError as exc:  # aiohttp's read timeout is one
            name = f"{dependency}_timeout"
            raise _Failed(504, f"{dependency} did not answer within {deadline:g} s ({name})") from exc
        except aiohttp.ClientError as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise _Failed(502, f"{dependency} unreachable: {reason}") from exc

    async def _answer(self, work: Awaitable[web.Response], **ids: int) -> web.Response:
        """Run ``work`` as a task this service can end (reset, stop); a client that leaves ends it too."""
        task = asyncio.ensure_future(work)
        self._open.add(task)
        try:
            return await task  # a cancelled handler (its client left) cancels the task it awaits
        except asyncio.CancelledError:
            why = self._ended.get(task)
            if why is None:
                raise
            return error_response(503, why, **ids)  # reset or stopping: answered, not cut off
        finally:
            self._open.discard(task)
            self._ended.pop(task, None)

    # -- routes ------------------------------------------------------------------------------
    async def _order(self, request: web.Request) -> web.Response:
        n = next(self._orders)
        return await self._answer(self._place_order(n), order=n)

    async def _place_order(self, n: int) -> web.Response:
        try:
            if self.bulkhead is None:
                await self._call("payment", "POST", self.payment_url + "/pay")
            else:
                async with self.bulkhead:
                    await self._call("payment", "POST", self.payment_url + "/pay")
        except BulkheadRejectedError as exc:
            return web.json_response({"error": BUSY, "order": n, "bulkhead": str(exc)}, status=503)
        except _Failed as exc:
            return error_response(exc.status, str(exc), order=n)
        return web.json_response({"ok": True, "order": n})

    async def _stock(self, request: web.Request) -> web.Response:
        n = next(self._checks)
        return await self._answer(self._check_stock(n), check=n)

    async def _check_stock(self, n: int) -> web.Response:
        try:
            await self._call("inventory", "GET", self.inventory_url + "/stock")
        except _Failed as exc:
            return error_response(exc.status, str(exc), check=n)
        return web.json_response({"ok": True, "check": n})

    async def _bulkhead(self, request: web.Request) -> web.Response:
        stats = self.bulkhead_stats()
        if stats is None:
            return web.json_response(
                {"error": f"variant {self.settings.variant} has no bulkhead"}, status=404
            )
        return web.json_response(stats)

    async def _pools_route(self, request: web.Request) -> web.Response:
        return web.json_response(self.pool_stats())

    async def _reset(self, request: web.Request) -> web.Response:
        """Back to the start state: every open order and stock check answered 503 (so every place
        and connection is free again), orders and stock checks numbered from 1, counters zero."""
        await self._end_open("order service was reset while this request was open")
        self._orders = itertools.count(1)
        self._checks = itertools.count(1)
        if self.bulkhead is not None:
            self.bulkhead.rejected = 0
        for p in self._pools.values():
            p.reset()
        return web.json_response({"variant": self.settings.variant})

    def _make_app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/orders", self._order)
        app.router.add_get("/stock", self._stock)
        app.router.add_get("/admin/bulkhead", self._bulkhead)
        app.router.add_get("/admin/pools", self._pools_route)
        app.router.add_post("/admin/reset", self._reset)
        return app


class _Failed(Exception):
    """A dependency call failed; ``status`` (502, 503 or 504) and a one-line message for the caller."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
