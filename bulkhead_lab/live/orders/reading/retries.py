"""Retrying clients' runs read (notebook 06, section 7): what each layer counted (:class:`RetryFacts`),
and what holds on any machine for the four clients side by side (:func:`retry_checks`) and for a
learner's budget (:func:`budget_line`).
"""

from __future__ import annotations

from dataclasses import dataclass

from bulkhead_lab.live.orders.results import OrdersRun
from bulkhead_lab.live.orders.retrying import ORDERS, QUEUED_WAIT, SLOW, RetryingLoad
from bulkhead_lab.retries.budgets import SRE_BUDGET, RatioBudget


@dataclass(frozen=True)
class RetryFacts:
    """What retrying clients cost each layer, per original order."""

    orders: int
    client_sent: int  # orders the client sent, retries included
    order_service_received: int  # what Order Service counted
    payment_calls: int  # what Payment counted (/admin/stats calls)
    served: int
    refused: int
    gave_up_budget: int  # refused orders whose retry the budget denied

    def per_order(self, calls: int) -> float:
        return calls / self.orders if self.orders else 0.0


def retry_facts(run: OrdersRun) -> RetryFacts:
    """Count what the orders' client sent against what Order Service and Payment received."""
    if run.order_service.error is not None or run.payment.error is not None:
        raise ValueError("run must carry Order Service's and Payment's /admin/stats (got a run without them)")
    retry = run.load.retry if isinstance(run.load, RetryingLoad) else None
    allowed = 1 if retry is None else retry.attempts  # a refused order tried fewer times: the budget said no
    return RetryFacts(
        orders=len(run.orders),
        client_sent=run.attempts,
        order_service_received=run.order_service.orders,
        payment_calls=run.payment.calls,
        served=run.served,
        refused=run.refused,
        gave_up_budget=sum(r.outcome == "refused" and r.attempts < allowed for r in run.orders),
    )


def queued_waits(run: OrdersRun) -> list[float]:
    """How long each order served from the queue waited there (seconds)."""
    waits = [r.waited or 0.0 for r in run.orders if r.outcome == "served"]
    return [w for w in waits if w > SLOW / 4]


def ratio_bound(orders: int = ORDERS, budget: RatioBudget = SRE_BUDGET) -> float:
    """The most calls ``orders`` originals can make under a ratio budget: retries are granted while
    they are under ``ratio`` of all calls, so fewer than ``orders x ratio / (1 - ratio) + 1`` go."""
    return orders / (1 - budget.ratio) + 1


def retry_checks(runs: tuple[OrdersRun, ...]) -> list[tuple[str, bool]]:
    """What holds on any machine, busy or not, for the runs of
    :func:`~bulkhead_lab.live.orders.retrying.side_by_side`: each as a sentence and whether it held."""
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


def budget_line(run: OrdersRun) -> str:
    """What the services counted in :func:`~bulkhead_lab.live.orders.learners.budget_run`, in one line."""
    f = retry_facts(run)
    return (
        f"live, your budget: {f.orders} orders, the client sent {f.client_sent} calls (the SRE 10% keeps "
        f"them under {ratio_bound():.1f}), Payment served {f.payment_calls}, {f.refused} refused, "
        f"{f.gave_up_budget} of them denied a retry by your budget."
    )
