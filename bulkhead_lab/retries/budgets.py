"""Retry budgets: how many retries a client may send at all, and each one's bookkeeping over a run.

A per-request cap (:class:`~bulkhead_lab.retries.policy.RetryPolicy`) bounds one request's
attempts; a budget bounds a client's retries against its traffic. Sources:

- **Per-client budget.** Google SRE book, ch. 21 "Handling Overload", "Deciding to Retry": a
  client retries only while fewer than 10% of its requests are retries (:class:`RatioBudget`,
  :data:`SRE_BUDGET`).
- **Envoy** ``retry_budget``: ``budget_percent`` (default 20%) of the active and pending
  requests may be retries, at least ``min_retry_concurrency`` (default 3).
  :func:`envoy_retry_limit`; Envoy counts concurrent retries, the seeded model counts
  retries over a window (:class:`RatioBudget` with Envoy's numbers, :data:`ENVOY_BUDGET`).
- **AWS SDK retry quota** (``standard`` mode, aws-sdk-js-v3 ``middleware-retry``): 500
  tokens; a retry takes 5 (10 after a timeout), refused when fewer are left; a success
  puts back 1, or its last retry's cost if it needed retries; never above 500.
  :class:`TokenBucket`, :class:`RetryQuota`.

A *ledger* is one client's budget kept over a run's rounds, as the seeded models need it:
:func:`ledger_for` gives the right one (:class:`Ledger` for no budget, :class:`RatioLedger`,
:class:`QuotaLedger`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from bulkhead_lab.validation import check_int, check_real

SRE_RETRY_RATIO = 0.10  # SRE ch. 21: retry while retries are below 10% of a client's requests
ENVOY_BUDGET_PERCENT = 20.0  # Envoy retry_budget.budget_percent default
ENVOY_MIN_RETRY_CONCURRENCY = 3  # Envoy retry_budget.min_retry_concurrency default
AWS_INITIAL_TOKENS = 500  # AWS SDK standard mode: INITIAL_RETRY_TOKENS (also the bucket's cap)
AWS_RETRY_COST = 5  # RETRY_COST
AWS_TIMEOUT_RETRY_COST = 10  # TIMEOUT_RETRY_COST
AWS_NO_RETRY_INCREMENT = 1  # NO_RETRY_INCREMENT: a success that needed no retry
BUDGET_WINDOW = 1000  # rounds (10 s) a ratio budget counts over; the SRE book names no window


@dataclass(frozen=True)
class RatioBudget:
    """A retry may go while ``retries < max(minimum, ratio * calls)``, ``calls`` counting the
    client's originals and retries (the SRE book's "ratio of requests that correspond to
    retries"); the seeded models count both over the last ``window`` rounds."""

    ratio: float = SRE_RETRY_RATIO
    minimum: int = 0
    window: int = BUDGET_WINDOW

    def __post_init__(self) -> None:
        check_real("ratio", self.ratio, 0.0, 1.0)
        check_int("minimum", self.minimum, 0)
        check_int("window", self.window, 1)

    def allows(self, retries: int, calls: int) -> bool:
        """May one more retry go, with ``retries`` of ``calls`` already retries?"""
        return retries < max(self.minimum, self.ratio * calls)

    @property
    def label(self) -> str:
        floor = f", at least {self.minimum}" if self.minimum else ""
        return f"retries < {self.ratio:.0%} of calls{floor}"


SRE_BUDGET = RatioBudget(SRE_RETRY_RATIO, 0)
ENVOY_BUDGET = RatioBudget(ENVOY_BUDGET_PERCENT / 100, ENVOY_MIN_RETRY_CONCURRENCY)


def envoy_retry_limit(
    active: int, percent: float = ENVOY_BUDGET_PERCENT, minimum: int = ENVOY_MIN_RETRY_CONCURRENCY
) -> int:
    """Envoy's limit on concurrent retries for ``active`` (+ pending) requests."""
    check_int("active", active, 0)
    return max(int(active * percent / 100.0), minimum)


@dataclass(frozen=True)
class TokenBucket:
    """The AWS SDK's retry quota: its numbers (see :class:`RetryQuota` for the rules)."""

    capacity: int = AWS_INITIAL_TOKENS
    retry_cost: int = AWS_RETRY_COST
    timeout_cost: int = AWS_TIMEOUT_RETRY_COST
    refund: int = AWS_NO_RETRY_INCREMENT

    def __post_init__(self) -> None:
        check_int("capacity", self.capacity, 0)
        check_int("retry_cost", self.retry_cost, 1)
        check_int("timeout_cost", self.timeout_cost, 1)
        check_int("refund", self.refund, 0)

    @property
    def label(self) -> str:
        return f"token bucket {self.capacity}, {self.retry_cost} a retry"


AWS_QUOTA = TokenBucket()
Budget = RatioBudget | TokenBucket


class RetryQuota:
    """One client's token bucket as the SDK keeps it: a retry takes ``retry_cost`` tokens
    (``timeout_cost`` after a timeout), refused if fewer are left; :meth:`success` puts back
    the request's last retry's cost, or ``refund``; never above ``capacity``."""

    def __init__(self, bucket: TokenBucket = AWS_QUOTA) -> None:
        self.bucket, self.tokens = bucket, bucket.capacity

    def take(self, timeout: bool = False) -> int | None:
        """Take a retry's tokens and return how many, or ``None`` (no retry) if too few."""
        cost = self.bucket.timeout_cost if timeout else self.bucket.retry_cost
        if cost > self.tokens:
            return None
        self.tokens -= cost
        return cost

    def success(self, last_retry_cost: int | None = None) -> None:
        """A request succeeded: put back its last retry's cost, or the no-retry increment."""
        amount = self.bucket.refund if last_retry_cost is None else last_retry_cost
        self.tokens = min(self.bucket.capacity, self.tokens + amount)


class Ledger:
    """One client's budget over a run's rounds, kept as the seeded models need it: no budget."""

    def grant(self, t: int, n: int) -> int:
        """How many of ``n`` retries may go in round ``t`` (those are charged)."""
        return n

    def served(self, t: int, originals: int, retries: int) -> None:
        """Successes whose responses arrive in round ``t`` (a token bucket refills)."""


class RatioLedger(Ledger):
    """A :class:`RatioBudget` over a sliding window: the originals sent per round are known
    (``originals``); retries count as calls when granted. A denial changes nothing, so once
    one retry is denied in a round, the rest are too."""

    def __init__(self, budget: RatioBudget, originals: Sequence[int]) -> None:
        self.budget, self.cum = budget, [0, *accumulate(originals)]
        self.granted = [0] * len(originals)
        self.retries = self.low = 0  # retries granted in rounds low..now

    def grant(self, t: int, n: int) -> int:
        low = t - self.budget.window + 1
        while self.low < low:
            self.retries -= self.granted[self.low]
            self.low += 1
        retries, calls = self.retries, self.cum[t + 1] - self.cum[max(low, 0)] + self.retries
        allowed = 0
        while allowed < n and self.budget.allows(retries, calls):
            retries, calls, allowed = retries + 1, calls + 1, allowed + 1
        self.granted[t] += allowed
        self.retries = retries
        return allowed


class QuotaLedger(Ledger, RetryQuota):
    """A :class:`TokenBucket` over a run of ``rounds``: each round's refills (applied in
    round order, capped) then its retries, ``retry_cost`` each (a 503 is not a timeout)."""

    def __init__(self, bucket: TokenBucket, rounds: int) -> None:
        RetryQuota.__init__(self, bucket)
        self.refill, self.next = [0] * rounds, 0

    def served(self, t: int, originals: int, retries: int) -> None:
        if t < len(self.refill):
            self.refill[t] += originals * self.bucket.refund + retries * self.bucket.retry_cost

    def grant(self, t: int, n: int) -> int:
        while self.next <= t:
            self.tokens = min(self.bucket.capacity, self.tokens + self.refill[self.next])
            self.next += 1
        allowed = min(n, self.tokens // self.bucket.retry_cost)
        self.tokens -= allowed * self.bucket.retry_cost
        return allowed


def ledger_for(budget: Budget | None, originals: Sequence[int]) -> Ledger:
    """The ledger for ``budget`` over a run whose originals per round are ``originals``."""
    if isinstance(budget, RatioBudget):
        return RatioLedger(budget, originals)
    if isinstance(budget, TokenBucket):
        return QuotaLedger(budget, len(originals))
    return Ledger()
