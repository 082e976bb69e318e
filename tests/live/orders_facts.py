"""Lesson 004's timing facts as orderings, so they hold on a busy machine.

"A stock check did not wait for Payment" is asserted as "it was answered before Payment
served its first order", not as a number of milliseconds: a slower machine moves both
ends, but not their order.
"""

from __future__ import annotations

from bulkhead_lab.live.orders.load import OrdersRun


def first_served(run: OrdersRun) -> float:
    """When the first order was served (seconds from the run's start): the end of Payment's first call."""
    return min(r.end for r in run.orders if r.outcome == "served")


def stock_before_payment(run: OrdersRun, checks: int = 10) -> bool:
    """Every stock check was served before Payment served anything: none waited for a slow call."""
    return len(run.stock_checks) == checks and all(
        r.outcome == "served" and r.end < first_served(run) for r in run.stock_checks
    )


def refusals_before_payment(run: OrdersRun) -> bool:
    """Every refused order was answered before Payment served anything: refused at once, not queued."""
    return all(r.end < first_served(run) for r in run.orders if r.outcome == "refused")
