"""Issue 14's live part: the load generator's clients retry 503s.

Notebook 06's four clients against lesson 004's bulkhead (every retry meets a full bulkhead, so
retries multiply what the Order Service receives, never what Payment counts, and a budget denies
some) are test_course_retries_and_budgets_live.py's, and nbval compares their facts. Here: a retry
that outlasts the queue is served, and a bad retry or budget is one line.
"""

from __future__ import annotations

import pytest

from bulkhead_lab.live.orders.load import run_orders
from bulkhead_lab.live.orders.retrying import RetryingLoad
from bulkhead_lab.live.orders.service import OrderSettings
from bulkhead_lab.retries.policy import Backoff, RetryPolicy

pytestmark = [pytest.mark.anyio, pytest.mark.live]


async def test_retries_after_the_queue_drains_turn_refusals_into_late_service() -> None:
    patient = RetryPolicy(6, Backoff(0.2, 5.0, "none"))  # 0.2, 0.4, 0.8, 1.6, 3.2 s: past both waves
    run = await run_orders(
        OrderSettings("limited"), RetryingLoad(slow_latency=0.6, stock_checks=0, retry=patient)
    )
    assert run.served == 20 and run.payment.calls == 20  # each order reached Payment once, at last
    assert run.order_service.orders > 20
