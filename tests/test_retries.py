"""Retry policies and budgets: the sources' figures, and hand-computed cases written out."""

from __future__ import annotations

import asyncio
import random

import pytest

from bulkhead_lab.retries.budgets import (
    AWS_QUOTA,
    ENVOY_BUDGET,
    SRE_BUDGET,
    Ledger,
    QuotaLedger,
    RatioBudget,
    RatioLedger,
    RetryBudget,
    RetryQuota,
    SlidingBudget,
    TokenBucket,
    client_budget,
    ledger_for,
)
from bulkhead_lab.retries.experiments import (
    CONTENTION_STRATEGIES,
    amplification,
    contention,
    every_call_refused_in_turn,
    worst_case_load,
)
from bulkhead_lab.retries.policy import (
    NO_RETRIES,
    REFUSED,
    Backoff,
    RetryPolicy,
    call_with_retries,
    capped_exponential,
    delay_rounds,
    full_jitter,
)

# --- notebook 06's cells: the retry loop and the SRE budget ------------------------------------------


def test_the_cells_budget_retries_while_retries_are_under_10_percent_of_calls() -> None:
    b = RetryBudget()
    assert not b.can_retry()  # no call sent: 10% of nothing
    b.on_request()
    assert b.can_retry()  # 0 < 0.1
    b.on_retry()
    assert (b.calls, b.retries) == (2, 1) and not b.can_retry()  # 1 < 0.2 fails
    for _ in range(9):
        b.on_request()
    assert b.can_retry()  # 1 < 1.1: the eleventh call makes room


def test_the_cells_loop_stops_on_an_answer_on_its_last_attempt_or_when_the_budget_says_no() -> None:
    answers, slept = [REFUSED, REFUSED, 200], []

    async def call() -> int:
        return answers.pop(0)

    def backoff(n: int) -> float:
        slept.append(n)
        return 0.0

    assert asyncio.run(call_with_retries(call, RetryBudget(1.0), 5, backoff)) == 200
    assert slept == [1, 2] and answers == []  # a sleep after each refusal, none after the answer

    async def refuse() -> int:
        calls.append(1)
        return REFUSED

    calls: list[int] = []
    assert asyncio.run(call_with_retries(refuse, RetryBudget(1.0), 3, lambda n: 0.0)) == REFUSED
    assert len(calls) == 3  # the per-request cap
    calls.clear()
    assert asyncio.run(call_with_retries(refuse, RetryBudget(0.0), 3, lambda n: 0.0)) == REFUSED
    assert len(calls) == 1  # a budget of 0% never lets a retry go


def test_the_cells_full_jitter_is_a_share_of_the_capped_exponential() -> None:
    assert [capped_exponential(n, 0.1, 1.0) for n in range(1, 5)] == [0.2, 0.4, 0.8, 1.0]
    assert full_jitter(2, 0.1, 20.0, 0.5) == 0.2 and full_jitter(9, 1, 20, 0.999) < 20
    assert Backoff(0.1, 20.0, "full").delay(2, 0.5) == full_jitter(2, 0.1, 20.0, 0.5)


def test_every_call_refused_through_the_cells_loop_is_3x_without_a_budget_and_1_11x_with_it() -> None:
    assert (
        asyncio.run(every_call_refused_in_turn(RetryBudget(1.0))).attempts == 3000
    )  # a ratio of 1 never says no
    sre = asyncio.run(every_call_refused_in_turn(RetryBudget(0.10)))
    assert sre.attempts == 1112  # retries granted while r < 0.1 * (1000 + r): 0..111
    assert (
        round(sre.load, 1) == 1.1 and asyncio.run(every_call_refused_in_turn(RetryBudget(0.2))).load == 1.25
    )


def test_the_seeded_ratio_ledger_grants_what_the_cells_budget_grants() -> None:
    rng = random.Random(5)
    originals = [rng.randrange(0, 12) for _ in range(300)]
    ledger, cell = RatioLedger(RatioBudget(0.1, 0, window=len(originals)), originals), RetryBudget(0.1)
    for t, n in enumerate(originals):
        for _ in range(n):
            cell.on_request()
        asked = rng.randrange(0, 6)
        by_cell = 0
        while by_cell < asked and cell.can_retry():
            cell.on_retry()
            by_cell += 1
        assert ledger.grant(t, asked) == by_cell


def test_a_sliding_budget_forgets_calls_older_than_its_window() -> None:
    now = [0.0]
    b = SlidingBudget(RatioBudget(0.5, 0, window=10), lambda: now[0])
    for _ in range(4):
        b.on_request()
    granted = 0
    while b.can_retry():  # r < 0.5 * (4 + r): 0, 1, 2, 3
        b.on_retry()
        granted += 1
    assert granted == 4
    now[0] = 9.5
    assert not b.can_retry() and b.calls == 8
    now[0] = 10.0  # the window passes: every call so far is forgotten
    assert not b.can_retry() and (b.calls, b.retries) == (0, 0)
    b.on_request()
    assert b.can_retry()


def test_a_live_client_without_a_budget_never_refuses_a_retry() -> None:
    free = client_budget(None, lambda: 0.0)
    free.on_request()
    for _ in range(1000):
        assert free.can_retry()
        free.on_retry()
    assert isinstance(client_budget(AWS_QUOTA, lambda: 0.0), RetryQuota)


# --- amplification ------------------------------------------------------------------------------


def test_amplification_is_one_plus_retries_to_the_depth() -> None:
    assert amplification(1 + 2, 2) == 9  # 2 retries at each of 2 layers
    assert amplification(1, 5) == 1  # no retries never amplify
    assert amplification(4, 0) == 1  # no layer below: the one call


# --- backoff --------------------------------------------------------------------------------------


def test_capped_exponential_doubles_from_twice_the_base_up_to_the_cap() -> None:
    b = Backoff(base=10, cap=100, jitter="none")
    assert [b.delay(n, 0.7) for n in range(1, 6)] == [20, 40, 80, 100, 100]
    assert b.ceiling(5000) == 100  # no overflow however many failures


def test_full_jitter_never_sleeps_longer_than_the_capped_exponential() -> None:
    b = Backoff(base=10, cap=100, jitter="full")
    assert b.delay(2, 0.25) == 10.0  # 0.25 of min(100, 10 * 2**2)
    assert b.delay(1, 0.0) == 0.0
    rng = random.Random(1)
    for n in range(1, 12):
        for _ in range(200):
            assert 0.0 <= b.delay(n, rng.random()) <= b.ceiling(n)


def test_equal_jitter_sleeps_at_least_half_the_capped_exponential() -> None:
    b = Backoff(base=10, cap=100, jitter="equal")
    assert b.delay(2, 0.0) == 20.0  # 40 / 2
    assert b.delay(2, 0.5) == 30.0  # 40 / 2 + 0.5 * 40 / 2
    assert b.delay(9, 0.5) == 75.0  # capped: 100 / 2 + 0.5 * 100 / 2


def test_decorrelated_jitter_draws_between_the_base_and_three_times_the_last_sleep() -> None:
    b = Backoff(base=10, cap=100, jitter="decorrelated")
    assert b.delay(1, 0.0) == 10.0  # uniform(10, 3 * 10) at its low end
    assert b.delay(1, 0.5) == 20.0  # the first sleep starts from base: 10 + 0.5 * (30 - 10)
    assert b.delay(3, 0.5, previous=40.0) == 65.0  # 10 + 0.5 * (120 - 10), whatever n
    assert b.delay(3, 0.9, previous=60.0) == 100.0  # 10 + 0.9 * 170 = 163, capped


def test_a_sleep_becomes_whole_rounds_and_never_the_same_round() -> None:
    assert [delay_rounds(d) for d in (0.0, 0.2, 1.0, 1.01, 3.0, 19.5)] == [1, 1, 1, 2, 3, 20]


def test_a_bad_backoff_or_policy_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match=r"^cap must be a number >= base 10 \(got 5\)$"):
        Backoff(base=10, cap=5)
    with pytest.raises(ValueError, match="jitter must be one of none, full, equal, decorrelated"):
        Backoff(jitter="random")
    with pytest.raises(ValueError, match="attempts must be an integer in 1..100"):
        RetryPolicy(attempts=0)


def test_policies_say_what_they_do() -> None:
    assert NO_RETRIES.label == "no retries"
    assert RetryPolicy(3, None).label == "3 attempts, at once"
    assert RetryPolicy(3, Backoff(jitter="none")).label == "3 attempts, no jitter"
    assert RetryPolicy(4, Backoff(jitter="decorrelated")).label == "4 attempts, decorrelated jitter"


# --- budgets --------------------------------------------------------------------------------------


def test_the_sre_budget_retries_only_while_retries_are_below_10_percent_of_calls() -> None:
    assert SRE_BUDGET.allows(retries=0, calls=1)  # the refused original is a call
    assert SRE_BUDGET.allows(retries=9, calls=100)
    assert not SRE_BUDGET.allows(retries=10, calls=100)
    assert not SRE_BUDGET.allows(retries=0, calls=0)  # no minimum


def test_a_ratio_budget_allows_at_least_its_minimum() -> None:
    b = RatioBudget(ratio=0.2, minimum=3)  # Envoy's numbers, unrounded
    assert (b.ratio, b.minimum) == (ENVOY_BUDGET.ratio, ENVOY_BUDGET.minimum)
    assert b.allows(0, 0) and b.allows(2, 0)
    assert not b.allows(3, 0)
    assert b.allows(3, 20)  # 20% of 20 is 4 > 3
    assert not b.allows(4, 20)


def test_the_token_bucket_refuses_a_retry_when_it_holds_fewer_than_5_tokens() -> None:
    q = RetryQuota(AWS_QUOTA)
    assert q.tokens == 500
    assert [q.take() for _ in range(100)] == [5] * 100  # 500 / 5
    assert q.tokens == 0 and q.take() is None
    q.tokens = 4
    assert q.take() is None and q.tokens == 4
    q.tokens = 9
    assert q.take(timeout=True) is None  # a timeout's retry costs 10
    assert q.take() == 5 and q.tokens == 4


def test_a_success_puts_back_1_or_its_last_retrys_cost_never_above_500() -> None:
    q = RetryQuota()
    q.tokens = 490
    q.success()  # it needed no retry: +1
    assert q.tokens == 491
    q.success(last_retry_cost=5)
    assert q.tokens == 496
    q.success(last_retry_cost=10)
    assert q.tokens == 500  # 506, capped


def test_a_ratio_ledger_counts_originals_and_granted_retries_over_the_window() -> None:
    # ratio 0.5 over 2 rounds; originals per round 2, 0, 0, 4
    b = RatioLedger(RatioBudget(ratio=0.5, minimum=0, window=2), [2, 0, 0, 4])
    assert b.grant(0, 5) == 2  # 0 < 0.5*2, 1 < 0.5*3, then 2 < 0.5*4 fails
    assert b.grant(1, 1) == 0  # rounds 0-1: 2 originals + 2 retries, 2 < 2 fails
    assert b.grant(2, 1) == 0  # rounds 1-2: no call at all
    assert b.grant(3, 3) == 3  # rounds 2-3: 0 < 2, 1 < 2.5, 2 < 3


def test_a_quota_ledger_refills_with_responses_before_the_rounds_retries() -> None:
    b = QuotaLedger(TokenBucket(capacity=12, retry_cost=5, timeout_cost=10, refund=1), rounds=10)
    assert b.grant(0, 3) == 2 and b.tokens == 2
    b.served(2, originals=3, retries=0)  # three responses in round 2: +1 each
    assert b.grant(1, 1) == 0
    assert b.grant(2, 1) == 1 and b.tokens == 0  # 2 + 3 = 5: one retry
    b.served(4, originals=0, retries=1)  # a retry's success gives its 5 back
    b.served(99, originals=50, retries=0)  # after the run: never arrives
    assert b.grant(5, 2) == 1


def test_the_ledger_follows_the_budget() -> None:
    assert type(ledger_for(None, [1])) is Ledger and Ledger().grant(0, 7) == 7
    assert isinstance(ledger_for(SRE_BUDGET, [1]), RatioLedger)
    assert isinstance(ledger_for(AWS_QUOTA, [1]), QuotaLedger)


# --- the worst case: every call refused -------------------------------------------------------------


def test_three_attempts_triple_the_load_when_every_call_is_refused() -> None:
    assert worst_case_load(RetryPolicy(3, None), requests_per_round=1, rounds=10).attempts == 30
    assert worst_case_load().load == 3.0


def test_the_sre_budget_holds_the_worst_case_near_1_1x() -> None:
    # By hand, 10 requests in one round, 3 attempts at once, 10%: the 10 originals are 10
    # calls; a retry goes while retries < 10% of calls: 0 < 1.0, 1 < 1.1, not 2 < 1.2. The
    # two retries are refused in round 1 and the ratio still says no: 12 calls.
    # The lesson's run (1.111x, 2224 retries) is notebook 06's cell c07.
    assert worst_case_load(RetryPolicy(3, None), SRE_BUDGET, requests_per_round=10, rounds=1).attempts == 12


# --- Brooker's contention --------------------------------------------------------------------------


def test_contending_clients_by_hand() -> None:
    # 3 clients, one success per step: no backoff, steps 0, 1, 2: 3 + 2 + 1 calls
    assert contention(3, None) == contention(3, None, seed=7)
    assert (contention(3, None).calls, contention(3, None).completion) == (6, 2)
    # capped exponential from base 1: the losers sleep 2, then 4: steps 0, 2, 6
    r = contention(3, Backoff(base=1, cap=100, jitter="none"))
    assert (r.calls, r.completion) == (6, 6)
    assert (contention(1, Backoff()).calls, contention(1, Backoff()).completion) == (1, 0)


def test_without_jitter_contending_clients_collide_in_lockstep() -> None:
    for n in (10, 50):
        for name in ("no backoff", "exponential, no jitter"):
            assert contention(n, CONTENTION_STRATEGIES[name]).calls == n * (n + 1) // 2
