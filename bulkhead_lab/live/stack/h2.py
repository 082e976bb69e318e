"""HTTP/2: one connection, many calls. A counting dependency served by hypercorn over h2c (HTTP/2
without TLS, prior knowledge) on 127.0.0.1, and httpx with ``http2=True`` through one connection.

A connection limit bounds connections; HTTP/2 carries many streams on each, so ``max_connections=1``
lets every call through at once, up to the server's ``h2_max_concurrent_streams`` (hypercorn's
default: 100). :class:`H2Dependency` counts the calls open at once, their peak and the connections
they came on; like every service here it binds 127.0.0.1 on a free port, answers only requests
presenting its run's key, and stops with its ``async with``.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
from hypercorn.asyncio import serve
from hypercorn.config import Config

from bulkhead_lab.live.bulkhead import Bulkhead
from bulkhead_lab.live.net.key import HEADER
from bulkhead_lab.live.net.server import all_or_cancel, bind_loopback, cancel_all

CALLS = 50  # calls at once
LATENCY = 0.5  # seconds each is held
LIMIT = 10  # the bound each fix sets
STOP_SECONDS = 2.0  # the most a stop waits for hypercorn to close


class H2Dependency:
    """A counting dependency over h2c; ``async with H2Dependency(streams=...) as dep``: ``dep.url``,
    ``dep.peak``, ``dep.calls``, ``dep.connections``."""

    def __init__(self, latency: float = LATENCY, streams: int | None = None) -> None:
        self.latency, self.streams = latency, streams
        self.open = self.peak = self.calls = 0
        self.peers: set[tuple[Any, ...]] = set()
        self.key = secrets.token_urlsafe(32)
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def connections(self) -> int:
        return len(self.peers)

    def headers(self) -> dict[str, str]:
        return {HEADER: self.key}

    async def app(self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        if scope["type"] != "http":  # lifespan: nothing to set up
            while (message := await receive())["type"] != "lifespan.shutdown":
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        headers = dict(scope["headers"])
        if headers.get(HEADER.lower().encode()) != self.key.encode():
            await _answer(send, 403, b"this dependency answers its own run's clients alone\n")
            return
        self.calls += 1
        self.peers.add(tuple(scope.get("client") or ()))
        self.open += 1
        self.peak = max(self.peak, self.open)
        try:
            await asyncio.sleep(self.latency)
        finally:
            self.open -= 1
        await _answer(send, 200, b"{}")

    async def __aenter__(self) -> H2Dependency:
        sock = bind_loopback(0, name="h2 dependency port")
        self.port = sock.getsockname()[1]
        config = Config()
        config.bind = [f"fd://{sock.detach()}"]  # hypercorn owns the bound socket from here
        config.loglevel = "WARNING"
        config.errorlog = logging.getLogger("bulkhead_lab.h2")  # not stderr: a refused call is a count
        config.accesslog = None
        config.graceful_timeout = 0.1
        if self.streams is not None:
            config.h2_max_concurrent_streams = self.streams
        self._task = asyncio.ensure_future(serve(self.app, config, shutdown_trigger=self._stop.wait))  # type: ignore[arg-type]
        for _ in range(200):  # until it accepts connections
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.close()
                await writer.wait_closed()
                break
            except OSError:
                await asyncio.sleep(0.01)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._stop.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._task), STOP_SECONDS)
            except asyncio.TimeoutError:
                await cancel_all([self._task])


async def _answer(send: Callable[..., Any], status: int, body: bytes) -> None:
    await send(
        {"type": "http.response.start", "status": status, "headers": [(b"content-type", b"text/plain")]}
    )
    await send({"type": "http.response.body", "body": body})


@dataclass(frozen=True)
class H2Run:
    """What one run counted: how the calls were bounded, calls sent and answered, the dependency's peak
    and the connections they came on."""

    bound_by: str
    calls: int
    answered: int
    peak: int
    connections: int


Wrap = Callable[[Callable[[], Awaitable[httpx.Response]]], Awaitable[httpx.Response]]


async def h2_run(bound_by: str, streams: int | None = None, wrap: Wrap | None = None) -> H2Run:
    """:data:`CALLS` calls at once through one httpx HTTP/2 connection (``max_connections=1``)."""
    async with H2Dependency(streams=streams) as dep:
        limits = httpx.Limits(max_connections=1)
        async with httpx.AsyncClient(http1=False, http2=True, limits=limits, headers=dep.headers()) as client:

            async def one() -> int:
                def call() -> Awaitable[httpx.Response]:
                    return client.get(f"{dep.url}/call", timeout=30)

                return (await (wrap(call) if wrap else call())).status_code

            codes = await all_or_cancel([one() for _ in range(CALLS)])
        return H2Run(bound_by, CALLS, sum(c == 200 for c in codes), dep.peak, dep.connections)


async def three_runs() -> list[H2Run]:
    """No bound but the connection limit; the server's max_concurrent_streams; the course's Bulkhead."""
    wall = Bulkhead(LIMIT, CALLS)
    return await all_or_cancel(
        [
            h2_run("max_connections=1 only"),
            h2_run(f"server h2_max_concurrent_streams={LIMIT}", streams=LIMIT),
            h2_run(f"Bulkhead({LIMIT}, {CALLS}) around the call", wrap=wall.execute),
        ]
    )
