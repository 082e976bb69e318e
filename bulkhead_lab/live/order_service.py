"""Lesson 004's services on real sockets: Order Service, Payment and Inventory on 127.0.0.1.

Payment answers ``POST /pay`` in 20 ms, or 3 s while switched slow; Inventory answers
``GET /stock`` in 20 ms. Order Service answers ``POST /orders`` by calling Payment and
``GET /stock`` by calling Inventory, in one of three variants (:class:`OrderSettings`):

- ``shared``: one pool of ``pool`` connections for both dependencies;
- ``separate``: a pool of ``limit`` connections each (the first bulkhead);
- ``limited``: separate pools plus a :class:`~.bulkhead.Bulkhead` of ``limit`` running
  and ``queue`` waiting around Payment; a refused order is HTTP 503
  ``{"error": "busy, try again", ...}`` at once (the second half of the pattern).

Its admin routes: ``GET /admin/bulkhead`` (404 for a variant without one),
``GET /admin/pools`` (each pool's limit and connections opened and reused) and
``POST /admin/reset``. The load that drives it from outside is :mod:`.load`.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import aiohttp
from aiohttp import web

from ..validation import check_choice, check_int
from .bulkhead import Bulkhead, BulkheadRejectedError
from .dependency import Dependency, Route
from .pools import MAX_POOL_SLOTS
from .server import LOOPBACK, LoopbackServer, Service

VARIANTS = ("shared", "separate", "limited")
FAST_LATENCY = 0.020  # seconds: Payment and Inventory on a normal day
SLOW_LATENCY = 3.0  # seconds: Payment switched slow
KEEPALIVE_TIMEOUT = 5.0  # seconds an idle kept-alive connection stays open (Node's server default)
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

    def __post_init__(self) -> None:
        check_choice("variant", self.variant, VARIANTS)
        check_int("pool", self.pool, 1, MAX_POOL_SLOTS)
        check_int("limit", self.limit, 1, MAX_POOL_SLOTS)
        check_int("queue", self.queue, 0, MAX_POOL_SLOTS)
        if not isinstance(self.keepalive, bool):
            raise ValueError(f"keepalive must be True or False (got {self.keepalive!r})")

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
        """Stop serving, then close every pool: no connection outlives the service."""
        try:
            await self.server.stop()
        finally:
            await self._close_pools()

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
        pool = self._pools[dependency]
        try:
            async with pool.session.request(method, url, trace_request_ctx={"dependency": dependency}) as r:
                body = await r.read()
                if r.status >= 400:
                    raise _Failed(f"{dependency} answered HTTP {r.status}")
                return json.loads(body or b"{}")
        except aiohttp.ClientError as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise _Failed(f"{dependency} unreachable: {reason}") from exc

    # -- routes ------------------------------------------------------------------------------
    async def _order(self, request: web.Request) -> web.Response:
        n = next(self._orders)
        try:
            if self.bulkhead is None:
                await self._call("payment", "POST", self.payment_url + "/pay")
            else:
                async with self.bulkhead:
                    await self._call("payment", "POST", self.payment_url + "/pay")
        except BulkheadRejectedError as exc:
            return web.json_response({"error": BUSY, "order": n, "bulkhead": str(exc)}, status=503)
        except _Failed as exc:
            return web.json_response({"error": str(exc), "order": n}, status=502)
        return web.json_response({"ok": True, "order": n})

    async def _stock(self, request: web.Request) -> web.Response:
        n = next(self._checks)
        try:
            await self._call("inventory", "GET", self.inventory_url + "/stock")
        except _Failed as exc:
            return web.json_response({"error": str(exc), "check": n}, status=502)
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
        """Number orders and stock checks from 1 again and zero the counters (not the places held)."""
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
    """A dependency call failed; the message is one line for the caller's 502."""
