"""The Order Service's caller pools, under two rules for what counts against their limit.

Lesson 004 measured stock checks of about 6 s with a *healthy* Payment: Node's Agent
(``keepAlive: true, maxTotalSockets: 10``) counts every socket it owns against its limit,
idle kept-alive ones included, so Payment's ten idle sockets held every place until the
server's 5-s keep-alive timeout closed them. aiohttp's pool does not. Both rules are here,
on the same aiohttp sockets, so the learner can run the lesson's setup on each:

- ``"aiohttp"`` (:class:`AiohttpPool`): a ``ClientSession`` over ``TCPConnector(limit=n)``;
  ``n`` counts connections *in use* (``limit - len(acquired)`` in aiohttp's
  ``_available_connections``); an idle kept-alive connection waits for its own host
  without holding a place.
- ``"node"`` (:class:`NodePool`): Node's ``maxTotalSockets`` rule. A place per socket the
  pool owns, busy or idle. A call takes an idle socket of its own destination first (the
  most recently used, Node's ``lifo``), else opens a socket if the pool owns fewer than
  ``n``, else waits. A socket whose call ended goes to the oldest call waiting for the
  same destination (Node's agent serves its own origin's queue first); with keep-alive,
  if none waits, it stays open and idle, holding its place, until :data:`IDLE_TIMEOUT`
  after its last use (the Node server's ``keepAliveTimeout``), when it is closed and its
  place goes to the oldest waiting call of any destination. Without keep-alive every
  socket closes after its call and its place passes on at once (its own destination first).
  Each socket is a ``ClientSession`` of its own over ``TCPConnector(limit=1)``, so a place
  is exactly one real socket.

Both count from aiohttp's own events: sockets opened and reused per destination (its
``on_connection_create_end`` and ``on_connection_reuseconn``), calls that waited for a
place, and the sockets open now and at most at once (connected and not yet closed, the
pool's whole count, busy or idle). Each call's ``trace_request_ctx`` dict receives
``"connected"``: the ``time.monotonic()`` at which it had its socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Literal, get_args

import aiohttp

from bulkhead_lab.live.net.key import key_headers
from bulkhead_lab.validation import check_real

#: What counts against a pool's limit: connections in use (aiohttp's rule) or every socket owned (Node's).
PoolRule = Literal["aiohttp", "node"]
POOL_RULES: tuple[PoolRule, ...] = get_args(PoolRule)
IDLE_TIMEOUT = 5.0  # seconds an idle kept-alive socket stays open: Node's http server keepAliveTimeout
_KEEP = 3600.0  # aiohttp's own idle timeout under the node rule: far past IDLE_TIMEOUT, which rules
_NO_TIMEOUT = aiohttp.ClientTimeout(total=None)


@dataclass(frozen=True)
class PoolStats:
    """One destination's pool as ``GET /admin/pools`` shows it: the pool's limit, the sockets opened to
    this destination and reused, the pool's sockets open now and at most at once (busy or idle, the
    whole pool's), and the calls that waited for a place."""

    limit: int
    opened: int
    reused: int
    open: int
    peak: int
    waited: int


class SocketCount:
    """Sockets connected and not yet closed, now (``open``) and at most at once (``peak``)."""

    def __init__(self, parent: SocketCount | None = None, on_close: Callable[[], None] | None = None) -> None:
        self.open = 0
        self.peak = 0
        self.parent = parent
        self.on_close = on_close
        self.counted: set[Any] = set()  # the connections (aiohttp's protocols) open now

    def add(self, proto: Any) -> None:
        """Count a connection, once however often it is reused, until aiohttp's protocol says it closed."""
        closed = getattr(proto, "closed", None)
        if closed is None or proto in self.counted:  # already lost, or counted
            return
        self.counted.add(proto)
        self._change(+1)
        closed.add_done_callback(lambda fut: self._lost(fut, proto))

    def _lost(self, fut: asyncio.Future[None], proto: Any) -> None:
        if not fut.cancelled():
            fut.exception()  # an unclean close is still a close: retrieved, never logged
        self.counted.discard(proto)
        self._change(-1)
        if self.on_close is not None:
            self.on_close()

    def _change(self, delta: int) -> None:
        self.open += delta
        self.peak = max(self.peak, self.open)
        if self.parent is not None:
            self.parent._change(delta)

    def restart(self) -> None:
        """Count the peak again from what is open now."""
        self.peak = self.open


class _CountingConnector(aiohttp.TCPConnector):
    """A TCPConnector that tells a :class:`SocketCount` of every connection it hands out (its public
    ``connect``: a new one, or one from its pool, which the count knows already)."""

    def __init__(self, count: SocketCount, **kw: Any) -> None:
        super().__init__(**kw)
        self.socket_count = count

    async def connect(self, req: Any, traces: Any, timeout: Any) -> Any:
        connection = await super().connect(req, traces, timeout)
        self.socket_count.add(connection.protocol)
        return connection


class CallerPool:
    """What both rules share: per-destination tallies from aiohttp's trace events, and the socket count."""

    rule: PoolRule

    def __init__(self, limit: int, keepalive: bool, destinations: tuple[str, ...]) -> None:
        self.limit = limit
        self.keepalive = keepalive
        self.count = SocketCount()
        self.opened = dict.fromkeys(destinations, 0)
        self.reused = dict.fromkeys(destinations, 0)
        self.waited = 0  # calls that waited for a place in the pool
        self.trace = aiohttp.TraceConfig()
        self.trace.on_connection_create_end.append(self._connected(self.opened))
        self.trace.on_connection_reuseconn.append(self._connected(self.reused))
        self.trace.on_connection_queued_start.append(self._queued)

    @staticmethod
    def _connected(tally: dict[str, int]) -> Callable[..., Any]:
        async def on_event(session: Any, ctx: SimpleNamespace, params: Any) -> None:
            info = ctx.trace_request_ctx
            if isinstance(info, dict):
                info["connected"] = time.monotonic()
                if info.get("dependency") in tally:
                    tally[info["dependency"]] += 1

        return on_event

    async def _queued(self, session: Any, ctx: SimpleNamespace, params: Any) -> None:
        self.waited += 1

    def request(
        self, destination: str, method: str, url: str, *, timeout: aiohttp.ClientTimeout, ctx: dict[str, Any]
    ) -> contextlib.AbstractAsyncContextManager[aiohttp.ClientResponse]:
        raise NotImplementedError

    def stats(self, destination: str) -> PoolStats:
        """One destination's tallies and the pool's sockets (``open``, ``peak``: the whole pool's)."""
        return PoolStats(
            limit=self.limit,
            opened=self.opened.get(destination, 0),
            reused=self.reused.get(destination, 0),
            open=self.count.open,
            peak=self.count.peak,
            waited=self.waited,
        )

    def reset(self) -> None:
        """Tallies back to zero; the peak counts again from the sockets open now."""
        for tally in (self.opened, self.reused):
            for name in tally:
                tally[name] = 0
        self.waited = 0
        self.count.restart()

    async def close(self) -> None:
        raise NotImplementedError


class AiohttpPool(CallerPool):
    """aiohttp's rule: ``TCPConnector(limit)`` counts connections in use, never idle ones."""

    rule: PoolRule = "aiohttp"

    def __init__(self, limit: int, keepalive: bool, destinations: tuple[str, ...]) -> None:
        super().__init__(limit, keepalive, destinations)
        if keepalive:
            connector = _CountingConnector(self.count, limit=limit, keepalive_timeout=IDLE_TIMEOUT)
        else:
            connector = _CountingConnector(self.count, limit=limit, force_close=True)
        self.session = aiohttp.ClientSession(
            connector=connector, timeout=_NO_TIMEOUT, trace_configs=[self.trace]
        )

    def request(
        self, destination: str, method: str, url: str, *, timeout: aiohttp.ClientTimeout, ctx: dict[str, Any]
    ) -> contextlib.AbstractAsyncContextManager[aiohttp.ClientResponse]:
        return self.session.request(
            method, url, timeout=timeout, trace_request_ctx=ctx, headers=key_headers(url)
        )

    async def close(self) -> None:
        await self.session.close()


class _Socket:
    """One place of a :class:`NodePool`: a session holding at most one socket to one destination."""

    def __init__(self, pool: NodePool, destination: str) -> None:
        self.destination = destination
        self.count = SocketCount(parent=pool.count, on_close=lambda: pool._socket_closed(self))
        kw: dict[str, Any] = {"keepalive_timeout": _KEEP} if pool.keepalive else {"force_close": True}
        self.session = aiohttp.ClientSession(
            connector=_CountingConnector(self.count, limit=1, **kw),
            timeout=_NO_TIMEOUT,
            trace_configs=[pool.trace],
        )
        self.idle: asyncio.TimerHandle | None = None  # set while idle: when its keep-alive ends


class NodePool(CallerPool):
    """Node's ``maxTotalSockets`` rule: a place per socket owned, busy or idle (see the module's text)."""

    rule: PoolRule = "node"

    def __init__(
        self, limit: int, keepalive: bool, destinations: tuple[str, ...], idle_timeout: float = IDLE_TIMEOUT
    ) -> None:
        super().__init__(limit, keepalive, destinations)
        self.idle_timeout = check_real("idle_timeout", idle_timeout, 0.0, 3600.0, low_open=True)
        self.owned: set[_Socket] = set()  # every place taken: busy or idle sockets
        self._idle: dict[str, list[_Socket]] = {}
        self._waiters: deque[tuple[str, asyncio.Future[_Socket]]] = deque()
        self._closing: set[asyncio.Task[None]] = set()
        self._closed = False

    @property
    def idle(self) -> int:
        """Idle sockets holding a place now."""
        return sum(len(v) for v in self._idle.values())

    @contextlib.asynccontextmanager
    async def request(
        self, destination: str, method: str, url: str, *, timeout: aiohttp.ClientTimeout, ctx: dict[str, Any]
    ) -> AsyncIterator[aiohttp.ClientResponse]:
        sock = await self._acquire(destination)
        keep = False
        try:
            keyed = key_headers(url)
            async with sock.session.request(
                method, url, timeout=timeout, trace_request_ctx=ctx, headers=keyed
            ) as r:
                yield r
            keep = True
        finally:
            self._release(sock, keep)

    async def _acquire(self, destination: str) -> _Socket:
        if self._closed:
            raise aiohttp.ClientConnectionError("pool is closed")
        idle = self._idle.get(destination)
        if idle:
            sock = idle.pop()
            if sock.idle is not None:
                sock.idle.cancel()
                sock.idle = None
            return sock
        if len(self.owned) < self.limit:
            return self._open(destination)
        place: asyncio.Future[_Socket] = asyncio.get_running_loop().create_future()
        entry = (destination, place)
        self._waiters.append(entry)
        self.waited += 1
        try:
            return await place
        except BaseException:
            if place.done() and not place.cancelled() and place.exception() is None:
                self._release(place.result(), keep=True)  # handed over as we were cancelled: pass it on
            elif entry in self._waiters:
                self._waiters.remove(entry)
            raise

    def _open(self, destination: str) -> _Socket:
        sock = _Socket(self, destination)
        self.owned.add(sock)
        return sock

    def _next_waiter(self, destination: str | None) -> tuple[str, asyncio.Future[_Socket]] | None:
        """The oldest waiter still waiting for ``destination`` (None: any), taken off the queue."""
        for entry in self._waiters:
            if not entry[1].done() and (destination is None or entry[0] == destination):
                self._waiters.remove(entry)
                return entry
        return None

    def _release(self, sock: _Socket, keep: bool) -> None:
        if sock not in self.owned:
            return  # already closed (its idle time ran out, or the pool closed)
        if keep and self.keepalive and not self._closed and sock.count.open > 0:  # alive: reuse it
            waiter = self._next_waiter(sock.destination)
            if waiter is not None:
                waiter[1].set_result(sock)
                return
            self._idle.setdefault(sock.destination, []).append(sock)
            sock.idle = asyncio.get_running_loop().call_later(self.idle_timeout, self._expire, sock)
            return
        self._drop(sock)
        self._pass_on(sock.destination)

    def _expire(self, sock: _Socket) -> None:
        """An idle socket's keep-alive ran out: close it; its place goes to the oldest waiter."""
        idle = self._idle.get(sock.destination, [])
        if sock in idle:
            idle.remove(sock)
            self._drop(sock)
            self._pass_on(None)

    def _socket_closed(self, sock: _Socket) -> None:
        """The socket closed under us (the server closed it): an idle one gives its place up now."""
        if sock.idle is not None:
            sock.idle.cancel()
            sock.idle = None
            self._expire(sock)

    def _drop(self, sock: _Socket) -> None:
        self.owned.discard(sock)
        if sock.idle is not None:
            sock.idle.cancel()
            sock.idle = None
        task = asyncio.ensure_future(sock.session.close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def _pass_on(self, prefer: str | None) -> None:
        """Hand free places to waiting calls: ``prefer``'s first (Node's own origin), then the oldest."""
        while len(self.owned) < self.limit and not self._closed:
            waiter = (self._next_waiter(prefer) if prefer is not None else None) or self._next_waiter(None)
            if waiter is None:
                return
            waiter[1].set_result(self._open(waiter[0]))

    async def close(self) -> None:
        """Close every socket; a call still waiting for a place fails with one line."""
        self._closed = True
        while self._waiters:
            _, place = self._waiters.popleft()
            if not place.done():
                place.set_exception(aiohttp.ClientConnectionError("pool is closed"))
        for sock in list(self.owned):
            self._drop(sock)
        self._idle.clear()
        while self._closing:
            await asyncio.gather(*list(self._closing), return_exceptions=True)


def make_pool(rule: PoolRule, limit: int, keepalive: bool, destinations: tuple[str, ...]) -> CallerPool:
    """A pool of ``limit`` places under ``rule`` (``aiohttp`` or ``node``) for ``destinations`` (both
    checked already, in :class:`~.settings.OrderSettings`)."""
    if rule == "node":
        return NodePool(limit, keepalive, destinations)
    return AiohttpPool(limit, keepalive, destinations)


def aiohttp_limit_rule() -> str:
    """The line of the installed aiohttp that decides whether its pool has a free connection, quoted from
    its ``BaseConnector``'s source (the rule sits in a private method: read, never called)."""
    source = inspect.getsource(aiohttp.BaseConnector)
    return next(line.strip() for line in source.splitlines() if "self._limit -" in line)
