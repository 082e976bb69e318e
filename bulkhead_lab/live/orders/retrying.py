"""Retrying clients against lesson 004's Order Service, side by side, and what each layer counted.

Each run is lesson 004's ``limited`` Order Service (a bulkhead of 5 running and 5 waiting around
Payment), Payment slow, and the lesson's 20 orders sent at once by one client
(:func:`~bulkhead_lab.live.orders.load.run_orders`). The clients of :data:`CLIENTS` differ only in
how they retry a 503: not at all, 3 attempts with the AWS SDK's backoff (100 ms base, full jitter)
and no budget, the same within the SRE book's 10% budget, and within the AWS SDK's quota; each
runs notebook 06's retry loop (:func:`~bulkhead_lab.retries.policy.call_with_retries`).
:func:`side_by_side` runs the four at once, each against its own services on free ports (about 4 s);
:func:`checks` says what holds on any machine.

Payment is slow at 2 s a call, longer than a retry's two backoffs together (at most 0.2 + 0.4 s):
every retry meets the bulkhead still full, whatever the machine's speed.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

from bulkhead_lab.live.net.server import Progress
from bulkhead_lab.live.net.side_by_side import SummedProgress, together
from bulkhead_lab.live.orders.checks import RetryFacts, retry_facts
from bulkhead_lab.live.orders.clients import LIVE_RETRY
from bulkhead_lab.live.orders.load import OrdersLoad, OrdersRun, drive, order_services, run_orders
from bulkhead_lab.live.orders.service import OrderSettings
from bulkhead_lab.retries.budgets import AWS_QUOTA, SRE_BUDGET, Budget, RatioBudget, RetryBudget
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


def queued_waits(run: OrdersRun) -> list[float]:
    """How long each order served from the queue waited there (seconds)."""
    waits = [r.waited or 0.0 for r in run.orders if r.outcome == "served"]
    return [w for w in waits if w > SLOW / 4]


def ratio_bound(orders: int = ORDERS, budget: RatioBudget = SRE_BUDGET) -> float:
    """The most calls ``orders`` originals can make under a ratio budget: retries are granted while
    they are under ``ratio`` of all calls, so fewer than ``orders x ratio / (1 - ratio) + 1`` go."""
    return orders / (1 - budget.ratio) + 1


def checks(runs: tuple[OrdersRun, ...]) -> list[tuple[str, bool]]:
    """What holds on any machine, busy or not, for :func:`side_by_side`'s runs: each as a sentence
    and whether it held."""
    facts: list[RetryFacts] = [retry_facts(r) for r in runs]
    none, retried, sre, aws = facts
    return [
        ("without retries the clients sent one call per order", none.client_sent == none.orders),
        (
            "every call a client sent reached the Order Service",
            all(f.client_sent == f.order_service_received for f in facts),
        ),
        (
            "Payment counted one call per served order and none for a refusal",
            all(f.payment_calls == f.served for f in facts),
        ),
        (
            "retries multiply what the Order Service receives, never what Payment serves",
            retried.order_service_received > none.order_service_received
            and all(f.payment_calls <= f.orders for f in facts),
        ),
        (
            f"with the SRE 10% budget the clients sent under {ORDERS} / (1 - 10%) + 1 = {ratio_bound():.1f} "
            "calls, and it denied retries",
            sre.client_sent < ratio_bound() and sre.gave_up_budget > 0,
        ),
        ("the AWS quota (500 tokens, 5 a retry) denied no retry", aws.gave_up_budget == 0),
        (
            f"every order served from the queue waited over {QUEUED_WAIT:g} s for its place",
            all(q and min(q) > QUEUED_WAIT for q in map(queued_waits, runs)),
        ),
    ]


# --- a learner's budget in the live client (notebook 06, exercise 4) ------------------------------

DRIVE_TIMEOUT = 60.0  # seconds the learner's drive may take (it takes about 4 s)


class LearnersFault(Exception):
    """What a learner's budget did wrong in the live client, in one line; the run stopped."""


class GuardedBudget(RetryBudget):
    """A learner's budget as the live client keeps it: each of the loop's calls passed on; what it
    raises, or a ``can_retry`` answer that is neither true nor false, is one :class:`LearnersFault`."""

    def __init__(self, learner: object) -> None:
        super().__init__(1.0)
        self.learner = learner

    def _ask(self, method: str) -> object:
        try:
            return getattr(self.learner, method)()
        except Exception as exc:
            why = (str(exc).splitlines() or [""])[0]
            said = f"{type(exc).__name__}: {why}" if why else type(exc).__name__
            raise LearnersFault(f"{type(self.learner).__name__}.{method}() raised {said}.") from None

    def on_request(self) -> None:
        self._ask("on_request")

    def can_retry(self) -> bool:
        """The learner's answer as the loop's ``if`` reads it (``bool``: 1.0 and numpy's True are true);
        a coroutine or a value with no truth is a :class:`LearnersFault`."""
        got = self._ask("can_retry")
        if inspect.isawaitable(got):
            if inspect.iscoroutine(got):
                got.close()  # never awaited, never warned about
            raise LearnersFault("can_retry() returned a coroutine: write a plain def, not an async def.")
        try:
            return bool(got)
        except Exception:
            raise LearnersFault(f"can_retry() returned {got!r:.30}: neither true nor false.") from None

    def on_retry(self) -> None:
        self._ask("on_retry")


async def learners_run(learner: object) -> OrdersRun:
    """The SRE client's run (:data:`CLIENTS`' third: 3 attempts, the AWS SDK's backoff) with ``learner``
    (a built budget) counting instead of the SRE 10%. A misbehaving budget raises :class:`LearnersFault`
    with every order cancelled and every service closed, as a failed :func:`side_by_side` does."""
    settings = OrderSettings("limited", limit=LIMIT, queue=QUEUE)
    load = CLIENTS[2].load()
    async with order_services(settings, SLOW, load.fast_latency) as (service, pay, inv):
        return await drive(
            service.url, pay.url, inv.url, load, timeout=DRIVE_TIMEOUT, ledger=GuardedBudget(learner)
        )


def learners_line(run: OrdersRun) -> str:
    """What the services counted in :func:`learners_run`, in one line."""
    f = retry_facts(run)
    return (
        f"live, your budget: {f.orders} orders, the client sent {f.client_sent} calls (the SRE 10% keeps "
        f"them under {ratio_bound():.1f}), Payment served {f.payment_calls}, {f.refused} refused, "
        f"{f.gave_up_budget} of them denied a retry by your budget."
    )
