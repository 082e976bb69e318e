"""The storm that stays, on real sockets: lesson 004's Order Service, callers that time out and retry,
and a Payment with a few workers and a queue that slows for a while (notebook 07, section 5).

A steady load of orders (``rate`` a second, evenly spaced) reaches an Order Service on 127.0.0.1
whose Payment is a :class:`~.queued.QueuedPayment`. Each order's caller gives up after ``timeout``
seconds (it closes the connection; the Order Service cancels the order and its Payment call, and
Payment, which never hears of it, keeps the call queued) and retries a timeout or a 503 under
notebook 06's policy (:data:`~.retrying.LIVE_RETRY`: 3 attempts, full jitter from 100 ms). Payment
slows from ``before`` seconds for ``slow_for`` seconds, then heals. Two setups:

- **no fix**: ``separate`` pools of :data:`MANY` connections, so Payment's own queue takes every call;
- **the fix**: ``limited``, the bulkhead of lesson 004 with as many running as Payment has workers
  and as many waiting, 503 at once beyond, and Payment dropping calls whose caller has gone.

:func:`run_storm` sends the plan's :class:`StormLoad` (a steady rate from callers that give up) with the one
driver (:func:`~.load.drive`); :func:`run_storms` runs both side by side, each on its own free ports;
each :class:`LiveStorm` holds the orders answered per bin of time and Payment's own counters, at the heal
and at the end.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

import aiohttp

from bulkhead_lab.live.net.server import Progress
from bulkhead_lab.live.net.side_by_side import SummedProgress, staggered
from bulkhead_lab.live.orders.clients import Client, Kind, Try
from bulkhead_lab.live.orders.load import MAX_SLOW_LATENCY, drive
from bulkhead_lab.live.orders.queued import PaymentCounts, QueuedPayment
from bulkhead_lab.live.orders.results import OrdersRun
from bulkhead_lab.live.orders.retrying import LIVE_RETRY, RetryClient, check_policy
from bulkhead_lab.live.orders.service import OrderService, OrderSettings, inventory
from bulkhead_lab.live.orders.steady import SteadyLoad
from bulkhead_lab.retries.policy import JITTER_SEED, REFUSED, RetryPolicy
from bulkhead_lab.validation import check_int, check_real

MANY = 40  # connections to Payment with no fix: more than it will ever have open
BIN = 0.5  # seconds per goodput bin


class GivingUpClient(RetryClient):
    """Callers that give up: an attempt with no answer after ``gives_up_after`` s is closed and retried
    as after a 503; at ``until`` (seconds on the client's clock) a request is cut off where it is."""

    def __init__(
        self, session: aiohttp.ClientSession, t0: float, load: StormLoad, on_progress: Progress | None
    ) -> None:
        super().__init__(
            session, t0, load.requests, on_progress, retry=load.retry, budget=None, seed=load.seed
        )
        self.gives_up_after, self.until = load.gives_up_after, load.seconds

    async def attempt(
        self, method: str, url: str, tries: list[Try], timeout: aiohttp.ClientTimeout | None = None
    ) -> tuple[int, dict[str, Any]]:
        try:
            status, body = await super().attempt(
                method, url, tries, aiohttp.ClientTimeout(self.gives_up_after)
            )
        except asyncio.TimeoutError:
            status, body = 0, {"error": f"gave up after {self.gives_up_after:g} s"}
        return status or REFUSED, body

    async def attempts(self, kind: Kind, method: str, url: str, tries: list[Try]) -> dict[str, Any]:
        left = self.until - (time.monotonic() - self.t0)
        try:
            return await asyncio.wait_for(super().attempts(kind, method, url, tries), left)
        except asyncio.TimeoutError:  # the run is over: an attempt under way ends with no answer
            if not tries:  # cut off before its first attempt went
                tries.append(Try(self.until, self.until, 0))
            return {}


@dataclass(frozen=True)
class StormLoad(SteadyLoad):
    """Notebook 05's steady rate sent by callers that give up after ``gives_up_after`` s and retry under
    ``retry`` (jitter from ``random.Random(seed)``); the load ends at ``seconds``, an order still under
    way cut off."""

    retry: RetryPolicy | None = LIVE_RETRY
    seed: int = JITTER_SEED
    gives_up_after: float = 1.0

    def __post_init__(self) -> None:
        super().__post_init__()
        check_policy(self.retry)
        check_int("seed", self.seed, 0)
        check_real("gives_up_after", self.gives_up_after, 0.0, MAX_SLOW_LATENCY, low_open=True)

    def client(self, session: aiohttp.ClientSession, t0: float, on_progress: Progress | None) -> Client:
        return GivingUpClient(session, t0, self, on_progress)


@dataclass(frozen=True)
class StormPlan:
    """The run: load, its callers, Payment, and when Payment is slow (seconds from the start); every bad
    value is the load's one-line :class:`ValueError`."""

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
        self.load()

    def load(self) -> StormLoad:
        """The orders, evenly spaced, from callers that give up after ``timeout`` and retry."""
        return StormLoad(self.rate, self.before, self.slow_for, self.after, self.slow_latency, self.latency,
                         self.retry, self.seed, self.timeout)  # fmt: skip

    @property
    def healed(self) -> float:
        return self.before + self.slow_for

    @property
    def seconds(self) -> float:
        return self.healed + self.after

    @property
    def orders(self) -> int:
        return self.load().orders

    def settings(self, fix: bool) -> OrderSettings:
        if fix:
            return OrderSettings("limited", limit=self.workers, queue=self.workers)
        return OrderSettings("separate", limit=MANY)


@dataclass(frozen=True)
class LiveStorm:
    """One run: the orders answered in time per :data:`BIN` seconds; orders that gave up (or were cut off
    at the end); and Payment's own counters when it healed and at the end."""

    plan: StormPlan
    fix: bool
    goodput: tuple[int, ...]
    gave_up: int
    at_heal: PaymentCounts
    payment: PaymentCounts
    duration: float

    @classmethod
    def read(cls, plan: StormPlan, fix: bool, run: OrdersRun, pay: QueuedPayment) -> LiveStorm:
        """``run`` (the one driver's) binned, with what ``pay`` counted."""
        goodput = [0] * (int(plan.seconds / BIN) + 1)
        for order in run.orders:
            if order.outcome == "served":
                goodput[min(int(order.end / BIN), len(goodput) - 1)] += 1
        counts = pay.stats()
        gave_up = len(run.orders) - run.served
        return cls(plan, fix, tuple(goodput), gave_up, pay.healed or counts, counts, run.duration)

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


async def run_storm(
    fix: bool, plan: StormPlan = StormPlan(), on_progress: Progress | None = None
) -> LiveStorm:
    """One run of ``plan`` with or without the fix, its services on free ports (closed on any exit)."""
    pay = QueuedPayment(plan.workers, plan.latency, plan.slow_latency, drop_gone=fix)
    async with pay, inventory() as inv, OrderService(plan.settings(fix), pay.url, inv.url) as orders:
        run = await drive(orders.url, pay.url, inv.url, plan.load(), on_progress=on_progress)
    return LiveStorm.read(plan, fix, run, pay)


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
