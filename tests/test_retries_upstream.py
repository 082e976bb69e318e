"""The retry ports against their upstream tests: each test names the file and commit it replays.

The upstream tests' own cases, rewritten for the port (their facts, not their code): botocore's
retry quota and backoff, aws-sdk-js-v3's retry quota and backoff, Envoy's retry budget, and Marc
Brooker's backoff simulator. Where the port departs from upstream, the test says how (the
departures are listed in :mod:`bulkhead_lab.retries.policy` and :mod:`bulkhead_lab.retries.budgets`).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bulkhead_lab.retries.budgets import (
    AWS_INITIAL_TOKENS,
    AWS_NO_RETRY_INCREMENT,
    AWS_QUOTA,
    AWS_RETRY_COST,
    AWS_TIMEOUT_RETRY_COST,
    ENVOY_BUDGET,
    EnvoyBudget,
    InFlightLedger,
    RatioBudget,
    RetryQuota,
    TokenBucket,
)
from bulkhead_lab.retries.policy import Backoff

BOTOCORE = "boto/botocore"  # snapshot at 0e6e2404b85dc336dd2889814e089bde7d1a4c55
BOTOCORE_QUOTA = "tests/unit/retries/test_quota.py@e34b6a36ae0c1571bcb5fd7034e817d3b397e283"
BOTOCORE_STANDARD = "tests/unit/retries/test_standard.py@70514effeb6a77e12993c0fbaa907c0b92aae342"
JS_QUOTA = "packages/middleware-retry/src/defaultRetryQuota.spec.ts@7d8993f13918dbf4097d45242f7e87e0716df033"
JS_DELAY = "packages/middleware-retry/src/delayDecider.spec.ts@09112e5a61dcb4a4c5ef5e544c1964545d30e046"
JS_BACKOFF = (
    "packages/util-retry/src/defaultRetryBackoffStrategy.spec.ts@a68086d0c94302c7a372ca35f12897fbfaeac534"
)
ENVOY_SOURCE = "source/common/upstream/resource_manager_impl.h@01c2c1fadbc61d572c7e02568c98ff001c0bfe8f"
ENVOY_TEST = "test/common/upstream/resource_manager_impl_test.cc@01c2c1fadbc61d572c7e02568c98ff001c0bfe8f"
BROOKER = "aws-samples/aws-arch-backoff-simulator"
BROOKER_SIMULATOR = "src/backoff_simulator.py@66cb169277051eea207dbef8c7f71767fe6af144"


def _quota(capacity: int, cost: int = AWS_RETRY_COST) -> RetryQuota:
    return RetryQuota(TokenBucket(capacity=capacity, retry_cost=cost, timeout_cost=AWS_TIMEOUT_RETRY_COST))


# --- botocore: tests/unit/retries/test_quota.py (5 tests) ------------------------------------------


def test_botocore_quota_acquire_release_and_its_bounds() -> None:
    q = _quota(50)
    assert q.take() == 5 and q.tokens == 45  # test_can_acquire_amount
    q.success(5)
    assert q.tokens == 50  # test_can_release_amount
    q.take()
    q.success(10)
    assert q.tokens == 50  # test_cant_exceed_max_capacity
    q.success(10)
    assert q.tokens == 50  # test_noop_if_at_max_capacity
    low = _quota(50, cost=49)
    assert low.take() == 49 and low.tokens == 1  # test_cant_go_below_zero: acquire(49), then
    assert low.take(timeout=True) is None and low.tokens == 1  # acquire(10) refused, nothing taken


# --- botocore: tests/unit/retries/test_standard.py, TestRetryQuotaChecker (7 tests) -----------------


def test_botocore_quota_checker_costs_and_refunds() -> None:
    q = RetryQuota()
    assert q.take() == 5  # test_can_acquire_quota_non_timeout_error
    assert RetryQuota().take(timeout=True) == 10  # test_can_acquire_quota_for_timeout_error
    assert q.tokens == 495
    q.success(last_retry_cost=5)
    assert q.tokens == 500  # test_can_release_quota_based_on_context_value_on_success
    q.take()
    assert q.tokens == 495  # test_dont_release_quota_if_all_retries_failed: no success, no refund
    q.success()
    assert q.tokens == 496  # test_can_release_default_quota_if_not_in_context: +1
    five = RetryQuota(TokenBucket(capacity=5))
    assert five.take() == 5 and five.take() is None  # test_acquire_quota_fails
    assert not RetryQuota(TokenBucket(capacity=0)).can_retry()  # test_quota_reached_adds_retry_metadata
    q = RetryQuota()
    q.tokens = 450  # test_single_failed_request_does_not_give_back_quota: a 400 refunds nothing
    assert q.tokens == 450


# --- botocore: test_standard.py, TestExponentialBackoff (3 tests) -----------------------------------
# botocore sleeps rand() * min(2 ** (attempt - 1), 20) s: Brooker's exponent counts from 1, so
# botocore's backoff is ours with half the base (the departure policy.py states).


def test_botocore_backoff_range_jitter_and_uniformity() -> None:
    b = Backoff(base=0.5, cap=20, jitter="full")
    assert [b.delay(n, 1.0) for n in range(1, 10)] == [1, 2, 4, 8, 16, 20, 20, 20, 20]
    rng = random.Random(20260806)
    assert all(0 <= b.delay(3, rng.random()) <= 4 for _ in range(10))  # attempt 3: at most 2 ** 2
    histogram = Counter(int(b.delay(10, rng.random())) for _ in range(10_000))
    expected = 10_000 / len(histogram)  # botocore's own check: every bin within 20% of the mean
    assert len(histogram) == 20 and all(0.8 * expected <= n <= 1.2 * expected for n in histogram.values())


# --- aws-sdk-js-v3: defaultRetryQuota.spec.ts (13 tests) ---------------------------------------------


def _drained(cost: int, capacity: int = AWS_INITIAL_TOKENS) -> RetryQuota:
    q = RetryQuota(TokenBucket(capacity=capacity))
    while q.tokens >= cost:
        assert q.take(timeout=cost == AWS_TIMEOUT_RETRY_COST) == cost
    return q


def test_js_sdk_quota_has_and_retrieves_tokens_until_drained() -> None:
    assert not _drained(AWS_RETRY_COST, 100).can_retry()  # custom initial retry tokens
    assert _drained(AWS_RETRY_COST, 100).take() is None  # "No retry token available"
    assert RetryQuota().take(timeout=True) == AWS_TIMEOUT_RETRY_COST  # hasRetryTokens and retrieve
    assert RetryQuota().can_retry() and RetryQuota().take() == AWS_RETRY_COST
    assert _drained(AWS_TIMEOUT_RETRY_COST).take(timeout=True) is None
    assert _drained(AWS_RETRY_COST).take() is None and not _drained(AWS_RETRY_COST).can_retry()


def test_js_sdk_quota_releases_tokens_never_above_the_initial_500() -> None:
    q = _drained(AWS_RETRY_COST)
    q.success(AWS_RETRY_COST)  # adds capacityReleaseAmount if passed
    assert q.can_retry() and q.take() == AWS_RETRY_COST and not q.can_retry()
    q = _drained(AWS_RETRY_COST)  # adds NO_RETRY_INCREMENT if capacityReleaseAmount not passed
    for _ in range(AWS_RETRY_COST - AWS_INITIAL_TOKENS % AWS_RETRY_COST):
        assert not q.can_retry()
        q.success()
    assert q.can_retry()
    q = RetryQuota(AWS_QUOTA)  # ensures availableCapacity is maxed at INITIAL_RETRY_TOKENS
    for _ in range(100):
        q.success()
    assert [q.take() for _ in range(AWS_INITIAL_TOKENS // AWS_RETRY_COST)] == [AWS_RETRY_COST] * 100
    assert not q.can_retry() and AWS_NO_RETRY_INCREMENT == 1


# --- aws-sdk-js-v3: delayDecider.spec.ts (3 tests), defaultRetryBackoffStrategy.spec.ts (4) ----------
# The SDK sleeps floor(min(20000, random * 2 ** retryCount * base)) ms, retryCount 0 before the
# first retry: ours with half the base and n = retryCount + 1 (the departure policy.py states).


def test_js_sdk_delay_grows_exponentially_is_capped_and_randomised() -> None:
    b = Backoff(base=50, cap=20_000, jitter="full")  # the SDK's 100 ms base, in our exponent
    assert [b.delay(r + 1, 1.0) for r in (0, 1, 2, 3, 7)] == [100, 200, 400, 800, 12800]
    assert all(b.delay(r + 1, 1.0) == 20_000 for r in (10, 100, 100_000))
    assert [b.delay(1, u) for u in (0.25, 0.5, 0.75, 1.0)] == [25, 50, 75, 100]
    half = Backoff(base=25, cap=20_000, jitter="full")  # setDelayBase(50)
    assert [half.delay(r + 1, 1.0) for r in range(4)] == [50, 100, 200, 400]
    for base in (20_000 + 1, 20_000 + 2):  # setDelayBase over the cap
        assert Backoff(base=base / 2, cap=20_000, jitter="full").delay(1, 1.0) == 20_000
    one = Backoff(base=0.5, cap=20_000, jitter="full")  # base 1, attempts ceil(log2(20000)) = 15
    assert one.delay(15 + 1, 1.0) == one.delay(16 + 1, 1.0) == 20_000


# --- Envoy: resource_manager_impl.h and its test (2 tests) ------------------------------------------


def test_envoy_rounds_the_retry_limit_down_before_comparing() -> None:
    # max() = std::max<uint64_t>(budget_percent / 100.0 * current_active, min_retry_concurrency);
    # canCreate() = count() < max(), count() the retries in flight
    assert ENVOY_BUDGET.limit(17) == 3  # 0.2 * 17 = 3.4 -> 3
    assert RatioBudget(0.2, 3).allows(3, 17)  # the unrounded ratio would let a fourth go
    assert EnvoyBudget(0.29, 3).limit(100) == 28  # 29 / 100.0 * 100 = 28.999999999999996, as in C++
    assert [ENVOY_BUDGET.limit(a) for a in (0, 10, 16, 20, 100)] == [3, 3, 3, 4, 20]


def test_envoy_resource_manager_tests_min_retry_concurrency_with_no_active_request() -> None:
    # RetryBudgetOverrideGauge: budget 20%, min_retry_concurrency 5, nothing active: max() == 5;
    # RuntimeResourceManager: min_retry_concurrency 5 from the runtime, count 0: canCreate().
    assert EnvoyBudget(0.2, 5).limit(0) == 5


def test_envoy_counts_a_retry_in_flight_from_its_decision_through_its_backoff_to_its_answer() -> None:
    # retry_state_impl.cc (e78906c5cbf579e412a7ca76ecabeee0e11d977f): shouldRetry() calls retries().inc()
    # before enableBackoffTimer(); resetRetry() calls dec() at the next shouldRetry(), when the retry's own
    # answer is judged. The ledger: granted in round 0, answered in round 5, in flight rounds 0..4.
    ledger = InFlightLedger(ENVOY_BUDGET)
    ledger.open(0, active=17)  # the same rule through the seeded runs' ledger: 3 of 17 active
    assert ledger.grant(0, 10) == 3  # only max(3, int(3.4)) = 3 at once
    for _ in range(3):
        ledger.answered_in(0, 5)
    for t in range(1, 5):
        ledger.open(t, active=0)
        assert ledger.grant(t, 1) == 0  # still in flight: in their backoff
    ledger.open(5, active=0)  # their answers come back: the count drops before this round's decisions
    assert ledger.grant(5, 4) == 3
    assert (ledger.peak, ledger.highest, ledger.mean_in_flight) == (3, 3, 5.0)


def test_brookers_backoffs_at_his_5_ms_base_and_2_s_cap() -> None:
    expo = Backoff(5, 2000, "none")  # ExpoBackoff: min(cap, 2 ** n * base), n from 1 (attempt += 1)
    assert [expo.delay(n, 0.3) for n in range(1, 11)] == [10, 20, 40, 80, 160, 320, 640, 1280, 2000, 2000]
    assert Backoff(5, 2000, "full").delay(3, 0.5) == 20.0  # FullJitter: uniform(0, v)
    assert Backoff(5, 2000, "equal").delay(3, 0.5) == 30.0  # EqualJitter: v/2 + uniform(0, v/2)
    decorr = Backoff(5, 2000, "decorrelated")  # Decorr: sleep = min(cap, uniform(base, sleep * 3))
    sleeps: list[float] = []
    for _ in range(3):
        sleeps.append(decorr.delay(len(sleeps) + 1, 0.5, sleeps[-1] if sleeps else None))
    assert sleeps == [10.0, 17.5, 28.75]  # from sleep = base: 5 + 0.5 * (15 - 5), ...


@pytest.mark.parametrize("jitter", ["full", "equal", "decorrelated"])
def test_brookers_draws_are_ours_for_the_same_random_sequence(jitter: str) -> None:
    ours, his = random.Random(3), random.Random(3)
    b = Backoff(5, 2000, jitter)  # type: ignore[arg-type]
    sleep = 5.0
    for n in range(1, 12):
        v = min(2000, 2**n * 5)
        if jitter == "full":
            want = his.uniform(0, v)
        elif jitter == "equal":
            want = v / 2 + his.uniform(0, v / 2)
        else:
            want = min(2000, his.uniform(5, sleep * 3))
        got = b.delay(n, ours.random(), sleep)
        assert got == pytest.approx(want, rel=1e-12)
        sleep = got
