"""The capstone, live: a service calls Payment and Inventory; the fault proxy slows Payment; did the
learner's stack keep its walls?

The service sends :data:`RATE` requests a second to each dependency for :data:`LOAD_SECONDS` s (an
open loop). Payment stands behind a :class:`~bulkhead_lab.live.stack.proxy.FaultProxy`; at
:data:`SLOW_AT` s the proxy adds :data:`SLOWDOWN` s to every Payment call. Each dependency has its
own ``httpx.AsyncClient`` built from the learner's stack (a dict, :func:`read_stack`): its
``httpx.Limits`` and ``httpx.Timeout`` (httpx's defaults where a key is missing), optionally the
course's ``Bulkhead`` around its calls, and a retry budget per dependency or one ``shared`` (the
course's :class:`~bulkhead_lab.retries.budgets.RetryBudget`; one retry at most). Every request that
fails (a timeout of any kind, HTTP 5xx, a refusal) is retried while its budget allows.

:func:`run_stack` measures; notebook 10's capstone judge, beside the course's other judges, judges what
it measured. A run takes about :data:`CUTOFF` s: a request still open then has waited without bound.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from bulkhead_lab.live.bulkhead import BulkheadRejectedError
from bulkhead_lab.live.heap import heap_frozen
from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.net.key import key_headers
from bulkhead_lab.live.net.lag import busy_reason, watch_lag
from bulkhead_lab.live.net.server import Progress, cancel_all
from bulkhead_lab.live.stack.client_pools import HTTPX_LIMITS, HTTPX_TIMEOUT
from bulkhead_lab.live.stack.proxy import FaultProxy
from bulkhead_lab.retries.budgets import RetryBudget

RATE = 40.0  # requests a second to each dependency
LATENCY = 0.02  # seconds, each dependency when healthy
LOAD_SECONDS = 2.5  # how long requests arrive
SLOW_AT = 0.5  # seconds into the load when the proxy slows Payment
SLOWDOWN = 3.0  # seconds the proxy adds to every Payment call
CUTOFF = 7.0  # seconds after the start: a request still open then waited without bound
CAPACITY = 10  # calls Payment's owners let one service send at once
SLO = 0.3  # seconds: every Inventory request answered within it, and none failed
SAMPLE = 0.1  # seconds between two readings of the compartments' counters
NAMES = ("payment", "inventory")
REQUESTS = len(NAMES) * int(RATE * LOAD_SECONDS)  # requests a run sends, both dependencies


class StackError(ValueError):
    """The stack is not one the run can build: one line saying what to write."""


@dataclass
class Compartment:
    """One dependency's client, its wall and its counters."""

    name: str
    limits: httpx.Limits
    timeout: httpx.Timeout
    bulkhead: Any = None
    budget: RetryBudget = field(default_factory=lambda: RetryBudget(0.0))
    in_flight: int = 0
    peak: int = 0
    requests: int = 0
    retries: int = 0
    failed_calls: int = 0  # calls (attempts) that failed: timeouts, refusals, 5xx
    timeouts: int = 0
    refused: int = 0
    failed: int = 0  # requests that failed after their retries
    took: list[float] = field(default_factory=list)  # seconds, every request that ended
    spans: list[tuple[float, float]] = field(default_factory=list)  # (start, end), monotonic, the same
    stalled: list[float] = field(default_factory=list)  # seconds of each the run's own loop stood still

    def late(self, slo: float) -> int:
        """Requests that took over ``slo`` s beyond the time the machine stalled the run's own event loop
        while they were open (a busy machine's doing, not a dependency's: :func:`~.net.lag.watch_lag`
        measures it)."""
        return sum(took - stalled > slo for took, stalled in zip(self.took, self.stalled, strict=True))

    @property
    def limit(self) -> int | None:
        """The most calls at once this compartment lets through: its bulkhead's, else its pool's."""
        if self.bulkhead is not None and isinstance(getattr(self.bulkhead, "limit", None), int):
            return int(self.bulkhead.limit)
        return self.limits.max_connections

    @property
    def waits_without_bound(self) -> bool:
        """No pool timeout or no read timeout: a call may wait for ever."""
        return self.timeout.pool is None or self.timeout.read is None


def read_stack(stack: object) -> dict[str, Compartment]:
    """The learner's stack as compartments; a :class:`StackError` saying what is wrong with it."""
    if not isinstance(stack, Mapping):
        raise StackError(f"the stack is a {type(stack).__name__}, not a dict like the template's")
    out: dict[str, Compartment] = {}
    budgets = stack.get("retry_budget", {}) or {}
    if not isinstance(budgets, Mapping):
        raise StackError("retry_budget is a dict: {'payment': 0.1, 'inventory': 0.1} or {'shared': 0.1}")
    shared = RetryBudget(float(budgets["shared"])) if "shared" in budgets else None
    for name in NAMES:
        part = stack.get(name, {}) or {}
        if not isinstance(part, Mapping):
            raise StackError(f"{name} is a dict of limits, timeout and bulkhead (got {type(part).__name__})")
        limits = part.get("limits", HTTPX_LIMITS)
        timeout = part.get("timeout", HTTPX_TIMEOUT)
        if not isinstance(limits, httpx.Limits):
            raise StackError(f"{name}'s limits is an httpx.Limits(max_connections=...)")
        timeout = timeout if isinstance(timeout, httpx.Timeout) else _timeout(name, timeout)
        budget = shared if shared is not None else RetryBudget(float(budgets.get(name, 0.0)))
        out[name] = Compartment(name, limits, timeout, part.get("bulkhead"), budget)
    return out


def _timeout(name: str, value: object) -> httpx.Timeout:
    if value is None or isinstance(value, (int, float)):
        return httpx.Timeout(value)
    raise StackError(f"{name}'s timeout is an httpx.Timeout(...) or seconds (got {value!r})")


@dataclass(frozen=True)
class StackRun:
    """What one run measured: the compartments' counters, the most calls Payment held at once (the
    proxy counts them), the requests still open at the cutoff per dependency, and the counters read
    every :data:`SAMPLE` s during the slowdown ``(seconds, payment in flight, payment failed calls)``."""

    compartments: dict[str, Compartment]
    payment_peak: int
    open_at_cutoff: dict[str, int]
    samples: tuple[tuple[float, int, int], ...]
    seconds: float = 0.0  # how long the run took, from the first request to the last ended or the cutoff
    lag: float = 0.0  # seconds: the longest the run's own event loop stood still while it drove
    busy: str = ""  # why the machine was too busy for the run's timings to speak (net.lag.busy_reason), or ""


async def _attempt(part: Compartment, client: httpx.AsyncClient, url: str) -> bool:
    async def call() -> httpx.Response:
        return await client.post(url, json={})

    part.in_flight += 1
    part.peak = max(part.peak, part.in_flight)
    try:
        answer = await (part.bulkhead.execute(call) if part.bulkhead is not None else call())
        ok = answer.status_code < 500
    except httpx.TimeoutException:
        part.timeouts += 1
        ok = False
    except BulkheadRejectedError:
        part.refused += 1
        ok = False
    except httpx.HTTPError:
        ok = False
    finally:
        part.in_flight -= 1
    part.failed_calls += not ok
    return ok


async def _request(part: Compartment, client: httpx.AsyncClient, url: str, ended: Callable[[], None]) -> None:
    start = time.monotonic()
    part.requests += 1
    part.budget.on_request()
    ok = await _attempt(part, client, url)
    if not ok and part.budget.can_retry():
        part.budget.on_retry()
        part.retries += 1
        ok = await _attempt(part, client, url)
    part.failed += not ok
    end = time.monotonic()
    part.took.append(end - start)
    part.spans.append((start, end))
    ended()


async def run_stack(stack: object, on_progress: Progress | None = None) -> StackRun:
    """One live run of the capstone with the learner's ``stack`` (about :data:`CUTOFF` s at most);
    ``on_progress(ended, REQUESTS)`` every :data:`SAMPLE` s while it runs. Cancelled (Kernel > Interrupt),
    every request is cancelled and the proxy and both dependencies close before it returns."""
    parts = read_stack(stack)
    async with Dependency("payment", LATENCY) as payment, Dependency("inventory", LATENCY) as inventory:
        async with FaultProxy(payment.url, "payment proxy") as proxy:
            urls = {"payment": f"{proxy.url}/pay", "inventory": f"{inventory.url}/stock"}
            clients = {
                n: httpx.AsyncClient(limits=p.limits, timeout=p.timeout, headers=key_headers(urls[n]))
                for n, p in parts.items()
            }
            try:
                for n in NAMES:  # a first call each, not counted: a cold client is not the wall's doing
                    await clients[n].post(urls[n], json={})
                proxy.reset_counts()
                with heap_frozen():  # a full collection over the kernel's heap would stall the loop
                    return await _drive(parts, clients, urls, proxy, on_progress)
            finally:
                for client in clients.values():
                    await client.aclose()


async def _drive(
    parts: dict[str, Compartment],
    clients: dict[str, httpx.AsyncClient],
    urls: dict[str, str],
    proxy: FaultProxy,
    on_progress: Progress | None = None,
) -> StackRun:
    tasks: dict[str, list[asyncio.Task[None]]] = {n: [] for n in NAMES}
    samples: list[tuple[float, int, int]] = []
    done = [0]

    def ended() -> None:
        done[0] += 1

    def report() -> None:  # every SAMPLE s, not per request: a progress bar's messages cost the loop time
        if on_progress is not None:
            on_progress(done[0], REQUESTS)

    start = time.monotonic()
    async with watch_lag() as lag:  # how long the run's own loop stood still, which every open request waited
        try:
            for i in range(int(RATE * LOAD_SECONDS)):
                await asyncio.sleep(max(0.0, start + i / RATE - time.monotonic()))
                if i == int(RATE * SLOW_AT):
                    proxy.inject(delay=SLOWDOWN)
                for n in NAMES:
                    tasks[n].append(asyncio.ensure_future(_request(parts[n], clients[n], urls[n], ended)))
                if i % int(RATE * SAMPLE) == 0:
                    report()
                    if i >= RATE * SLOW_AT:
                        samples.append((time.monotonic() - start, proxy.open, parts["payment"].failed_calls))
            every = [t for ts in tasks.values() for t in ts]
            while any(not t.done() for t in every) and time.monotonic() - start < CUTOFF:
                await asyncio.sleep(SAMPLE)
                report()
                samples.append((time.monotonic() - start, proxy.open, parts["payment"].failed_calls))
            report()
            open_at_cutoff = {n: sum(not t.done() for t in tasks[n]) for n in NAMES}
            seconds = time.monotonic() - start
        finally:
            await cancel_all([t for ts in tasks.values() for t in ts])
    for part in parts.values():
        part.stalled = [_stood_still(lag.ticks, s, e) for s, e in part.spans]
    busy = busy_reason(lag.worst, lag.load, lag.cores)
    return StackRun(parts, proxy.peak, open_at_cutoff, tuple(samples), seconds, lag.worst, busy)


def _stood_still(ticks: list[tuple[float, float]], start: float, end: float) -> float:
    """Seconds of ``start..end`` (monotonic, the loop's clock) the loop stood still, by the ticker."""
    return sum(max(0.0, min(end, woke) - max(start, woke - late)) for woke, late in ticks)
