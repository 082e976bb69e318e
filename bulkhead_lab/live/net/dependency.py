"""A dependency that counts itself: a small HTTP service on 127.0.0.1.

A pool's limit is only visible from the other side of the wire (lesson 003's
"a pool test can only be written by counting the concurrency the dependency
observes"), so every dependency here counts its own ``open`` requests, their
``peak`` and its ``calls``, and can record a timeline of ``(seconds, open)``.

:class:`Dependency` is served by a :class:`~.server.LoopbackServer`: routes with a
latency each (and a second latency while switched slow), plus built-in admin routes:

- ``POST /admin/slow?on=1[&ms=N]`` switches the slow latency on: the route's own (3 s for
  Payment) or, with ``ms``, that many milliseconds for this slowdown only;
  ``POST /admin/slow?on=0`` switches it off (and forgets any ``ms``);
- ``GET /admin/stats`` answers ``{"peak", "open", "calls"}`` (:class:`DependencyStats`);
- ``POST /admin/reset`` returns the service to its start state: healthy, the default slow
  latency, every open request answered at once (HTTP 503), counters zero.

Any other path under ``/admin`` is HTTP 404 (an admin route it does not have), and an
admin route asked with another method is HTTP 405 naming the one it takes: neither is
counted, delayed or answered as a dependency call, even by the catch-all of lesson 003's
services.

Lesson 003's notification service is ``Dependency("notification", 0.3)`` (any path);
lesson 004's Payment is
``Dependency("payment", routes=[Route("POST", "/pay", 0.02, slow_latency=3.0)])``.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from bulkhead_lab.live.net.server import (
    LOOPBACK,
    LoopbackServer,
    Served,
    bad_request,
    cancel_all,
    error_response,
    finish,
)
from bulkhead_lab.validation import parse_int

MAX_DEPENDENCY_LATENCY = 3600.0  # seconds a route answers in; a longer hold is a mistake, not an experiment
ANY = "*"  # a Route's method or path that matches anything (outside /admin)
ADMIN_ROUTES = {"/admin/stats": "GET", "/admin/reset": "POST", "/admin/slow": "POST"}  # path: method


@dataclass(frozen=True)
class DependencyStats:
    """What a counting dependency counted (``GET /admin/stats``): calls open now (``open``), at most
    at once since its start or reset (``peak``) and in all (``calls``).

    ``error`` says why the counts are unknown (the service did not answer, e.g. killed mid-run);
    they are 0 then.
    """

    peak: int = 0
    open: int = 0
    calls: int = 0
    error: str | None = None

    def answer(self) -> dict[str, int]:
        """``GET /admin/stats``'s JSON: ``{"peak", "open", "calls"}``."""
        return {"peak": self.peak, "open": self.open, "calls": self.calls}

    @classmethod
    def read(cls, answer: Mapping[str, Any]) -> DependencyStats:
        """From ``/admin/stats``'s JSON, or from ``{"error": why}`` when the service did not answer."""
        if "error" in answer:
            return cls(error=str(answer["error"]))
        return cls(int(answer["peak"]), int(answer["open"]), int(answer["calls"]))


@dataclass(frozen=True)
class Route:
    """One counted route: ``method`` and ``path`` (``"*"`` = any), its latency in seconds,
    and the latency while the dependency is switched slow (None: unchanged)."""

    method: str
    path: str
    latency: float
    slow_latency: float | None = None


class Dependency(Served):
    """A counting HTTP dependency on 127.0.0.1; use as ``async with Dependency(...) as dep``.

    Without ``routes`` it answers every method and path (outside ``/admin``) after
    ``latency`` seconds, or ``slow_latency`` while slow, like lesson 003's services.
    With ``routes`` only those are served and counted. ``timeline=True`` records
    ``(seconds since start or reset, open)`` at every change, for plots.
    ``on_change(dep)`` (optional) is called after every change of :attr:`open`.
    ``sock``: a socket bound ahead with :func:`bind_loopback` (then ``port`` is ignored).
    """

    def __init__(
        self,
        name: str,
        latency: float = 0.02,
        *,
        slow_latency: float | None = None,
        routes: Sequence[Route] | None = None,
        port: int = 0,
        host: str = LOOPBACK,
        timeline: bool = False,
        on_change: Callable[[Dependency], None] | None = None,
        sock: socket.socket | None = None,
    ):
        self.name = name
        self.routes: tuple[Route, ...] = (
            tuple(routes) if routes is not None else (Route(ANY, ANY, latency, slow_latency),)
        )
        if not self.routes:
            raise ValueError("routes must name at least one route (got none)")
        self.record_timeline = timeline
        self.on_change = on_change
        self.open = 0
        self.peak = 0
        self.calls = 0
        self.slow = False
        self.slow_override: float | None = None  # this slowdown's latency: set_slow(True, latency) or ?ms=
        self.timeline: list[tuple[float, int]] = []
        self._serving: set[asyncio.Task[Any]] = set()
        self._open_requests: set[asyncio.Future[None]] = set()  # each done when its request is counted out
        self._ended: asyncio.Future[None] | None = None  # set by reset(): open requests answer at once
        self._t0 = 0.0
        self.server = LoopbackServer(
            self._make_app(), port=port, host=host, name=f"{name} port", sock=sock, service=name
        )

    # -- what the caller reads -------------------------------------------------
    def stats(self) -> DependencyStats:
        """What ``GET /admin/stats`` answers: calls open now, at most at once, in all."""
        return DependencyStats(self.peak, self.open, self.calls)

    def reset_counts(self) -> None:
        """Start counting again: peak falls to what is open now, calls to 0, a new timeline."""
        self.peak = self.open
        self.calls = 0
        self._t0 = _now()
        self.timeline = [(0.0, self.open)] if self.record_timeline else []

    async def reset(self) -> None:
        """Back to the start state: healthy, the default slow latency, nothing open, counters zero.

        Requests still open (a slow call whose caller left, or one an hour long) are answered
        at once with HTTP 503, so nothing they hold on the caller's side stays held.
        """
        self.set_slow(False)
        ended, self._ended = self._ended, asyncio.get_running_loop().create_future()
        if ended is not None and not ended.done():
            ended.set_result(None)
        waiting = list(self._open_requests)
        if waiting:
            await asyncio.wait(waiting)  # each counts itself out as it answers
        self.reset_counts()

    def set_slow(self, on: bool, latency: float | None = None) -> None:
        """Switch every route to its slow latency (``on``) or back.

        ``latency`` (seconds), if given with ``on``, is the slow latency of every route for
        this slowdown only; without it each route slows to its own ``slow_latency``.
        Switching off forgets it, so the next slowdown is the default one again. The admin route
        ``/admin/slow`` checks both before it calls this.
        """
        self.slow_override = latency
        self.slow = bool(on)

    def latency_of(self, route: Route) -> float:
        """The latency ``route`` answers with right now."""
        if self.slow:
            if self.slow_override is not None:
                return self.slow_override
            if route.slow_latency is not None:
                return route.slow_latency
        return route.latency

    # -- lifecycle ---------------------------------------------------------------
    async def start(self) -> None:
        """Bind and serve; counting starts at zero."""
        self._ended = asyncio.get_running_loop().create_future()
        await self.server.start()
        self.open = 0
        self.reset_counts()

    async def stop(self) -> None:
        """Stop serving; nothing stays listening, and requests whose caller left are ended too."""
        try:
            await self.server.stop()
        finally:
            await finish(self._end_serving())

    async def kill(self) -> None:
        """Die mid-run: stop listening and cut every open request off."""
        for task in list(self._serving):
            task.cancel()
        try:
            await self.server.kill()
        finally:
            await finish(self._end_serving())

    async def _end_serving(self) -> None:
        # A caller that went away leaves its handler sleeping (aiohttp does not cancel it);
        # end those so the counts fall back to zero and no task outlives the service.
        await cancel_all(list(self._serving))

    # -- serving -----------------------------------------------------------------
    def _changed(self, delta: int) -> None:
        self.open += delta
        if self.open > self.peak:
            self.peak = self.open
        if self.record_timeline:
            self.timeline.append((_now() - self._t0, self.open))
        if self.on_change is not None:
            self.on_change(self)

    def _counted(self, route: Route) -> Callable[[web.Request], Any]:
        async def handler(request: web.Request) -> web.Response:
            ended = self._ended
            assert ended is not None, "a request before start()"
            self.calls += 1
            self._changed(+1)
            task = asyncio.current_task()
            if task is not None:
                self._serving.add(task)
            counted_out = asyncio.get_running_loop().create_future()
            self._open_requests.add(counted_out)
            try:  # the latency, unless /admin/reset ends every open request first
                done, _ = await asyncio.wait([ended], timeout=self.latency_of(route))
            finally:
                if task is not None:
                    self._serving.discard(task)
                self._changed(-1)
                self._open_requests.discard(counted_out)
                counted_out.set_result(None)
            if done:
                return error_response(503, f"{self.name} was reset while this request was open")
            return web.Response(body=b"{}", content_type="application/json")

        return handler

    async def _stats(self, request: web.Request) -> web.Response:
        return web.json_response(self.stats().answer())

    async def _reset(self, request: web.Request) -> web.Response:
        await self.reset()
        return web.json_response(self.stats().answer())

    async def _admin_unknown(self, request: web.Request) -> web.Response:
        """An admin path it does not have (404), or one of its admin routes by another method (405)."""
        method = ADMIN_ROUTES.get(request.path)
        if method is None:
            known = ", ".join(f"{m} {p}" for p, m in ADMIN_ROUTES.items())
            return error_response(404, f"{request.path} is not an admin route of {self.name}: it has {known}")
        refused = error_response(405, f"{request.path} takes {method}, not {request.method}")
        refused.headers["Allow"] = method
        return refused

    async def _slow(self, request: web.Request) -> web.Response:
        on = request.query.get("on")
        if on not in ("0", "1"):
            return bad_request(f"on must be 1 or 0 (got {'missing' if on is None else repr(on)})")
        ms = request.query.get("ms")  # optional: this slowdown's latency in milliseconds
        latency = None
        if ms is not None:
            if on == "0":
                return bad_request(f"ms goes only with on=1, a slowdown (got on=0 and ms={ms!r})")
            try:
                latency = parse_int("ms", ms, 0, int(MAX_DEPENDENCY_LATENCY * 1000)) / 1000
            except ValueError as exc:
                return bad_request(str(exc))
        self.set_slow(on == "1", latency)
        return web.json_response({"slow": self.slow, "latency_ms": self._slow_ms()})

    def _slow_ms(self) -> int | None:
        """The slow latency of the first route right now, in ms (None: it has no slowdown)."""
        route = self.routes[0]
        latency = self.slow_override if self.slow_override is not None else route.slow_latency
        return None if latency is None else round(latency * 1000)

    def _make_app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/admin/stats", self._stats)
        app.router.add_post("/admin/reset", self._reset)
        app.router.add_post("/admin/slow", self._slow)
        app.router.add_route(ANY, r"/{admin:admin(/.*)?}", self._admin_unknown)  # before any catch-all
        for route in self.routes:
            path = "/{tail:.*}" if route.path == ANY else route.path
            app.router.add_route(
                ANY if route.method == ANY else route.method.upper(), path, self._counted(route)
            )
        return app


def _now() -> float:
    return time.monotonic()
