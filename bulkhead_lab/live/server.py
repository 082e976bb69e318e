"""Serving on 127.0.0.1: binding a port, starting and stopping a service, serving in the foreground.

A pool's limit is only visible from the other side of the wire, so every scenario here
runs real HTTP services; this module is what they share.

:class:`LoopbackServer` serves any aiohttp :class:`~aiohttp.web.Application` on a
socket it binds itself, so the port is known before anything starts (ephemeral by
default, or a busy fixed port refused with one line) and the listening socket is
closed on exit, on an exception and on a cancelled task. :class:`Service` is the
``async with`` every service here is used through; :func:`bad_request` is the one-line
HTTP 400 they answer a bad value with; :func:`serve_foreground` is how both
``serve-pools`` and ``serve-orders`` run until Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import asyncio
import errno
import json
import signal
import socket
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any, TypeVar

from aiohttp import web

from ..validation import check_int

LOOPBACK = "127.0.0.1"
_GRACE = 0.25  # seconds a normal stop lets in-flight handlers finish before closing them
_CUT = 0.001  # aiohttp reads a zero shutdown timeout as "wait forever"
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)  # Ctrl-C and a polite kill stop a command alike

#: ``on_progress(done, total)``: what a live run calls as its answers come in.
Progress = Callable[[int, int], None]


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


def bad_request(reason: str) -> web.Response:
    """HTTP 400 with a one-line reason, as JSON ``{"error": reason}``."""
    line = reason.splitlines()[0] if reason else "bad request"
    return web.Response(status=400, text=json.dumps({"error": line}) + "\n", content_type="application/json")


def serve_foreground(name: str, serve: Callable[[asyncio.Event], Awaitable[None]]) -> int:
    """Run ``serve(stop)`` until Ctrl-C (SIGINT) or SIGTERM sets ``stop``; print ``<name>: stopped``.

    Both signals are handled alike: the event is set, ``serve`` closes what it started
    and returns. A bad value ``serve`` raises (a busy port) propagates as it is, so the
    command line can print its one line. Returns 0, a clean stop's exit status.
    """

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in _STOP_SIGNALS:
            loop.add_signal_handler(sig, stop.set)
        try:
            await serve(stop)
        finally:
            for sig in _STOP_SIGNALS:
                loop.remove_signal_handler(sig)

    try:
        asyncio.run(main())
    except KeyboardInterrupt:  # Ctrl-C before the handlers were in place
        pass
    print(f"{name}: stopped", flush=True)
    return 0
