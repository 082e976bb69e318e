"""The outside client of lesson 004's load: one request and its answer.

:class:`RequestResult` is one order or stock check as the client saw it; :class:`Client` sends each
once (notebook 06's retrying client, :class:`~.retrying.RetryClient`, extends it with retries).

What the services say at the end of a run is read here too (:func:`read_services`), each
answer into its dataclass: :class:`~bulkhead_lab.live.net.dependency.DependencyStats` for
Payment and Inventory, :class:`Received` for Order Service, :class:`PoolsReading` for its pools.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

import aiohttp

from bulkhead_lab.live.net.dependency import DependencyStats
from bulkhead_lab.live.net.key import key_headers
from bulkhead_lab.live.net.server import Progress
from bulkhead_lab.live.orders.settings import ALL_VARIANTS, Variant
from bulkhead_lab.live.orders.socket_pools import POOL_RULES, PoolRule, PoolStats
from bulkhead_lab.validation import check_choice

#: What became of a request: answered 200, refused (503: the bulkhead was full), another status, or none.
Outcome = Literal["served", "refused", "failed", "no answer"]
#: The two kinds of request the load sends: an order (Payment) and a stock check (Inventory).
Kind = Literal["order", "stock"]


class Try(NamedTuple):
    """One attempt: sent and answered (seconds from the drive's start) and its status (0: no answer)."""

    start: float
    end: float
    status: int


@dataclass(frozen=True)
class RequestResult:
    """One request as the outside client saw it; times in seconds from the drive's start.

    ``status``, ``end`` and ``body`` are its last attempt's; ``start`` its first's, so
    ``latency`` covers every retry and backoff. ``tries`` lists every attempt (one, unless a client
    retries).
    """

    kind: Kind
    index: int  # the client's sending order, from 1
    status: int  # HTTP status, or 0 when no answer came (connection failed)
    latency: float
    start: float
    end: float
    body: dict[str, Any] = field(default_factory=dict)
    tries: tuple[Try, ...] = ()

    @property
    def outcome(self) -> Outcome:
        """served, refused (503), failed (other status) or no answer."""
        if self.status == 200:
            return "served"
        if self.status == 503:
            return "refused"
        return "failed" if self.status else "no answer"

    @property
    def attempts(self) -> int:
        """How many times the client sent it (1 without retries)."""
        return max(1, len(self.tries))

    def _seconds(self, key: str) -> float | None:
        value = self.body.get(key)
        return value / 1000 if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    @property
    def waited(self) -> float | None:
        """Seconds the last attempt waited at Order Service for a connection (queue and pool), or None."""
        return self._seconds("waited_ms")

    @property
    def ran(self) -> float | None:
        """Seconds the last attempt's dependency call took once it had its connection, or None."""
        return self._seconds("ran_ms")

    @property
    def run_start(self) -> float:
        """When its call started, on the client's clock (counted back from the answer: ``end - ran``)."""
        return self.end - (self.ran or 0.0)

    @property
    def wait_start(self) -> float:
        """When it began to wait at Order Service, on the client's clock (``run_start - waited``)."""
        return self.run_start - (self.waited or 0.0)


class Client:
    """One outside client over ``session``: sends each request once, records its answer and counts it
    done (``on_progress(done, total)``)."""

    def __init__(
        self, session: aiohttp.ClientSession, t0: float, total: int = 0, on_progress: Progress | None = None
    ) -> None:
        self.session, self.t0, self.total, self.on_progress = session, t0, total, on_progress
        self.done = 0

    async def send(self, kind: Kind, index: int, method: str, url: str) -> RequestResult:
        """Send one request (:meth:`attempts`) and count it done."""
        tries: list[Try] = []
        body = await self.attempts(kind, method, url, tries)
        self.done += 1
        if self.on_progress is not None:
            self.on_progress(self.done, self.total)
        first, last = tries[0], tries[-1]
        latency = last.end - first.start
        return RequestResult(kind, index, last.status, latency, first.start, last.end, body, tuple(tries))

    async def attempts(self, kind: Kind, method: str, url: str, tries: list[Try]) -> dict[str, Any]:
        """Every attempt at one request, each added to ``tries``; the last one's answer. Here: one."""
        return (await self.attempt(method, url, tries))[1]

    async def attempt(
        self, method: str, url: str, tries: list[Try], timeout: aiohttp.ClientTimeout | None = None
    ) -> tuple[int, dict[str, Any]]:
        """One attempt, added to ``tries`` however it ends (``timeout``: the session's unless given);
        its status (0: no answer) and JSON body."""
        start = time.monotonic()
        status, body = 0, {}
        try:
            async with self.session.request(
                method, url, headers=key_headers(url), timeout=timeout or self.session.timeout
            ) as r:
                status = r.status
                try:
                    body = await r.json(content_type=None)
                except ValueError:
                    body = {"error": "not JSON"}
        except aiohttp.ClientError as exc:
            body = {"error": (str(exc).splitlines() or [type(exc).__name__])[0]}
        finally:  # an attempt cut off with the run counts too, with no answer
            tries.append(Try(start - self.t0, time.monotonic() - self.t0, status))
        return status, body


# --- admin calls -------------------------------------------------------------------------------


async def admin_json(session: aiohttp.ClientSession, method: str, url: str, *, absent: bool = False) -> Any:
    """An admin call's JSON answer (None for a route the service does not have, if ``absent``); a
    refused or failed call is a one-line RuntimeError."""
    try:
        async with session.request(method, url, headers=key_headers(url)) as r:
            text = await r.text()
    except aiohttp.ClientError as exc:
        reason = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise RuntimeError(f"{method} {url} failed: {reason}") from None
    if absent and r.status == 404:
        return None
    if r.status >= 400:
        raise RuntimeError(f"{method} {url} answered HTTP {r.status}: {text.strip()}")
    return json.loads(text)


async def service_stats(session: aiohttp.ClientSession, url: str) -> dict[str, Any]:
    """A service's ``/admin/stats``, or ``{"error": ...}`` if it is gone (killed mid-run)."""
    try:
        return await admin_json(session, "GET", url + "/admin/stats")
    except RuntimeError as exc:  # admin_json's one line
        return {"error": str(exc)}


async def bulkhead_reading(
    session: aiohttp.ClientSession, order_url: str, *, timeline: bool = False
) -> dict[str, Any] | None:
    """``/admin/bulkhead`` (with its timeline if asked), or None for a variant without one;
    a failed call is a one-line RuntimeError."""
    url = order_url + "/admin/bulkhead" + ("?timeline=1" if timeline else "")
    return await admin_json(session, "GET", url, absent=True)


@dataclass(frozen=True)
class Received:
    """What Order Service received (its ``GET /admin/stats``): orders and stock checks, retries included.

    ``error`` says why the counts are unknown (the service did not answer); they are 0 then.
    """

    orders: int = 0
    stock_checks: int = 0
    error: str | None = None

    @classmethod
    def read(cls, answer: Mapping[str, Any]) -> Received:
        if "error" in answer:
            return cls(error=str(answer["error"]))
        return cls(int(answer["orders"]), int(answer["stock_checks"]))


@dataclass(frozen=True)
class PoolsReading:
    """Order Service's ``GET /admin/pools``: its variant and pool rule, and each dependency's pool
    (a shared pool's counts of sockets open, ``open`` and ``peak``, are the one pool's, under both)."""

    variant: Variant
    pool_rule: PoolRule
    payment: PoolStats
    inventory: PoolStats

    @property
    def shared(self) -> bool:
        return self.variant == "shared"

    @classmethod
    def read(cls, answer: Mapping[str, Any]) -> PoolsReading:
        return cls(
            variant=check_choice("variant", answer.get("variant"), ALL_VARIANTS),
            pool_rule=check_choice("pool_rule", answer.get("pool_rule"), POOL_RULES),
            payment=PoolStats(**answer["payment"]),
            inventory=PoolStats(**answer["inventory"]),
        )


@dataclass(frozen=True)
class Readings:
    """What the three services say at a run's end: each one's counters, the bulkhead's, the pools'."""

    payment: DependencyStats
    inventory: DependencyStats
    order_service: Received
    bulkhead: dict[str, Any] | None
    pools: PoolsReading


async def read_services(
    session: aiohttp.ClientSession, order_url: str, payment_url: str, inventory_url: str, *, timeline: bool
) -> Readings:
    """Each service's ``/admin/stats``, the Order Service's bulkhead (its timeline if asked) and pools."""
    return Readings(
        payment=DependencyStats.read(await service_stats(session, payment_url)),
        inventory=DependencyStats.read(await service_stats(session, inventory_url)),
        order_service=Received.read(await service_stats(session, order_url)),
        bulkhead=await bulkhead_reading(session, order_url, timeline=timeline),
        pools=PoolsReading.read(await admin_json(session, "GET", order_url + "/admin/pools")),
    )


@contextlib.asynccontextmanager
async def outside_client(
    order_url: str, payment_url: str, inventory_url: str, timeout: float
) -> AsyncIterator[aiohttp.ClientSession]:
    """The load's own session (never a limit: no pool, a fresh connection per request), with each
    service reset to its start state first and Payment switched back to normal at the end, whatever
    happened (``timeout``: seconds the whole session may last)."""
    connector = aiohttp.TCPConnector(limit=0, force_close=True)  # the client itself is never the limit
    async with aiohttp.ClientSession(
        connector=connector, timeout=aiohttp.ClientTimeout(total=timeout)
    ) as session:
        for url in (payment_url, inventory_url, order_url):  # each back to its start state
            await admin_json(session, "POST", url + "/admin/reset")
        try:
            yield session
        finally:
            await heal_payment(session, payment_url)


def slow_url(payment_url: str, latency: float | None) -> str:
    """Payment's switch to slow, at ``latency`` seconds a call (None: its own slow latency)."""
    url = f"{payment_url}/admin/slow?on=1"
    return url if latency is None else url + f"&ms={round(latency * 1000)}"


async def heal_payment(session: aiohttp.ClientSession, payment_url: str) -> None:
    """Switch Payment back to normal, whatever happened to the run (Payment may be gone)."""
    with contextlib.suppress(aiohttp.ClientError, RuntimeError):
        await admin_json(session, "POST", f"{payment_url}/admin/slow?on=0")
