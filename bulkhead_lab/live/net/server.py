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

Every request is checked before any handler runs (:meth:`LoopbackServer.foreign`): its
``Host`` must be a loopback name with this server's port, and a browser's ``Origin`` and
``Sec-Fetch-Site`` must say the request comes from this very service (or from no page at
all: curl, aiohttp, node, a typed URL). Anything else is HTTP 403 with one line, so a web
page the learner happens to visit cannot switch Payment slow, reset a service, place
orders or run ``/run`` batches, and a DNS-rebound name cannot read the answers. A request
whose client disconnects has its handler cancelled (aiohttp's ``handler_cancellation``),
so an abandoned call gives back whatever it held at once. A request aiohttp refuses itself
(malformed: HTTP 400) or cannot answer (its client left) is one line on the service's log,
never a traceback (:mod:`.requestlog`).

:func:`check_fd_budget` compares what a run will open with ``RLIMIT_NOFILE`` before it starts;
:func:`all_or_cancel` awaits a run's requests so that none outlives it. It stays hand-written (ten lines with
:func:`cancel_all`): asyncio's TaskGroup needs Python 3.11 (the package supports 3.10); anyio's returns no
results and wraps even one error in an ExceptionGroup, so a run's one-line error would reach the cell
wrapped, and collecting results and unwrapping at every caller costs more than these lines.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import os
import signal
import socket
import sys
from collections.abc import Awaitable, Callable, Iterable
from types import TracebackType
from typing import Any, TypeVar

from aiohttp import web

from bulkhead_lab.live.net.key import HEADER, forget, new_key, refusal, remember
from bulkhead_lab.live.net.requestlog import LOG, RequestLog
from bulkhead_lab.validation import check_int

T = TypeVar("T")

LOOPBACK = "127.0.0.1"
_GRACE = 0.25  # seconds a stop lets in-flight handlers finish before closing them (a kill cuts them first)
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)  # Ctrl-C and a polite kill stop a command alike
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")  # what a Host or Origin may name: this machine
SAME_SITE = ("same-origin", "none")  # Sec-Fetch-Site of a page on this service, or of no page at all
FD_MARGIN = 32  # file descriptors kept free beside a run's own (event loop, logs, a notebook's files)
LONG_RUN = 120.0  # seconds a live run may be planned to take before it needs allow_long=True

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
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT only, never a listener
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


async def finish(coro: Any) -> None:
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


async def all_or_cancel(runs: Iterable[Awaitable[T]]) -> list[T]:
    """Run every coroutine (or task) at once; their results in the order given. If one fails or the
    caller is cancelled, every other is cancelled and awaited before the error goes on
    (:func:`cancel_all`), so nothing is left running and no service listening."""
    pending = [asyncio.ensure_future(run) for run in runs]
    try:
        return list(await asyncio.gather(*pending))
    except BaseException:
        await cancel_all(pending)
        raise


async def cancel_all(tasks: Iterable[asyncio.Future[Any]]) -> None:
    """Cancel every task and wait until each has ended (whatever it raised is dropped)."""
    pending = list(tasks)
    for t in pending:
        t.cancel()
    await asyncio.gather(*pending, return_exceptions=True)


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
    ``name`` is the port's name in a one-line error (``payment port 3002 ... is busy``);
    ``service`` the service's in its log (:class:`~.requestlog.RequestLog`). :attr:`key` is
    its secret (:mod:`.key`), None when created under ``open_to_this_machine()``.
    """

    def __init__(
        self,
        app: web.Application,
        *,
        port: int = 0,
        host: str = LOOPBACK,
        name: str = "port",
        sock: socket.socket | None = None,
        service: str = "service",
    ):
        self.host = check_host(host)
        self._want_port = check_port(name, port)
        self._name = name
        self.service = service
        self.app = app
        self.key = new_key()
        app.middlewares.append(self._guard)
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

    def foreign(self, request: web.BaseRequest) -> str | None:
        """Why ``request`` does not come from this machine's own clients (one line), or None.

        ``Host`` must be 127.0.0.1, localhost or [::1] with this server's port (DNS
        rebinding sends a foreign name); ``Origin``, when a browser sends one, must be this
        service's own loopback origin; ``Sec-Fetch-Site``, when sent, must be same-origin or
        none. curl, aiohttp and node send a loopback Host and neither browser header.
        """
        port = self.port
        hosts = [f"{name}:{port}" for name in LOOPBACK_NAMES] + (list(LOOPBACK_NAMES) if port == 80 else [])
        host = request.headers.get("Host")
        if host is None or host.lower() not in hosts:
            got = "missing" if host is None else repr(host)
            return f"Host must be {_either(hosts[:3])}, this service on loopback (got {got})"
        origin = request.headers.get("Origin")
        if origin is not None and origin.lower() not in [f"http://{h}" for h in hosts]:
            allowed = _either([f"http://{h}" for h in hosts[:3]])
            return f"Origin must be absent or {allowed}, this service itself (got {origin!r})"
        site = request.headers.get("Sec-Fetch-Site")
        if site is not None and site.lower() not in SAME_SITE:
            allowed = _either(list(SAME_SITE))
            return f"Sec-Fetch-Site must be absent or {allowed}, not another page (got {site!r})"
        return None

    @web.middleware
    async def _guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        reason = self.foreign(request) or refusal(self.key, request.headers.get(HEADER))
        if reason is not None:
            return forbidden(reason)
        return await handler(request)

    async def start(self) -> None:
        """Bind the socket and start serving (a busy port raises before anything runs)."""
        if self._runner is not None:
            raise RuntimeError(f"{self._name} {self.port} is already serving")
        sock, self._bound = self._bound, None
        if sock is None:
            sock = bind_loopback(self._want_port, host=self.host, name=self._name)
        self._sock = sock
        self.port = sock.getsockname()[1]
        remember(self.port, self.key)
        runner = web.AppRunner(
            self.app,
            access_log=None,
            handle_signals=False,
            shutdown_timeout=_GRACE,
            handler_cancellation=True,  # a client that went away cancels its handler: nothing stays held
            logger=RequestLog(f"{self.service} on {self.host}:{self.port}"),  # a refused request: one line
        )
        try:
            await runner.setup()
            self._runner = runner
            await web.SockSite(runner, sock).start()
        except BaseException:
            await finish(self._close(abort=True))
            raise

    async def stop(self) -> None:
        """Stop listening, let in-flight requests finish briefly, then close every connection."""
        await finish(self._close())

    async def kill(self) -> None:
        """Stop at once, cutting every open connection off: what a crashed dependency looks like."""
        await finish(self._close(abort=True))

    async def _close(self, abort: bool = False) -> None:
        runner, self._runner = self._runner, None
        sock, self._sock = self._sock, None
        if sock is not None:
            forget(self.port, self.key)
        try:
            if runner is not None:
                if abort and runner.server is not None:
                    for handler in runner.server.connections:
                        if handler.transport is not None:
                            handler.transport.abort()
                await runner.cleanup()
        finally:
            if sock is not None and sock.fileno() != -1:
                sock.close()


class Served(Service):
    """A service answering on a :class:`LoopbackServer` of its own (``self.server``)."""

    server: LoopbackServer

    @property
    def port(self) -> int:
        """The bound port (known once started)."""
        return self.server.port

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:8402``."""
        return self.server.url


def _either(options: list[str]) -> str:
    return ", ".join(options[:-1]) + " or " + options[-1]


def error_response(status: int, reason: str, **fields: Any) -> web.Response:
    """HTTP ``status`` with a one-line reason, as JSON ``{"error": reason, **fields}``."""
    line = reason.splitlines()[0] if reason else "error"
    body = json.dumps({"error": line, **fields}) + "\n"
    return web.Response(status=status, text=body, content_type="application/json")


def bad_request(reason: str) -> web.Response:
    """HTTP 400 with a one-line reason, as JSON ``{"error": reason}``."""
    return error_response(400, reason or "bad request")


def forbidden(reason: str) -> web.Response:
    """HTTP 403 with a one-line reason: a request from outside this machine's own clients."""
    return error_response(403, reason)


# -- file descriptors ------------------------------------------------------------------------


def open_fds() -> int | None:
    """How many file descriptors this process has open now (None where the OS does not say)."""
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            return len(os.listdir(folder))
        except OSError:
            continue
    return None


def fd_limit() -> int | None:
    """This process's soft ``RLIMIT_NOFILE`` (``ulimit -n``), or None where there is none to read."""
    if sys.platform == "win32":
        return None
    import resource

    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else soft


def check_fd_budget(what: str, needed: int) -> None:
    """Refuse, with one line, a run that needs more file descriptors than this process may open.

    ``what`` names what the user asked for (``"orders + stock_checks = 400"``); ``needed`` is
    the run's estimate of sockets it holds open at once. Checked before anything starts, so
    a low ``ulimit -n`` (macOS defaults to 256) is a sentence, not requests left unanswered.
    """
    limit, used = fd_limit(), open_fds()
    if limit is None or used is None:
        return
    free = limit - used - FD_MARGIN
    if needed > free:
        raise ValueError(
            f"{what} needs about {needed} open sockets but this process may open only {max(free, 0)} "
            f"more (ulimit -n is {limit}); raise it, e.g. run `ulimit -n {_enough(used + needed)}` in "
            "the shell that starts Python or Jupyter, or ask for less"
        )


def _enough(total: int) -> int:
    limit = 1024
    while limit < total + FD_MARGIN:
        limit *= 2
    return limit


def serve_foreground(name: str, serve: Callable[[asyncio.Event], Awaitable[None]]) -> int:
    """Run ``serve(stop)`` until Ctrl-C (SIGINT) or SIGTERM sets ``stop``; print ``<name>: stopped``.

    Both signals are handled alike: the event is set, ``serve`` closes what it started
    and returns. A bad value ``serve`` raises (a busy port) propagates as it is, so the
    command line can print its one line. Meanwhile the services' log (a request aiohttp
    refused, one line each) goes to stderr as ``<name>: <line>``. Returns 0, a clean stop's
    exit status.
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

    log = logging.StreamHandler(sys.stderr)
    log.setFormatter(logging.Formatter(f"{name}: %(message)s"))
    LOG.addHandler(log)
    propagate, LOG.propagate = LOG.propagate, False
    try:
        asyncio.run(main())
    except KeyboardInterrupt:  # Ctrl-C before the handlers were in place
        pass
    finally:
        LOG.removeHandler(log)
        LOG.propagate = propagate
    print(f"{name}: stopped", flush=True)
    return 0


# -- how long a run will take -----------------------------------------------------------------


def check_planned(seconds: float, how: str, allow_long: bool) -> None:
    """Refuse, with one line, a run planned to take over :data:`LONG_RUN` unless ``allow_long``.

    ``how`` is the arithmetic in words, e.g. ``"ceil(10000 orders / 5 places) x 60 s"``:
    a huge but valid run is a sentence before it starts, not hours of silence.
    """
    if seconds > LONG_RUN and not allow_long:
        raise ValueError(
            f"allow_long must be True for a run this long: it would take about {duration(seconds)} "
            f"({how}), over the {LONG_RUN:g} s a run may take unasked"
        )


def duration(seconds: float) -> str:
    """``95 s``, ``12 min``, ``33 h``: a planned duration as a person reads it."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.0f} h"
