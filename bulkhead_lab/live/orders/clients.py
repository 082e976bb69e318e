"""The outside client of lesson 004's load: one request, its answer, and retries of a 503.

:class:`RequestResult` is one order or stock check as the client saw it, with every
attempt it made. :class:`Client` sends them; it may retry a 503 ("busy, try again") under
a :class:`~bulkhead_lab.retries.policy.RetryPolicy` (attempts and a backoff whose ``base`` and
``cap`` are in **seconds** here, :data:`LIVE_BACKOFF`), within a budget
(:class:`~bulkhead_lab.retries.budgets.RatioBudget` or :class:`~bulkhead_lab.retries.budgets.TokenBucket`)
that the one client keeps for its whole drive, through notebook 06's retry loop
(:func:`~bulkhead_lab.retries.policy.call_with_retries`) and budget
(:func:`~bulkhead_lab.retries.budgets.client_budget`):

- a ratio budget lets a retry go while ``retries < max(minimum, ratio x calls)`` over the
  last ``window`` **seconds** (the default 1000 s covers any drive), ``calls`` counting
  the originals and the retries; a retry is charged when it is granted, before its backoff;
- a token bucket is the AWS SDK's quota: a retry takes ``retry_cost`` tokens (a 503 is not
  a timeout), a success puts back its last retry's cost, or ``refund``.

A retry is sent its backoff's delay after the refusal; the jitter draws from one
``random.Random(seed)`` per client.

What the services say at the end of a run is read here too (:func:`read_services`), each
answer into its dataclass: :class:`~bulkhead_lab.live.net.dependency.DependencyStats` for
Payment and Inventory, :class:`Received` for Order Service, :class:`PoolsReading` for its pools.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

import aiohttp

from bulkhead_lab.live.net.dependency import DependencyStats
from bulkhead_lab.live.net.key import key_headers
from bulkhead_lab.live.net.server import Progress
from bulkhead_lab.live.orders.settings import ALL_VARIANTS, Variant
from bulkhead_lab.live.orders.socket_pools import POOL_RULES, PoolRule, PoolStats
from bulkhead_lab.retries.budgets import Budget, RatioBudget, RetryQuota, TokenBucket, client_budget
from bulkhead_lab.retries.policy import JITTER_SEED, REFUSED, Backoff, RetryPolicy, call_with_retries
from bulkhead_lab.validation import check_choice

#: What became of a request: answered 200, refused (503: the bulkhead was full), another status, or none.
Outcome = Literal["served", "refused", "failed", "no answer"]
#: The two kinds of request the load sends: an order (Payment) and a stock check (Inventory).
Kind = Literal["order", "stock"]
#: Why a refused request stopped retrying: its attempts ran out, the budget denied it, or it did not stop.
GaveUp = Literal["attempts", "budget", ""]

RETRY_ON = REFUSED  # what a client retries: the bulkhead's "busy, try again" (a refused order)
LIVE_BACKOFF = Backoff(0.1, 20.0, "full")  # the AWS SDK's 100 ms base and 20 s cap, full jitter, in seconds
LIVE_RETRY = RetryPolicy(3, LIVE_BACKOFF)  # ... and its (and the SRE book's) 3 attempts


class Try(NamedTuple):
    """One attempt: sent and answered (seconds from the drive's start) and its status (0: no answer)."""

    start: float
    end: float
    status: int


@dataclass(frozen=True)
class RequestResult:
    """One request as the outside client saw it; times in seconds from the drive's start.

    ``status``, ``end`` and ``body`` are its last attempt's; ``start`` its first's, so
    ``latency`` covers every retry and backoff. ``tries`` lists every attempt;
    ``gave_up`` says why a refused request stopped retrying ("attempts", "budget"), or "".
    """

    kind: Kind
    index: int  # the client's sending order, from 1
    status: int  # HTTP status, or 0 when no answer came (connection failed)
    latency: float
    start: float
    end: float
    body: dict[str, Any] = field(default_factory=dict)
    tries: tuple[Try, ...] = ()
    gave_up: GaveUp = ""

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


def check_budget(budget: object) -> Budget | None:
    """``budget`` if it is None, a RatioBudget or a TokenBucket; one line if not."""
    if budget is None or isinstance(budget, (RatioBudget, TokenBucket)):
        return budget
    raise ValueError(f"budget must be None, a RatioBudget or a TokenBucket (got {budget!r})")


def check_policy(retry: object) -> RetryPolicy | None:
    """``retry`` if it is None or a RetryPolicy; one line if not."""
    if retry is None or isinstance(retry, RetryPolicy):
        return retry
    raise ValueError(f"retry must be None or a RetryPolicy (got {retry!r})")


class Client:
    """One outside client over ``session``: sends requests, retrying 503s under ``retry`` and ``budget``
    through notebook 06's loop (:func:`~bulkhead_lab.retries.policy.call_with_retries`)."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        t0: float,
        *,
        retry: RetryPolicy | None = None,
        budget: Budget | None = None,
        seed: int = JITTER_SEED,
        total: int = 0,
        on_progress: Progress | None = None,
    ) -> None:
        self.session = session
        self.t0 = t0
        self.retry = check_policy(retry)
        self.budget = client_budget(check_budget(budget), lambda: time.monotonic() - t0)
        self.random = random.Random(seed)
        self.total = total
        self.done = 0
        self.on_progress = on_progress
        self.gives_up_after: float | None = None  # seconds an attempt waits for its answer (None: no end)

    def _backoff(self, policy: RetryPolicy) -> Callable[[int], float]:
        """One request's sleeps: the policy's backoff, each drawn from the client's RNG (decorrelated
        jitter from that request's last sleep)."""
        last: list[float | None] = [None]

        def after(n: int) -> float:
            b = policy.backoff
            sleep = 0.0 if b is None else b.delay(n, self.random.random(), last[0])
            last[0] = sleep
            return sleep

        return after

    async def send(
        self, kind: Kind, index: int, method: str, url: str, *, retry: bool = True, until: float | None = None
    ) -> RequestResult:
        """Send one request (retrying a 503 if ``retry`` and a policy allow) and count it done. A caller
        that gives up (:attr:`gives_up_after` seconds with no answer) closes its connection and retries
        as after a 503; at ``until`` (seconds on the client's clock) the request is cut off where it is."""
        policy = self.retry if retry else None
        tries: list[Try] = []
        body: dict[str, Any] = {}

        async def once() -> int:
            nonlocal body
            status, body = await self._once(method, url, tries)
            return RETRY_ON if status == 0 and self.gives_up_after is not None else status

        if policy is None:
            attempts = once()
        else:
            attempts = call_with_retries(once, self.budget, policy.attempts, self._backoff(policy))
        try:
            await asyncio.wait_for(attempts, None if until is None else until - (time.monotonic() - self.t0))
        except asyncio.TimeoutError:  # the run is over: an attempt under way ends with no answer
            if until is None:
                raise
            if not tries:  # cut off before its first attempt went
                tries.append(Try(until, until, 0))
        status = tries[-1].status
        gave_up: GaveUp = ""
        if status == RETRY_ON and policy is not None and policy.attempts > 1:
            gave_up = "attempts" if len(tries) >= policy.attempts else "budget"
        if status == 200 and isinstance(self.budget, RetryQuota):  # its last retry's cost back, or 1
            self.budget.success(self.budget.bucket.retry_cost if len(tries) > 1 else None)
        self.done += 1
        if self.on_progress is not None:
            self.on_progress(self.done, self.total)
        first, last = tries[0], tries[-1]
        return RequestResult(
            kind, index, status, last.end - first.start, first.start, last.end, body, tuple(tries), gave_up
        )

    async def _once(self, method: str, url: str, tries: list[Try]) -> tuple[int, dict[str, Any]]:
        start = time.monotonic()
        status, body = 0, {}
        gives_up = self.gives_up_after
        timeout = self.session.timeout if gives_up is None else aiohttp.ClientTimeout(total=gives_up)
        try:
            async with self.session.request(method, url, headers=key_headers(url), timeout=timeout) as r:
                status = r.status
                try:
                    body = await r.json(content_type=None)
                except ValueError:
                    body = {"error": "not JSON"}
        except aiohttp.ClientError as exc:
            body = {"error": (str(exc).splitlines() or [type(exc).__name__])[0]}
        except asyncio.TimeoutError:
            if gives_up is None:
                raise
            body = {"error": f"gave up after {gives_up:g} s"}
        finally:  # an attempt cut off with the run counts too, with no answer
            tries.append(Try(start - self.t0, time.monotonic() - self.t0, status))
        return status, body


# --- admin calls -------------------------------------------------------------------------------


async def admin_json(session: aiohttp.ClientSession, method: str, url: str) -> dict[str, Any]:
    """An admin call's JSON answer; a refused or failed call is a one-line RuntimeError."""
    try:
        async with session.request(method, url, headers=key_headers(url)) as r:
            text = await r.text()
    except aiohttp.ClientError as exc:
        reason = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise RuntimeError(f"{method} {url} failed: {reason}") from None
    if r.status >= 400:
        raise RuntimeError(f"{method} {url} answered HTTP {r.status}: {text.strip()}")
    return json.loads(text)


async def service_stats(session: aiohttp.ClientSession, url: str) -> dict[str, Any]:
    """A service's ``/admin/stats``, or ``{"error": ...}`` if it is gone (killed mid-run)."""
    try:
        return await admin_json(session, "GET", url + "/admin/stats")
    except (aiohttp.ClientError, RuntimeError) as exc:
        return {"error": (str(exc).splitlines() or [type(exc).__name__])[0]}


async def bulkhead_reading(
    session: aiohttp.ClientSession, order_url: str, *, timeline: bool = False
) -> dict[str, Any] | None:
    """``/admin/bulkhead`` (with its timeline if asked), or None for a variant without one;
    a failed call is a one-line RuntimeError."""
    url = order_url + "/admin/bulkhead" + ("?timeline=1" if timeline else "")
    try:
        async with session.get(url, headers=key_headers(url)) as r:
            if r.status == 404:
                return None
            if r.status >= 400:
                raise RuntimeError(f"GET {url} answered HTTP {r.status}: {(await r.text()).strip()}")
            return await r.json()
    except aiohttp.ClientError as exc:
        reason = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise RuntimeError(f"GET {url} failed: {reason}") from None


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
