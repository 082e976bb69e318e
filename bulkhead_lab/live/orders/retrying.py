"""Retrying clients against lesson 004's Order Service, side by side (notebook 06, section 7).

:class:`RetryClient` is lesson 004's client with notebook 06's retry loop
(:func:`~bulkhead_lab.retries.policy.call_with_retries`): a refused order (503) is retried under a
``RetryPolicy`` (backoff in **seconds** here, :data:`LIVE_BACKOFF`; jitter from one
``random.Random(seed)`` per client) within a budget kept over the whole drive
(:func:`~bulkhead_lab.retries.budgets.client_budget`: a ratio budget over the last ``window`` seconds,
a retry charged when granted; a token bucket is the AWS SDK's quota). A :class:`RetryingLoad` is
lesson 004's burst sent by one.

:func:`side_by_side` sends the lesson's 20 orders at once to lesson 004's ``limited`` Order Service (5
running, 5 waiting), Payment slow, from each client of :data:`CLIENTS` against its own services: no
retries, 3 attempts with the AWS SDK's backoff and no budget, within the SRE book's 10%, within the
AWS quota (about 4 s); :func:`~.reading.retries.retry_checks` says what holds on any machine. Payment
is slow at 2 s a call, longer than a retry's two backoffs together (at most 0.2 + 0.4 s): every retry
meets the bulkhead still full, whatever the machine's speed.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiohttp

from bulkhead_lab.live.net.server import Progress, all_or_cancel
from bulkhead_lab.live.net.side_by_side import SummedProgress
from bulkhead_lab.live.orders.clients import Client, Kind, Try
from bulkhead_lab.live.orders.load import OrdersLoad, OrdersRun, run_orders
from bulkhead_lab.live.orders.service import OrderSettings
from bulkhead_lab.retries.budgets import (
    AWS_QUOTA,
    SRE_BUDGET,
    Budget,
    RetryBudget,
    RetryQuota,
    client_budget,
)
from bulkhead_lab.retries.policy import JITTER_SEED, Backoff, RetryPolicy, call_with_retries

LIVE_BACKOFF = Backoff(0.1, 20.0, "full")  # the AWS SDK's 100 ms base and 20 s cap, full jitter, in seconds
LIVE_RETRY = RetryPolicy(3, LIVE_BACKOFF)  # ... and its (and the SRE book's) 3 attempts
SLOW = 2.0  # seconds a slow Payment call takes
ORDERS = 20  # lesson 004's load: 20 orders at once
LIMIT, QUEUE = 5, 5  # lesson 004's bulkhead: 5 running, 5 waiting
QUEUED_WAIT = 1.0  # seconds: an order served from the queue waited more than this (half a slow call)


class RetryClient(Client):
    """Lesson 004's client retrying a refused order under ``retry`` within ``budget`` (a stock check
    goes once); a :class:`~bulkhead_lab.retries.budgets.RetryBudget` is kept as it is given."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        t0: float,
        total: int,
        on_progress: Progress | None,
        *,
        retry: RetryPolicy | None,
        budget: Budget | RetryBudget | None,
        seed: int,
    ) -> None:
        super().__init__(session, t0, total, on_progress)
        self.retry = retry
        self.budget = (
            budget
            if isinstance(budget, RetryBudget)
            else client_budget(budget, lambda: time.monotonic() - t0)
        )
        self.random = random.Random(seed)

    def backoff(self, policy: RetryPolicy) -> Callable[[int], float]:
        """One request's sleeps: the policy's backoff, each drawn from the client's RNG (decorrelated
        jitter from that request's last sleep)."""
        last: list[float | None] = [None]

        def after(n: int) -> float:
            b = policy.backoff
            sleep = 0.0 if b is None else b.delay(n, self.random.random(), last[0])
            last[0] = sleep
            return sleep

        return after

    async def attempts(self, kind: Kind, method: str, url: str, tries: list[Try]) -> dict[str, Any]:
        body: dict[str, Any] = {}

        async def once() -> int:
            nonlocal body
            status, body = await self.attempt(method, url, tries)
            return status

        policy = self.retry if kind == "order" else None
        if policy is None:
            await once()
        else:
            await call_with_retries(once, self.budget, policy.attempts, self.backoff(policy))
        if tries[-1].status == 200 and isinstance(
            self.budget, RetryQuota
        ):  # its last retry's cost back, or 1
            self.budget.success(self.budget.bucket.retry_cost if len(tries) > 1 else None)
        return body


@dataclass(frozen=True)
class RetryingLoad(OrdersLoad):
    """Lesson 004's burst sent by a :class:`RetryClient`: ``retry`` (a RetryPolicy, backoff in seconds)
    retries refused orders within ``budget`` (counted over the drive: one client), jitter drawn from
    ``random.Random(seed)``; ``name`` is the client's in the tables."""

    retry: RetryPolicy | None = None
    budget: Budget | RetryBudget | None = None
    seed: int = JITTER_SEED
    name: str = ""

    def client(self, session: aiohttp.ClientSession, t0: float, on_progress: Progress | None) -> Client:
        return RetryClient(
            session, t0, self.requests, on_progress, retry=self.retry, budget=self.budget, seed=self.seed
        )

    def planned(self, settings: OrderSettings) -> tuple[float, str]:
        """Lesson 004's plan, and the longest backoffs of a retried order."""
        seconds, how = super().planned(settings)
        r = self.retry
        if r is None or r.backoff is None or r.attempts < 2:
            return seconds, how
        b = r.backoff
        backoff = sum(b.cap if b.jitter == "decorrelated" else b.ceiling(n) for n in range(1, r.attempts))
        return seconds + backoff, how + f" + {backoff:g} s of backoff"


def _client(name: str, retry: RetryPolicy | None, budget: Budget | None) -> RetryingLoad:
    """The lesson's 20 orders at once (no stock checks), Payment slow, sent by this client."""
    return RetryingLoad(
        orders=ORDERS, stock_checks=0, slow_latency=SLOW, retry=retry, budget=budget, name=name
    )


CLIENTS = (
    _client("no retries", None, None),
    _client("3 attempts, no budget", LIVE_RETRY, None),
    _client("3 attempts, SRE 10% budget", LIVE_RETRY, SRE_BUDGET),
    _client("3 attempts, AWS quota", LIVE_RETRY, AWS_QUOTA),
)


async def side_by_side(on_progress: Progress | None = None) -> tuple[OrdersRun, ...]:
    """One run per kind of client (:data:`CLIENTS`), at once; ``on_progress(answered, total)`` counts
    the orders answered over all four. One failed or all cancelled: every run closes its services."""
    summed = SummedProgress([ORDERS] * len(CLIENTS), on_progress)
    settings = OrderSettings("limited", limit=LIMIT, queue=QUEUE)
    runs = [run_orders(settings, load, on_progress=summed.for_run(k)) for k, load in enumerate(CLIENTS)]
    return tuple(await all_or_cancel(runs))
