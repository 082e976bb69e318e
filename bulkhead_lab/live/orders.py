"""Lesson 004 on real sockets: Order Service, Payment and Inventory on 127.0.0.1.

Payment answers ``POST /pay`` in 20 ms, or 3 s while switched slow; Inventory answers
``GET /stock`` in 20 ms. Order Service answers ``POST /orders`` by calling Payment and
``GET /stock`` by calling Inventory, in one of three variants:

- ``shared``: one pool of ``pool`` connections for both dependencies;
- ``separate``: a pool of ``limit`` connections each (the first bulkhead);
- ``limited``: separate pools plus a :class:`~.bulkhead.Bulkhead` of ``limit`` running
  and ``queue`` waiting around Payment; a refused order is HTTP 503
  ``{"error": "busy, try again", ...}`` at once (the second half of the pattern).

:func:`drive` is lesson 004's ``load.js``/``check.js``: from outside, it switches Payment
slow, sends ``orders`` orders at once and ``stock_checks`` stock checks a moment later,
and records every answer. :func:`run_orders` starts all three services on free ports,
drives them once and stops them; :func:`check_orders` applies check.js's four checks to
a run; :func:`serve_main` is ``python -m bulkhead_lab serve-orders``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import math
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, NamedTuple

import aiohttp
from aiohttp import web

from ..validation import check_choice, check_int, check_real
from .bulkhead import Bulkhead, BulkheadRejectedError
from .dependency import LOOPBACK, Dependency, LoopbackServer, Route, Service, check_host, check_port

VARIANTS = ("shared", "separate", "limited")
MAX_SLOTS = 1000  # connections or bulkhead places; more is no longer a limit worth the name
MAX_REQUESTS = 10_000  # per stream in one drive
FAST_LATENCY = 0.020  # seconds: Payment and Inventory on a normal day
SLOW_LATENCY = 3.0  # seconds: Payment switched slow
MAX_LATENCY = 60.0
KEEPALIVE_TIMEOUT = 5.0  # seconds an idle kept-alive connection stays open (Node's server default)
BUSY = "busy, try again"

Progress = Callable[[int, int], None]


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
        check_int("pool", self.pool, 1, MAX_SLOTS)
        check_int("limit", self.limit, 1, MAX_SLOTS)
        check_int("queue", self.queue, 0, MAX_SLOTS)
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


# --- the load: lesson 004's load.js / check.js, from outside ---------------------------------


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

    def served_rounds(self) -> dict[int, int]:
        """How many orders were served in Payment's 1st, 2nd, 3rd ... slow round.

        A round is a group of orders answered together: a gap of more than half the slow
        latency between two answers starts the next one (counting by gaps, not by dividing
        latencies, so each round's few milliseconds of overhead never add up to a wrong round).
        """
        if not self.slow or not self.slow_latency:
            return {}
        ends = sorted(r.end for r in self.orders if r.outcome == "served")
        rounds: dict[int, int] = {}
        k, last = 0, -float("inf")
        for end in ends:
            if end - last > self.slow_latency / 2:
                k += 1
            rounds[k] = rounds.get(k, 0) + 1
            last = end
        return rounds


async def _json(session: aiohttp.ClientSession, method: str, url: str) -> dict[str, Any]:
    async with session.request(method, url) as r:
        text = await r.text()
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
    stock_delay = check_real("stock_delay", stock_delay, 0.0, MAX_LATENCY)
    if slow_latency is not None:
        check_real("slow_latency", slow_latency, 0.0, MAX_LATENCY)
    total = orders + stock_checks
    connector = aiohttp.TCPConnector(limit=0, force_close=True)  # the client itself is never the limit
    async with aiohttp.ClientSession(
        connector=connector, timeout=aiohttp.ClientTimeout(total=timeout)
    ) as client:
        slow_url = f"{payment_url}/admin/slow?on={int(slow)}"
        if slow_latency is not None:
            slow_url += f"&ms={round(slow_latency * 1000)}"
        await _json(client, "POST", slow_url)
        try:
            for url in (payment_url, inventory_url, order_url):
                await _json(client, "POST", url + "/admin/reset")
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
                await asyncio.sleep(0.05)
                busy = await _bulkhead(client, order_url)
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


async def _bulkhead(client: aiohttp.ClientSession, order_url: str) -> dict[str, int] | None:
    async with client.get(order_url + "/admin/bulkhead") as r:
        if r.status == 404:
            return None
        return await r.json()


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
    on_progress: Progress | None = None,
) -> OrdersRun:
    """Start Payment, Inventory and Order Service on free ports, drive them once, stop them.

    The defaults are the lesson's run: ``limited`` (5 running, 5 waiting), Payment slow at
    3 s, 20 orders at once and 10 stock checks 100 ms later. Nothing stays listening after
    it returns, raises or is cancelled.
    """
    settings = OrderSettings(variant, pool, limit, queue, keepalive)
    check_real("slow_latency", slow_latency, 0.0, MAX_LATENCY)
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


# --- check.js's four checks -----------------------------------------------------------------


class Check(NamedTuple):
    """One of check.js's checks: what it checks, whether it passed, and the measured value."""

    check: str
    passed: bool
    measured: str


def check_orders(
    run: OrdersRun, *, stock_under: float = 0.3, peak_at_most: int = 5, refusal_under: float = 0.2
) -> list[Check]:
    """check.js against one run: stock checks fast, Payment's peak bounded, some orders refused,
    refusals fast. (With no refusals the last check has nothing to fail, as in check.js.)"""
    refusals = [r.latency for r in run.orders if r.outcome == "refused"]
    slowest_stock = run.slowest("stock")
    return [
        Check(
            f"stock checks stay under {stock_under * 1000:.0f} ms",
            bool(run.stock_checks) and slowest_stock < stock_under,
            f"slowest {slowest_stock * 1000:.0f} ms",
        ),
        Check(
            f"Payment never handles more than {peak_at_most} calls at once",
            "peak" in run.payment and run.payment["peak"] <= peak_at_most,
            f"peak {run.payment.get('peak', 'unknown: ' + str(run.payment.get('error')))}",
        ),
        Check("some orders are refused", bool(refusals), f"{len(refusals)} refused"),
        Check(
            f"refused orders are answered in under {refusal_under * 1000:.0f} ms",
            all(t < refusal_under for t in refusals),
            f"slowest refusal {max(refusals) * 1000:.0f} ms" if refusals else "no refusals",
        ),
    ]


# --- the keep-alive experiment --------------------------------------------------------------


@dataclass(frozen=True)
class KeepaliveFacts:
    """What the shared pool did with keep-alive on and Payment healthy."""

    pool_limit: int
    payment_opened: int
    payment_reused: int
    inventory_opened: int
    kept_open: int  # sockets open at once after the stock checks (none idle out within the run)
    slowest_order: float
    slowest_stock: float

    @property
    def idle_counted(self) -> bool:
        """Did idle keep-alive connections hold stock checks back (Node's behaviour in the lesson)?"""
        return self.kept_open <= self.pool_limit and self.slowest_stock >= 1.0


def keepalive_facts(run: OrdersRun) -> KeepaliveFacts:
    """Read the keep-alive experiment's facts from a ``shared``, keep-alive, healthy run."""
    if run.settings is None or run.pools is None or not run.pools.get("shared"):
        raise ValueError("run must be a shared-pool run from run_orders (got another)")
    if run.duration >= KEEPALIVE_TIMEOUT:
        raise ValueError(f"run must last under {KEEPALIVE_TIMEOUT:g} s so no idle socket expires")
    p, i = run.pools["payment"], run.pools["inventory"]
    return KeepaliveFacts(
        pool_limit=p["limit"],
        payment_opened=p["opened"],
        payment_reused=p["reused"],
        inventory_opened=i["opened"],
        kept_open=p["opened"] + i["opened"],
        slowest_order=run.slowest("order"),
        slowest_stock=run.slowest("stock"),
    )


# --- python -m bulkhead_lab serve-orders ----------------------------------------------------


def check_serve_args(ns: argparse.Namespace) -> OrderSettings:
    """Refuse a bad ``serve-orders`` value with one line; return the Order Service settings."""
    check_host(ns.host)
    ports = {
        "port": check_port("port", ns.port),
        "payment_port": check_port("payment_port", ns.payment_port),
        "inventory_port": check_port("inventory_port", ns.inventory_port),
    }
    fixed = [p for p in ports.values() if p]
    if len(set(fixed)) != len(fixed):
        raise ValueError(f"ports must differ (got {', '.join(f'{k} {v}' for k, v in ports.items())})")
    return OrderSettings(ns.variant, ns.pool, ns.limit, ns.queue, bool(ns.keepalive))


async def serve_orders(
    settings: OrderSettings,
    *,
    host: str = LOOPBACK,
    port: int = 3001,
    payment_port: int = 3002,
    inventory_port: int = 3003,
    ready: Callable[[str], None] = print,
    stop: asyncio.Event | None = None,
) -> None:
    """Serve Payment, Inventory and Order Service until ``stop`` is set (or forever)."""
    async with (
        payment(port=payment_port, host=host) as pay,
        inventory(port=inventory_port, host=host) as inv,
        OrderService(settings, pay.url, inv.url, port=port, host=host) as service,
    ):
        ready(f"Payment on {pay.url} (POST /pay: 20 ms, {SLOW_LATENCY:g} s when slow)")
        ready(f"Inventory on {inv.url} (GET /stock: 20 ms)")
        ready(f"Order Service on {service.url} ({settings.describe()})")
        await (stop or asyncio.Event()).wait()


def serve_main(ns: argparse.Namespace) -> int:
    """``python -m bulkhead_lab serve-orders``: foreground until Ctrl-C or SIGTERM; 0 on a clean stop."""
    settings = check_serve_args(ns)

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        loop.add_signal_handler(signal.SIGINT, stop.set)
        try:
            await serve_orders(
                settings,
                host=ns.host,
                port=ns.port,
                payment_port=ns.payment_port,
                inventory_port=ns.inventory_port,
                ready=lambda line: print(line, flush=True),
                stop=stop,
            )
        finally:
            loop.remove_signal_handler(signal.SIGTERM)
            loop.remove_signal_handler(signal.SIGINT)

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
    print("serve-orders: stopped", file=sys.stdout, flush=True)
    return 0


def rounds_needed(orders: int, limit: int) -> int:
    """How many rounds of Payment's latency ``orders`` calls need through ``limit`` connections."""
    return math.ceil(orders / limit)
