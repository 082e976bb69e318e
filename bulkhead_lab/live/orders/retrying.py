"""Retrying clients against lesson 004's Order Service, side by side.

Each run is lesson 004's ``limited`` Order Service (a bulkhead of 5 running and 5 waiting around
Payment), Payment slow, and the lesson's 20 orders sent at once by one client
(:func:`~bulkhead_lab.live.orders.load.run_orders`). The clients of :data:`CLIENTS` differ only in
how they retry a 503: not at all, 3 attempts with the AWS SDK's backoff (100 ms base, full jitter)
and no budget, the same within the SRE book's 10% budget, and within the AWS SDK's quota; each
runs notebook 06's retry loop (:func:`~bulkhead_lab.retries.policy.call_with_retries`).
:func:`side_by_side` runs the four at once, each against its own services on free ports (about 4 s);
:func:`~.reading.retries.retry_checks` says what holds on any machine.

Payment is slow at 2 s a call, longer than a retry's two backoffs together (at most 0.2 + 0.4 s):
every retry meets the bulkhead still full, whatever the machine's speed.
"""

from __future__ import annotations

from dataclasses import dataclass

from bulkhead_lab.live.net.server import Progress
from bulkhead_lab.live.net.side_by_side import SummedProgress, together
from bulkhead_lab.live.orders.clients import LIVE_RETRY
from bulkhead_lab.live.orders.load import OrdersLoad, OrdersRun, run_orders
from bulkhead_lab.live.orders.service import OrderSettings
from bulkhead_lab.retries.budgets import AWS_QUOTA, SRE_BUDGET, Budget
from bulkhead_lab.retries.policy import RetryPolicy

SLOW = 2.0  # seconds a slow Payment call takes
ORDERS = 20  # lesson 004's load: 20 orders at once
LIMIT, QUEUE = 5, 5  # lesson 004's bulkhead: 5 running, 5 waiting
QUEUED_WAIT = 1.0  # seconds: an order served from the queue waited more than this (half a slow call)


@dataclass(frozen=True)
class RetryingClient:
    """One kind of client: its name in the tables, how it retries a 503, and its budget."""

    name: str
    retry: RetryPolicy | None
    budget: Budget | None

    def load(self) -> OrdersLoad:
        """The lesson's 20 orders at once (no stock checks), Payment slow, sent by this client."""
        return OrdersLoad(
            orders=ORDERS, stock_checks=0, slow_latency=SLOW, retry=self.retry, budget=self.budget
        )


CLIENTS = (
    RetryingClient("no retries", None, None),
    RetryingClient("3 attempts, no budget", LIVE_RETRY, None),
    RetryingClient("3 attempts, SRE 10% budget", LIVE_RETRY, SRE_BUDGET),
    RetryingClient("3 attempts, AWS quota", LIVE_RETRY, AWS_QUOTA),
)


async def side_by_side(on_progress: Progress | None = None) -> tuple[OrdersRun, ...]:
    """One run per kind of client (:data:`CLIENTS`), at once; ``on_progress(answered, total)`` counts
    the orders answered over all four. One failed or all cancelled: every run closes its services."""
    summed = SummedProgress([ORDERS] * len(CLIENTS), on_progress)
    settings = OrderSettings("limited", limit=LIMIT, queue=QUEUE)
    runs = [run_orders(settings, c.load(), on_progress=summed.for_run(k)) for k, c in enumerate(CLIENTS)]
    return tuple(await together(runs))
