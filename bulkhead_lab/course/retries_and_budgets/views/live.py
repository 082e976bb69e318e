"""Section 8 of notebook 06: retrying clients against lesson 004's Order Service, on real sockets.

Each run is lesson 004's ``limited`` Order Service (a bulkhead of 5 running and 5 waiting around
Payment), Payment slow, and the lesson's 20 orders sent at once by one client
(:func:`bulkhead_lab.live.orders.load.run_orders`). The clients of :data:`CLIENTS` differ only in how
they retry a 503: not at all, 3 attempts with the AWS SDK's backoff (100 ms base, full jitter)
and no budget, the same within the SRE book's 10% budget, and within the AWS SDK's quota.
:func:`live_runs` runs the four side by side, each against its own services on free ports
(about 4 s in all); :func:`live_frame` tabulates what each layer counted,
:func:`live_beside` puts it beside the SRE book's worst case and the seeded runs of sections 2
and 4, and :func:`live_facts` prints what holds on any machine.

Payment is slow at 2 s a call, longer than a retry's two backoffs together (at most 0.2 + 0.4 s):
every retry meets the bulkhead still full, whatever the machine's speed.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pandas as pd

from bulkhead_lab.course.retries_and_budgets.views.callers import LESSON_POLICY, WideTable, run
from bulkhead_lab.course.retries_and_budgets.views.sources import WORST_CASES
from bulkhead_lab.course.ui.runner import run_sync
from bulkhead_lab.live.net.server import Progress, gather_all
from bulkhead_lab.live.orders.checks import RetryFacts, retry_facts
from bulkhead_lab.live.orders.clients import LIVE_RETRY
from bulkhead_lab.live.orders.load import OrdersLoad, OrdersRun, run_orders
from bulkhead_lab.live.orders.service import OrderSettings
from bulkhead_lab.pool.params import LESSON_SPLIT
from bulkhead_lab.retries.budgets import AWS_QUOTA, SRE_BUDGET, Budget
from bulkhead_lab.retries.experiments import worst_case_load
from bulkhead_lab.retries.policy import RetryPolicy
from bulkhead_lab.retries.storm import RetrySetup

SLOW = 2.0  # seconds a slow Payment call takes
ORDERS = 20  # lesson 004's load: 20 orders at once
LIMIT, QUEUE = 5, 5  # lesson 004's bulkhead: 5 running, 5 waiting
LAYERS = {  # OrdersRun.calls_per_order()'s keys, as the table names them
    "client sent": "client sent",
    "order service received": "Order Service received",
    "payment counted": "Payment counted",
}
ORDER_COLUMNS, PER_ORDER, QUEUE_COLUMNS = "orders", "calls per order", "the queue"  # live_frame's groups
QUEUED_WAIT = 1.0  # seconds: an order served from the queue waited more than this (half a slow call)


@dataclass(frozen=True)
class LiveClients:
    """One kind of client: its name in the table, how it retries a 503, and its budget."""

    name: str
    retry: RetryPolicy | None
    budget: Budget | None

    def load(self) -> OrdersLoad:
        """The lesson's 20 orders at once (no stock checks), Payment slow, sent by this client."""
        return OrdersLoad(
            orders=ORDERS, stock_checks=0, slow_latency=SLOW, retry=self.retry, budget=self.budget
        )


CLIENTS = (
    LiveClients("no retries", None, None),
    LiveClients("3 attempts, no budget", LIVE_RETRY, None),
    LiveClients("3 attempts, SRE 10% budget", LIVE_RETRY, SRE_BUDGET),
    LiveClients("3 attempts, AWS quota", LIVE_RETRY, AWS_QUOTA),
)


class _Sum:
    """The four runs' answers as one progress count."""

    def __init__(self, on_progress: Progress | None, runs: int) -> None:
        self.on_progress = on_progress
        self.done = [0] * runs

    def for_run(self, k: int) -> Progress:
        def update(done: int, total: int) -> None:
            self.done[k] = done
            if self.on_progress is not None:
                self.on_progress(sum(self.done), ORDERS * len(self.done))

        return update


def live_runs(on_progress: Progress | None = None) -> tuple[OrdersRun, ...]:
    """One run per kind of client (:data:`CLIENTS`), side by side; ``on_progress(answered, total)``
    counts the orders answered over all four. An interrupted cell stops them and their services."""
    progress = _Sum(on_progress, len(CLIENTS))

    async def side_by_side() -> tuple[OrdersRun, ...]:
        tasks = [
            asyncio.ensure_future(
                run_orders(
                    OrderSettings("limited", limit=LIMIT, queue=QUEUE),
                    OrdersLoad(
                        orders=ORDERS, stock_checks=0, slow_latency=SLOW, retry=c.retry, budget=c.budget
                    ),
                    on_progress=progress.for_run(k),
                )
            )
            for k, c in enumerate(CLIENTS)
        ]
        return tuple(await gather_all(tasks))  # one failed or all cancelled: every run closes its services

    return run_sync(side_by_side())


def _queued(run: OrdersRun) -> list[float]:
    """How long each order served from the queue waited there (seconds)."""
    waits = [r.waited or 0.0 for r in run.orders if r.outcome == "served"]
    return [w for w in waits if w > SLOW / 4]


def live_frame(runs: tuple[OrdersRun, ...]) -> pd.DataFrame:
    """Per kind of client: orders served and refused and the retries the budget denied; calls per
    order as the client sent them, as the Order Service received them and as Payment counted them;
    and the longest an order served from the queue waited there. Columns in three groups
    (:data:`ORDER_COLUMNS`, :data:`PER_ORDER`, :data:`QUEUE_COLUMNS`)."""
    rows = []
    for r in runs:
        f = retry_facts(r)
        per = r.calls_per_order()
        rows.append(
            [f.served, f.refused, f.gave_up_budget]
            + [f"{per[key]:.2f}" for key in LAYERS]
            + [round(max(_queued(r), default=0.0), 2)]
        )
    columns = pd.MultiIndex.from_tuples(
        [(ORDER_COLUMNS, c) for c in ("served", "refused", "retries denied")]
        + [(PER_ORDER, LAYERS[key]) for key in LAYERS]
        + [(QUEUE_COLUMNS, "longest wait (s)")]
    )
    return pd.DataFrame(rows, columns=columns, index=pd.Index([c.name for c in CLIENTS], name="clients"))


def live_beside(runs: tuple[OrdersRun, ...]) -> WideTable:
    """Calls per order (per request) without a budget, with the SRE 10% and with the AWS quota: the SRE
    book's worst case, computed as in section 2, lesson 000's 24/8 event flow through the slowdown as
    in section 4, and this section's live runs at the Order Service and at Payment."""
    live = dict(zip((c.budget for c in CLIENTS[1:]), runs[1:], strict=True))
    rows, names = [], []
    for name, budget in (("no budget", None), ("SRE 10%", SRE_BUDGET), ("AWS quota", AWS_QUOTA)):
        seeded = run(LESSON_SPLIT, "slowdown", RetrySetup(LESSON_POLICY, budget)).event
        per = live[budget].calls_per_order()
        names.append(name)
        rows.append(
            [
                WORST_CASES[name][2],
                f"{worst_case_load(LESSON_POLICY, budget).load:.3f}",
                f"{seeded.load:.3f}",
                f"{per['order service received']:.2f}",
                f"{per['payment counted']:.2f}",
            ]
        )
    columns = pd.MultiIndex.from_tuples(
        [
            ("the sources", "worst case"),
            ("every call refused", "section 2"),
            ("lesson 000, 24/8 events", "section 4"),
            ("live, this section", "Order Service received"),
            ("live, this section", "Payment counted"),
        ]
    )
    index = pd.Index(names, name="budget (3 attempts)")
    return WideTable(pd.DataFrame(rows, columns=columns, index=index))


def ratio_bound(orders: int = ORDERS) -> float:
    """The most calls ``orders`` originals can make under a ratio budget: retries are granted while
    they are under ``ratio`` of all calls, so the last one granted leaves fewer than
    ``orders x ratio / (1 - ratio) + 1`` retries in all."""
    return orders / (1 - SRE_BUDGET.ratio) + 1


def live_facts(runs: tuple[OrdersRun, ...]) -> str:
    """The side-by-side runs' facts that hold on any machine (nbval compares them)."""
    facts: dict[str, RetryFacts] = {c.name: retry_facts(r) for c, r in zip(CLIENTS, runs, strict=True)}
    none, retried, sre, aws = (facts[c.name] for c in CLIENTS)
    every = list(facts.values())
    queued = [_queued(r) for r in runs]
    multiplied = retried.order_service_received > none.order_service_received and all(
        f.payment_calls <= f.orders for f in every
    )
    return "\n".join(
        [
            f"{ORDERS} orders at once against lesson 004's bulkhead ({LIMIT} running, {QUEUE} waiting), "
            f"Payment slow ({SLOW:g} s a call); {len(CLIENTS)} kinds of client side by side",
            f"without retries the clients sent one call per order: {none.client_sent == none.orders}",
            "every call a client sent reached the Order Service: "
            f"{all(f.client_sent == f.order_service_received for f in every)}",
            "Payment counted one call per served order and none for a refusal: "
            f"{all(f.payment_calls == f.served for f in every)}",
            f"retries multiply what the Order Service receives, never what Payment serves: {multiplied}",
            f"with the SRE 10% budget the clients sent under {ORDERS} / (1 - 10%) + 1 = "
            f"{ratio_bound():.1f} calls: {sre.client_sent < ratio_bound()}, "
            f"and it denied retries: {sre.gave_up_budget > 0}",
            f"the AWS quota (500 tokens, 5 a retry) denied no retry: {aws.gave_up_budget == 0}",
            f"every order served from the queue waited over {QUEUED_WAIT:g} s for its place: "
            f"{all(q and min(q) > QUEUED_WAIT for q in queued)}",
        ]
    )
