"""A dependency that counts itself: a small HTTP service on 127.0.0.1.

A pool's limit is only visible from the other side of the wire (lesson 003's
"a pool test can only be written by counting the concurrency the dependency
observes"), so every dependency here counts its own ``open`` requests, their
``peak`` and its ``calls``, and can record a timeline of ``(seconds, open)``.

:class:`LoopbackServer` serves any aiohttp :class:`~aiohttp.web.Application` on a
socket it binds itself, so the port is known before anything starts (ephemeral by
default, or a busy fixed port refused with one line) and the listening socket is
closed on exit, on an exception and on a cancelled task.

:class:`Dependency` builds on it: routes with a latency each (and a second latency
while switched slow), plus built-in admin routes:

- ``POST /admin/slow?on=1|0[&ms=N]`` switches the slow latency on or off (``ms`` sets it);
- ``GET /admin/stats`` answers ``{"peak", "open", "calls"}``;
- ``POST /admin/reset`` starts counting again.

Lesson 003's notification service is ``Dependency("notification", 0.3)`` (any path);
lesson 004's Payment is
``Dependency("payment", routes=[Route("POST", "/pay", 0.02, slow_latency=3.0)])``.
"""

from __future__ import annotations

import asyncio
import errno
import json
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeVar

from aiohttp import web

from ..validation import check_int, check_real

LOOPBACK = "127.0.0.1"
MAX_LATENCY = 3600.0  # seconds; a longer hold is a mistake, not an experiment
ANY = "*"  # a Route's method or path that matches anything (outside /admin)
_GRACE = 0.25  # seconds a normal stop lets in-flight handlers finish before closing them
_CUT = 0.001  # aiohttp reads a zero shutdown timeout as "wait forever"


def check_host(host: object) -> str:
    """Return ``host`` if it is the loopback address; every service here binds 127.0.0.1 only."""
    if host != LOOPBACK:
        raise ValueError(f"host must be {LOOPBACK}, loopback only (got {host!r})")
    return LOOPBACK


def check_port(name: str, port: object) -> int:
    """Return ``port`` if it is 0 (a free ephemeral port) or a TCP port number."""
    return check_int(name, port, 0, 65535)


def bind_loopback(port: int = 0, *, host: str = LOOPBACK, name: str = "port") -> socket.socket:
    """Bind and listen on ``host:port``; a busy port is one-line :class:`ValueError`.

    Binding before starting anything is what lets a command refuse a busy port
    without leaving a half-started set of services behind.
    """
    host = check_host(host)
    port = check_port(name, port)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT only, not a live listener
        sock.bind((host, port))
        sock.listen(512)
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ValueError(
                f"{name} {port} on {host} is busy (something is already listening there)"
            ) from None
        raise ValueError(f"{name} {port} on {host} cannot be bound ({exc.strerror})") from None
    return sock


async def _finish(coro: Any) -> None:
    """Await ``coro`` to the end even if the awaiting task is cancelled meanwhile.

    Cleanup that a cancellation cut in half would leave a socket listening; the
    cancellation is re-raised once the cleanup is done.
    """
    task = asyncio.ensure_future(coro)
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.cancelled():
                raise
            cancelled = True
    task.result()
    if cancelled:
        raise asyncio.CancelledError


S = TypeVar("S", bound="Service")


class Service:
    """Something started and stopped around a block: ``async with thing: ...``.

    Subclasses define :meth:`start` and :meth:`stop`; ``stop`` runs on a normal exit,
    an exception and a cancelled task alike, so nothing stays listening.
    """

    async def start(self) -> None:
        raise NotImplementedError

    async def stop(self) -> None:
        raise NotImplementedError

    async def __aenter__(self: S) -> S:
        await self.start()
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()


class LoopbackServer(Service):
    """Serve an aiohttp ``app`` on 127.0.0.1 for the length of an ``async with``.

    ``port`` 0 picks a free ephemeral port; :attr:`port` and :attr:`url` say which.
    ``sock`` is a socket already bound by :func:`bind_loopback` (the server owns it then).
    """

    def __init__(
        self,
        app: web.Application,
        *,
        port: int = 0,
        host: str = LOOPBACK,
        name: str = "port",
        sock: socket.socket | None = None,
    ):
        self.host = check_host(host)
        self._want_port = check_port(name, port)
        self._name = name
        self.app = app
        self._runner: web.AppRunner | None = None
        # A socket bound ahead lets a set of services refuse a busy port before any of them starts.
        self._bound = sock
        self._sock: socket.socket | None = None
        self.port: int = sock.getsockname()[1] if sock is not None else self._want_port

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:8402``."""
        return f"http://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        """True while the socket is listening."""
        return self._runner is not None

    async def start(self) -> None:
        """Bind the socket and start serving (a busy port raises before anything runs)."""
        if self._runner is not None:
            raise RuntimeError(f"{self._name} {self.port} is already serving")
        sock, self._bound = self._bound, None
        if sock is None:
            sock = bind_loopback(self._want_port, host=self.host, name=self._name)
        self._sock = sock
        self.port = sock.getsockname()[1]
        runner = web.AppRunner(self.app, access_log=None, handle_signals=False, shutdown_timeout=_GRACE)
        try:
            await runner.setup()
            self._runner = runner
            await web.SockSite(runner, sock).start()
        except BaseException:
            await _finish(self._close(_CUT, abort=True))
            raise

    async def stop(self) -> None:
        """Stop listening, let in-flight requests finish briefly, then close every connection."""
        await _finish(self._close(_GRACE))

    async def kill(self) -> None:
        """Stop at once, cutting every open connection off: what a crashed dependency looks like."""
        await _finish(self._close(_CUT, abort=True))

    async def _close(self, grace: float, abort: bool = False) -> None:
        runner, self._runner = self._runner, None
        sock, self._sock = self._sock, None
        try:
            if runner is not None:
                if abort and runner.server is not None:
                    for handler in runner.server.connections:
                        if handler.transport is not None:
                            handler.transport.abort()
                runner._shutdown_timeout = grace  # aiohttp reads it in cleanup(); no public setter
                await runner.cleanup()
        finally:
            if sock is not None and sock.fileno() != -1:
                sock.close()


@dataclass(frozen=True)
class Route:
    """One counted route: ``method`` and ``path`` (``"*"`` = any), its latency in seconds,
    and the latency while the dependency is switched slow (None: unchanged)."""

    method: str
    path: str
    latency: float
    slow_latency: float | None = None

    def __post_init__(self) -> None:
        check_real("latency", self.latency, 0.0, MAX_LATENCY)
        if self.slow_latency is not None:
            check_real("slow_latency", self.slow_latency, 0.0, MAX_LATENCY)
        if self.path != ANY and not self.path.startswith("/"):
            raise ValueError(f"path must start with / or be * (got {self.path!r})")


class Dependency(Service):
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
        body: bytes = b"{}",
        on_change: Callable[[Dependency], None] | None = None,
        sock: socket.socket | None = None,
    ):
        self.name = name
        self.routes: tuple[Route, ...] = (
            tuple(routes) if routes is not None else (Route(ANY, ANY, latency, slow_latency),)
        )
        if not self.routes:
            raise ValueError("routes must name at least one route (got none)")
        self.body = body
        self.record_timeline = timeline
        self.on_change = on_change
        self.open = 0
        self.peak = 0
        self.calls = 0
        self.slow = False
        self.slow_override: float | None = None  # set by set_slow(..., latency) or ?ms=
        self.timeline: list[tuple[float, int]] = []
        self._serving: set[asyncio.Task[Any]] = set()
        self._t0 = 0.0
        self.server = LoopbackServer(self._make_app(), port=port, host=host, name=f"{name} port", sock=sock)

    # -- what the caller reads -------------------------------------------------
    @property
    def port(self) -> int:
        """The bound port (known once started)."""
        return self.server.port

    @property
    def host(self) -> str:
        return self.server.host

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:8402``."""
        return self.server.url

    def stats(self) -> dict[str, int]:
        """``{"peak", "open", "calls"}`` as ``GET /admin/stats`` answers."""
        return {"peak": self.peak, "open": self.open, "calls": self.calls}

    def reset(self) -> None:
        """Start counting again: peak falls to what is open now, calls to 0, a new timeline."""
        self.peak = self.open
        self.calls = 0
        self._t0 = _now()
        self.timeline = [(0.0, self.open)] if self.record_timeline else []

    def set_slow(self, on: bool, latency: float | None = None) -> None:
        """Switch every route to its slow latency (``on``) or back.

        ``latency`` (seconds), if given, becomes the slow latency of every route from now
        on, so a caller can run the lesson's slowdown shorter or longer.
        """
        if latency is not None:
            self.slow_override = check_real("latency", latency, 0.0, MAX_LATENCY)
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
        await self.server.start()
        self.open = 0
        self.reset()

    async def stop(self) -> None:
        """Stop serving; nothing stays listening, and requests whose caller left are ended too."""
        try:
            await self.server.stop()
        finally:
            await _finish(self._end_serving())

    async def kill(self) -> None:
        """Die mid-run: stop listening and cut every open request off."""
        for task in list(self._serving):
            task.cancel()
        try:
            await self.server.kill()
        finally:
            await _finish(self._end_serving())

    async def _end_serving(self) -> None:
        # A caller that went away leaves its handler sleeping (aiohttp does not cancel it);
        # end those so the counts fall back to zero and no task outlives the service.
        tasks = list(self._serving)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

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
            self.calls += 1
            self._changed(+1)
            task = asyncio.current_task()
            if task is not None:
                self._serving.add(task)
            try:
                await asyncio.sleep(self.latency_of(route))
            finally:
                self._serving.discard(task)  # type: ignore[arg-type]
                self._changed(-1)
            return web.Response(body=self.body, content_type="application/json")

        return handler

    async def _stats(self, request: web.Request) -> web.Response:
        return web.json_response(self.stats())

    async def _reset(self, request: web.Request) -> web.Response:
        self.reset()
        return web.json_response(self.stats())

    async def _slow(self, request: web.Request) -> web.Response:
        on = request.query.get("on")
        if on not in ("0", "1"):
            return _bad(f"on must be 1 or 0 (got {on!r})")
        ms = request.query.get("ms")  # optional: the slow latency in milliseconds
        latency = None
        if ms is not None:
            top = int(MAX_LATENCY * 1000)
            if not ms.isdigit() or int(ms) > top:
                return _bad(f"ms must be an integer in 0..{top} (got {ms!r})")
            latency = int(ms) / 1000
        self.set_slow(on == "1", latency)
        return web.json_response({"slow": self.slow})

    def _make_app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/admin/stats", self._stats)
        app.router.add_post("/admin/reset", self._reset)
        app.router.add_post("/admin/slow", self._slow)
        for route in self.routes:
            path = "/{tail:.*}" if route.path == ANY else route.path
            app.router.add_route(
                ANY if route.method == ANY else route.method.upper(), path, self._counted(route)
            )
        return app


def _bad(reason: str) -> web.Response:
    """HTTP 400 with a one-line reason, as JSON ``{"error": reason}``."""
    return web.Response(
        status=400, text=json.dumps({"error": reason}) + "\n", content_type="application/json"
    )


def bad_request(reason: str) -> web.Response:
    """HTTP 400 with a one-line reason (public for the other services)."""
    return _bad(reason.splitlines()[0] if reason else "bad request")


def _now() -> float:
    return time.monotonic()
