"""The storm that stays, on real sockets: lesson 004's Order Service, callers that time out and retry,
and a Payment with a few workers and a queue that slows for a while (notebook 07, section 5).

A steady load of orders (``rate`` a second, evenly spaced) reaches an Order Service on 127.0.0.1
whose Payment is a :class:`~.queued.QueuedPayment`. Each order's caller gives up after ``timeout``
seconds (it closes the connection; the Order Service cancels the order and its Payment call, and
Payment, which never hears of it, keeps the call queued) and retries a timeout or a 503 under
notebook 06's policy (:data:`~.clients.LIVE_RETRY`: 3 attempts, full jitter from 100 ms). Payment
slows from ``before`` seconds for ``slow_for`` seconds, then heals. Two setups:

- **no fix**: ``separate`` pools of :data:`MANY` connections, so Payment's own queue takes every call;
- **the fix**: ``limited``, the bulkhead of lesson 004 with as many running as Payment has workers
  and as many waiting, 503 at once beyond, and Payment dropping calls whose caller has gone.

:func:`run_storms` runs both side by side, each on its own free ports; each :class:`LiveStorm` holds the
orders answered per bin of time and Payment's own counters, at the heal and at the end.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass

import aiohttp

from bulkhead_lab.live.net.key import key_headers
from bulkhead_lab.live.net.server import Progress, gather_all
from bulkhead_lab.live.net.side_by_side import SummedProgress, staggered
from bulkhead_lab.live.orders.clients import LIVE_RETRY
from bulkhead_lab.live.orders.queued import PaymentCounts, QueuedPayment
from bulkhead_lab.live.orders.service import OrderService, OrderSettings, inventory
from bulkhead_lab.retries.policy import JITTER_SEED, RetryPolicy
from bulkhead_lab.validation import check_real

MANY = 40  # connections to Payment with no fix: more than it will ever have open
BIN = 0.5  # seconds per goodput bin


@dataclass(frozen=True)
class StormPlan:
    """The run: load, its callers, Payment, and when Payment is slow (seconds from the start)."""

    rate: float = 10.0  # orders a second
    before: float = 2.0  # healthy, then slow for ``slow_for``, then healthy again for ``after``
    slow_for: float = 2.0
    after: float = 3.0
    timeout: float = 1.0  # the callers'
    retry: RetryPolicy = LIVE_RETRY
    workers: int = 2  # Payment's: 2 / 0.1 s = 20 calls a second healthy, 2 while slow
    latency: float = 0.1
    slow_latency: float = 1.0
    seed: int = JITTER_SEED

    def __post_init__(self) -> None:
        check_real("rate", self.rate, 0.0, 200.0, low_open=True)
        for name in ("before", "slow_for", "after"):
            check_real(name, getattr(self, name), 0.0, 60.0)
        check_real("timeout", self.timeout, 0.0, 60.0, low_open=True)

    @property
    def healed(self) -> float:
        return self.before + self.slow_for

    @property
    def seconds(self) -> float:
        return self.healed + self.after

    @property
    def orders(self) -> int:
        return int(self.rate * self.seconds)

    def settings(self, fix: bool) -> OrderSettings:
        if fix:
            return OrderSettings("limited", limit=self.workers, queue=self.workers)
        return OrderSettings("separate", limit=MANY)


@dataclass(frozen=True)
class LiveStorm:
    """One run: per :data:`BIN` seconds the orders answered in time and the calls sent (originals and
    retries); requests that gave up; and Payment's own counters when it healed and at the end."""

    plan: StormPlan
    fix: bool
    settings: OrderSettings
    goodput: tuple[int, ...]
    sent: tuple[int, ...]
    gave_up: int
    at_heal: PaymentCounts
    payment: PaymentCounts
    duration: float

    def rate(self, start: float, stop: float) -> float:
        """Orders answered a second over ``start`` .. ``stop`` seconds."""
        first, last = int(start / BIN), int(stop / BIN)
        return sum(self.goodput[first:last]) / (stop - start)

    def back_after(self, share: float = 0.5) -> float | None:
        """Seconds from the heal until a bin answers ``share`` of the load (None: not in the run)."""
        want, first = share * self.plan.rate * BIN, int(self.plan.healed / BIN)
        last = int(self.plan.seconds / BIN)
        back = next((b for b in range(first, last) if self.goodput[b] >= want), None)
        return None if back is None else (back - first) * BIN

    @property
    def wasted_after_heal(self) -> int:
        return self.payment.wasted - self.at_heal.wasted


async def _caller(
    session: aiohttp.ClientSession,
    url: str,
    plan: StormPlan,
    draw: random.Random,
    log: dict[str, list[float]],
) -> bool:
    """One order: its attempts, each given up after ``plan.timeout``; True if one was answered."""
    t0, sleep, backoff = log["t0"][0], 0.0, plan.retry.backoff
    for attempt in range(1, plan.retry.attempts + 1):
        log["sent"].append(time.monotonic() - t0)
        try:
            timeout = aiohttp.ClientTimeout(total=plan.timeout)
            async with session.post(url, timeout=timeout, headers=key_headers(url)) as answer:
                await answer.read()
                if answer.status == 200:
                    log["good"].append(time.monotonic() - t0)
                    return True
        except (asyncio.TimeoutError, aiohttp.ClientError):
            pass  # gave up on it, or the connection failed: try again
        if attempt < plan.retry.attempts:
            sleep = 0.0 if backoff is None else backoff.delay(attempt, draw.random(), sleep or backoff.base)
            await asyncio.sleep(sleep)
    return False


async def _load(url: str, plan: StormPlan, log: dict[str, list[float]], done: Progress) -> int:
    """Send ``plan.orders`` orders evenly; returns how many gave up. Cancelled, it ends every order."""
    draw, results, calls = random.Random(plan.seed), [], []
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:

        def finished(task: asyncio.Task[bool]) -> None:
            results.append(task)
            done(len(results), plan.orders)

        try:
            for i in range(plan.orders):
                await asyncio.sleep(max(0.0, log["t0"][0] + i / plan.rate - time.monotonic()))
                calls.append(asyncio.ensure_future(_caller(session, url, plan, draw, log)))
                calls[-1].add_done_callback(finished)
            end = log["t0"][0] + plan.seconds  # the run is over: an order still open is cut off
            await asyncio.wait(calls, timeout=max(0.0, end - time.monotonic()))
            answered = [task.done() and not task.cancelled() and task.result() for task in calls]
        finally:
            for task in calls:
                task.cancel()
            await asyncio.gather(*calls, return_exceptions=True)
    return sum(1 for ok in answered if not ok)


async def run_storm(
    fix: bool, plan: StormPlan = StormPlan(), on_progress: Progress | None = None
) -> LiveStorm:
    """One run of ``plan`` with or without the fix, its services on free ports (closed on any exit)."""
    settings, log = plan.settings(fix), {"sent": [], "good": [], "t0": [time.monotonic()]}
    pay = QueuedPayment(plan.workers, plan.latency, plan.slow_latency, drop_gone=fix)
    async with pay, inventory() as inv, OrderService(settings, pay.url, inv.url) as orders:
        log["t0"][0] = t0 = time.monotonic()
        at_heal: list[PaymentCounts] = []

        async def slowdown() -> None:
            await asyncio.sleep(plan.before)
            pay.slow = True
            await asyncio.sleep(plan.slow_for)
            pay.slow = False
            at_heal.append(pay.stats())

        load = _load(f"{orders.url}/orders", plan, log, on_progress or (lambda done, total: None))
        ended = await gather_all([asyncio.ensure_future(slowdown()), asyncio.ensure_future(load)])
        gave_up = ended[1] or 0  # the load's count; either failing, or both cancelled, ends both
        duration = time.monotonic() - t0
        counts = pay.stats()
    bins = int(plan.seconds / BIN) + 1
    goodput, sent = ([0] * bins for _ in range(2))
    for key, series in (("good", goodput), ("sent", sent)):
        for t in log[key]:
            series[min(int(t / BIN), bins - 1)] += 1
    return LiveStorm(plan, fix, settings, tuple(goodput), tuple(sent), gave_up, at_heal[0], counts, duration)


async def run_storms(
    plan: StormPlan = StormPlan(), on_progress: Progress | None = None
) -> tuple[LiveStorm, ...]:
    """No fix and the fix side by side (:func:`~bulkhead_lab.live.net.side_by_side.staggered`), each
    against its own services on free ports and timed from its own start: each Payment counts only
    its own calls, and 10 orders a second leave the shared loop idle between them.
    ``on_progress(done, total)`` counts the orders finished over both; cancelled, both end and
    close their services."""
    summed = SummedProgress([plan.orders, plan.orders], on_progress)
    runs = [(plan.seconds, run_storm(fix, plan, summed.for_run(i))) for i, fix in enumerate((False, True))]
    return tuple(await staggered(runs))
