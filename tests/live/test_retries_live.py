"""Issue 14's live part: the load generator's clients retry 503s, and each layer counts what it got.

A refused order never reaches Payment, so retrying refusals multiplies what Order Service
receives, not what Payment counts. Payment is slow at 2 s here, so every retry (its
backoffs add up to at most 0.6 s) lands while the bulkhead is still full: the counts are
exact whatever the machine's speed.
"""

from __future__ import annotations

import math

import pytest

from bulkhead_lab.live.orders.load import run_orders
from bulkhead_lab.live.orders.reading.retries import retry_facts
from bulkhead_lab.live.orders.retrying import LIVE_RETRY, RetryingLoad
from bulkhead_lab.live.orders.service import OrderSettings
from bulkhead_lab.retries.budgets import SRE_BUDGET, RatioBudget, TokenBucket
from bulkhead_lab.retries.policy import Backoff, RetryPolicy

pytestmark = [pytest.mark.anyio, pytest.mark.live]

SLOW = 2.0  # seconds: longer than every retry's backoffs together (0.2 + 0.4 s at most)


async def test_retrying_refusals_multiplies_what_order_service_receives_not_what_payment_counts() -> None:
    run = await run_orders(
        OrderSettings("limited"), RetryingLoad(slow_latency=SLOW, stock_checks=0, retry=LIVE_RETRY)
    )
    facts = retry_facts(run)
    assert (facts.served, facts.refused) == (10, 10)
    assert [r.attempts for r in run.orders if r.outcome == "refused"] == [3] * 10  # each tried 3 times
    assert facts.client_sent == facts.order_service_received == 10 + 10 * 3  # every attempt arrived
    assert facts.payment_calls == 10  # ... and none of the retries reached Payment
    assert run.calls_per_order() == {
        "client sent": 2.0,
        "order service received": 2.0,
        "payment counted": 0.5,
    }
    for r in run.orders:  # every try recorded, each sent after the previous one's answer
        assert r.attempts == len(r.tries) and r.tries[-1].status == r.status
        assert all(b.start >= a.end for a, b in zip(r.tries, r.tries[1:], strict=False))


async def test_a_ratio_budget_keeps_attempts_per_order_near_one_plus_the_ratio() -> None:
    run = await run_orders(
        OrderSettings("limited"),
        RetryingLoad(slow_latency=SLOW, stock_checks=0, retry=LIVE_RETRY, budget=SRE_BUDGET),
    )
    facts = retry_facts(run)
    # the budget's rule, retries < 10% of calls (originals and retries): 3 retries for 20 orders
    allowed = max(r for r in range(20) if all(k < 0.1 * (20 + k) for k in range(r)))
    assert allowed == 3 and facts.client_sent - 20 == allowed
    assert facts.per_order(facts.client_sent) <= 1 + SRE_BUDGET.ratio / (1 - SRE_BUDGET.ratio) + 1 / 20
    assert facts.order_service_received == facts.client_sent and facts.payment_calls == 10
    assert facts.gave_up_budget == 10  # every refused order's last retry was denied by the budget


async def test_a_token_bucket_allows_its_capacity_over_the_retry_cost_before_any_success() -> None:
    bucket = TokenBucket(capacity=10, retry_cost=5)
    run = await run_orders(
        OrderSettings("limited"),
        RetryingLoad(slow_latency=SLOW, stock_checks=0, retry=LIVE_RETRY, budget=bucket),
    )
    assert run.attempts - 20 == 10 // 5  # the first success refills it only after every retry was decided


async def test_retries_after_the_queue_drains_turn_refusals_into_late_service() -> None:
    patient = RetryPolicy(6, Backoff(0.2, 5.0, "none"))  # 0.2, 0.4, 0.8, 1.6, 3.2 s: past both waves
    run = await run_orders(
        OrderSettings("limited"), RetryingLoad(slow_latency=0.6, stock_checks=0, retry=patient)
    )
    assert run.served == 20 and run.payment.calls == 20  # each order reached Payment once, at last
    assert run.order_service.orders > 20


@pytest.mark.parametrize(
    ("kwargs", "line"),
    [
        ({"retry": 3}, "retry must be None or a RetryPolicy (got 3)"),
        ({"budget": 0.1}, "budget must be None, a RatioBudget or a TokenBucket (got 0.1)"),
    ],
)
async def test_a_bad_retry_or_budget_is_one_line(kwargs: dict[str, object], line: str) -> None:
    with pytest.raises(ValueError) as info:
        await run_orders(OrderSettings("limited"), RetryingLoad(**kwargs))  # type: ignore[arg-type]
    assert str(info.value) == line


def test_the_live_backoff_is_in_seconds_the_aws_sdks_numbers() -> None:
    assert LIVE_RETRY.attempts == 3 and LIVE_RETRY.backoff == Backoff(0.1, 20.0, "full")
    assert math.isclose(LIVE_RETRY.backoff.ceiling(2), 0.4)
    assert RatioBudget().window == 1000  # seconds, live: longer than any drive
