"""Prove your bulkhead: a small fault-injecting proxy in front of any local dependency.

``async with FaultProxy(upstream_url) as proxy`` serves on 127.0.0.1 (a free port, its run's key, like
every service here) and forwards each request to ``upstream_url``, unless a fault says otherwise:

- ``delay`` seconds added before forwarding (a slowdown);
- ``hang``: the request is held, never forwarded, until the fault is cleared or the proxy stops
  (a dependency that stopped answering but keeps its connections open);
- ``errors``: that share of requests (0 to 1) answered HTTP 503 at once, spread evenly (with 0.25 the
  4th, 8th, 12th ... request), so a run's counts are the same every time.

Set them from Python (:meth:`FaultProxy.inject`, :meth:`FaultProxy.clear`) or over HTTP:
``POST /admin/fault?delay_ms=3000&hang=0&errors=0.1`` and ``POST /admin/fault`` with no query to clear;
``GET /admin/stats`` answers ``{"peak", "open", "calls", "forwarded", "failed", "held"}``.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass

import aiohttp
from aiohttp import web

from bulkhead_lab.live.net.key import key_headers
from bulkhead_lab.live.net.server import LoopbackServer, Served, bad_request, error_response

MAX_DELAY = 3600.0  # seconds: a longer delay is a mistake, not an experiment


@dataclass(frozen=True)
class Fault:
    """What the proxy does to each request: ``delay`` s added, ``hang``, ``errors`` share answered 503."""

    delay: float = 0.0
    hang: bool = False
    errors: float = 0.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.delay <= MAX_DELAY:
            raise ValueError(f"delay must be 0 to {MAX_DELAY:g} s (got {self.delay!r})")
        if not 0.0 <= self.errors <= 1.0:
            raise ValueError(f"errors must be a share from 0 to 1 (got {self.errors!r})")


class FaultProxy(Served):
    """The proxy; read :attr:`peak`, :attr:`open`, :attr:`calls`, :attr:`forwarded`, :attr:`failed`."""

    def __init__(self, upstream: str, name: str = "proxy", port: int = 0) -> None:
        self.upstream, self.name = upstream.rstrip("/"), name
        self.fault = Fault()
        self.open = self.peak = self.calls = self.forwarded = self.failed = self.held = 0
        self._cleared = asyncio.Event()
        self._session: aiohttp.ClientSession | None = None
        app = web.Application()
        app.router.add_post("/admin/fault", self._set)
        app.router.add_get("/admin/stats", self._stats)
        app.router.add_route("*", "/{tail:.*}", self._forward)
        self.server = LoopbackServer(app, port=port, name=f"{name} port", service=name)

    def inject(self, delay: float = 0.0, hang: bool = False, errors: float = 0.0) -> None:
        """Apply a fault to the requests from now on (a held request waits until :meth:`clear`)."""
        fault = Fault(delay, hang, errors)
        if hang and not self.fault.hang:
            self._cleared = asyncio.Event()  # held requests wait on it until the fault is cleared
        if not hang:
            self._cleared.set()
        self.fault = fault

    def clear(self) -> None:
        """No fault: requests are forwarded at once; held ones go on."""
        self.fault = Fault()
        self._cleared.set()

    def stats(self) -> dict[str, int]:
        return {
            "peak": self.peak, "open": self.open, "calls": self.calls,
            "forwarded": self.forwarded, "failed": self.failed, "held": self.held,
        }  # fmt: skip

    def reset_counts(self) -> None:
        self.peak, self.calls, self.forwarded, self.failed, self.held = self.open, 0, 0, 0, 0

    async def start(self) -> None:
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=MAX_DELAY))
        await self.server.start()

    async def stop(self) -> None:
        try:
            await self.server.stop()
        finally:
            if self._session is not None:
                await self._session.close()

    def _errs(self) -> bool:
        """Whether this call (the ``calls``-th) is one of the ``errors`` share: evenly spread."""
        share = self.fault.errors
        return math.floor(self.calls * share) > math.floor((self.calls - 1) * share)

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        self.calls += 1
        self.open += 1
        self.peak = max(self.peak, self.open)
        try:
            fault = self.fault
            if self._errs():
                self.failed += 1
                return error_response(503, f"{self.name}: an injected error")
            if fault.hang:
                self.held += 1
                await self._cleared.wait()
            elif fault.delay:
                await asyncio.sleep(fault.delay)
            return await self._upstream(request)
        finally:
            self.open -= 1

    async def _upstream(self, request: web.Request) -> web.Response:
        assert self._session is not None, "a request before start()"
        url = f"{self.upstream}{request.rel_url}"
        body = await request.read()
        headers = {"Content-Type": request.headers.get("Content-Type", "application/json")}
        async with self._session.request(
            request.method, url, data=body or None, headers={**headers, **key_headers(url)}
        ) as answer:
            self.forwarded += 1
            return web.Response(
                body=await answer.read(), status=answer.status, content_type="application/json"
            )

    async def _set(self, request: web.Request) -> web.Response:
        q = request.query
        try:
            fault = Fault(
                float(q.get("delay_ms", "0")) / 1000, q.get("hang", "0") == "1", float(q.get("errors", "0"))
            )
        except ValueError as exc:
            return bad_request(str(exc))
        self.inject(fault.delay, fault.hang, fault.errors)
        return web.json_response(
            {"delay_ms": round(fault.delay * 1000), "hang": fault.hang, "errors": fault.errors}
        )

    async def _stats(self, request: web.Request) -> web.Response:
        return web.json_response(self.stats())
