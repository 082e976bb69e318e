"""The storm that stays, on real sockets (notebook 07, section 5): lesson 004's Order Service in front of
a :class:`~.queued.QueuedPayment` (a few workers and a queue) that slows for a while, and callers that
give up and retry.

Each caller gives up after ``gives_up_after`` s (it closes the connection; the Order Service cancels the
order and its Payment call, and Payment, which never hears of it, keeps the call queued) and retries a
timeout or a 503 under notebook 06's policy (:data:`~.retrying.LIVE_RETRY`). Two setups:

- **no fix**: ``separate`` pools of :data:`MANY` connections, so Payment's own queue takes every call;
- **the fix**: lesson 004's bulkhead, as many running as Payment has workers and as many waiting, 503 at
  once beyond, and Payment dropping calls whose caller has gone.

A :class:`StormLoad` is the whole storm; :func:`run_storms` runs both setups side by side with the one
driver; :class:`~.reading.metastable.LiveStorm` reads a run.
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
from bulkhead_lab.live.orders.load import run_orders
from bulkhead_lab.live.orders.queued import QueuedPayment
from bulkhead_lab.live.orders.results import OrdersRun
from bulkhead_lab.live.orders.retrying import LIVE_RETRY, RetryClient
from bulkhead_lab.live.orders.service import OrderSettings
from bulkhead_lab.live.orders.steady import SteadyLoad
from bulkhead_lab.retries.policy import JITTER_SEED, REFUSED, RetryPolicy

MANY = 40  # connections to Payment with no fix: more than it will ever have open


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
    """The storm: notebook 05's steady rate (here 10 orders a second, Payment slow from 2 s to 4 s, then
    3 s healed) from callers that give up and retry under ``retry`` (jitter: ``random.Random(seed)``), cut
    off at ``seconds``; Payment queued, with ``workers``."""

    rate: float = 10.0
    slow_for: float = 2.0
    recover_for: float = 3.0
    fast_latency: float = 0.1
    retry: RetryPolicy = LIVE_RETRY
    seed: int = JITTER_SEED
    gives_up_after: float = 1.0
    workers: int = 2  # Payment's: 2 / 0.1 s = 20 calls a second healthy, 2 while slow

    @property
    def healed(self) -> float:
        """Seconds from the start when Payment heals."""
        return self.healthy_for + self.slow_for

    def client(self, session: aiohttp.ClientSession, t0: float, on_progress: Progress | None) -> Client:
        return GivingUpClient(session, t0, self, on_progress)

    def settings(self, fix: bool) -> OrderSettings:
        """The Order Service's, with no fix and with the fix (the two setups above)."""
        if fix:
            return OrderSettings("limited", limit=self.workers, queue=self.workers)
        return OrderSettings("separate", limit=MANY)


async def run_storms(
    load: StormLoad = StormLoad(), on_progress: Progress | None = None
) -> tuple[tuple[OrdersRun, QueuedPayment], ...]:
    """No fix and the fix side by side (:func:`~bulkhead_lab.live.net.side_by_side.staggered`), each a
    :func:`~.load.run_orders` of ``load`` on its own free ports, timed from its own start, and the Payment
    that served it (its counters its own). ``on_progress(done, total)`` counts the orders finished over
    both; cancelled, both end and close their services."""
    summed = SummedProgress([load.orders, load.orders], on_progress)

    async def run_storm(fix: bool) -> tuple[OrdersRun, QueuedPayment]:
        pay = QueuedPayment(load.workers, load.fast_latency, load.slow_latency, drop_gone=fix)
        return await run_orders(load.settings(fix), load, on_progress=summed.for_run(int(fix)), pay=pay), pay

    return tuple(await staggered([(load.seconds, run_storm(fix)) for fix in (False, True)]))
