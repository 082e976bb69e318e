"""Retry budgets: how many retries a client may send at all, and how each is kept over a run.

A per-request cap (the ``attempts`` of :class:`~bulkhead_lab.retries.policy.RetryPolicy`)
bounds one request's attempts; a budget bounds a client's retries against its traffic. The
class between the saved-cells markers is notebook 06's: :class:`RetryBudget`, the SRE book's
10% per client, with the interface the retry loop asks (``on_request``, ``can_retry``,
``on_retry``). Everything below extends it. Sources, and where the ports depart from them:

- **Per-client budget.** Google SRE book, ch. 21 "Handling Overload", "Deciding to Retry": a
  client retries only while fewer than 10% of its requests are retries. :class:`RatioBudget`
  (:data:`SRE_BUDGET`) is its rule with a floor and a window: the book names no window, so
  the seeded runs count the last :data:`BUDGET_WINDOW` rounds (10 s) and the live client 1000 s.
- **Envoy** ``retry_budget`` (``source/common/upstream/resource_manager_impl.h``,
  ``RetryBudgetImpl``; ``api/envoy/config/cluster/v3/circuit_breaker.proto``): a cap on
  *concurrent* retries, no share of calls. A retry may start while the retries *in flight* are
  fewer than ``max(budget_percent / 100 x (active + pending requests), min_retry_concurrency)``,
  the product rounded down to an integer first (``count() < max()``, ``max`` a ``uint64_t``);
  defaults 20% and 3. A retry is in flight from the moment it is decided, through its backoff,
  until its own answer is judged (``source/common/router/retry_state_impl.cc``: ``shouldRetry``
  calls ``retries().inc()`` before arming the backoff timer, ``resetRetry`` calls ``dec()`` at
  the next answer or when the request ends). :class:`EnvoyBudget` keeps that arithmetic exactly
  (3 retries in flight beside 17 active requests: 0.2 x 17 = 3.4, rounded down to 3, refused);
  :class:`InFlightLedger` keeps it over a run's rounds. It is no :class:`RatioBudget`: the
  seeded storm (:mod:`bulkhead_lab.retries.storm`), which counts no retries in flight, takes
  ratio budgets and token buckets only.
- **AWS SDK retry quota** (``standard`` mode: botocore ``botocore/retries/quota.py`` and
  ``standard.py``, aws-sdk-js-v3 ``middleware-retry/src/defaultRetryQuota.ts``): 500 tokens; a
  retry takes 5 (10 after a timeout), refused when fewer are left; a success puts back 1, or
  its last retry's cost if it needed retries; never above 500. :class:`TokenBucket`,
  :class:`RetryQuota`. botocore's newer cost (14 a retry, 5 after throttling) is behind a flag
  it does not support for outside use; the SDKs' standard mode is the one here.

A *ledger* is one client's budget kept over a seeded run's rounds (:func:`ledger_for`:
:class:`Ledger` for no budget, :class:`RatioLedger`, :class:`QuotaLedger`); the live client keeps
its budget over seconds (:func:`client_budget`: :class:`SlidingBudget`, :class:`RetryQuota`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from bulkhead_lab.validation import check_int, check_real


# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/06_retries_and_budgets.ipynb, section 2. A retry loop, in code
class RetryBudget:
    """The SRE book's retry budget for one client: a refused call may be retried
    only while retries are under `ratio` of all the calls the client sent."""

    def __init__(self, ratio: float = 0.10) -> None:
        self.ratio = ratio
        self.calls = 0  # every call sent: requests and retries
        self.retries = 0  # the retries among them

    def on_request(self) -> None:
        self.calls += 1

    def can_retry(self) -> bool:
        return self.retries < self.ratio * self.calls

    def on_retry(self) -> None:
        self.calls += 1
        self.retries += 1


# <<< saved cells


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
    """The cell's rule as a client's setting: a retry may go while ``retries < max(minimum, ratio
    x calls)``, ``calls`` counting originals and retries; kept over the last ``window`` rounds
    in the seeded runs (seconds live)."""

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


@dataclass(frozen=True)
class EnvoyBudget:
    """Envoy's ``retry_budget``: a retry may start while the retries in flight are fewer than
    ``max(int(ratio x active), minimum)`` (a whole number, ``uint64_t`` in Envoy), ``active`` the
    requests open at the upstream or pending a connection. Retries, not calls, are capped."""

    ratio: float = ENVOY_BUDGET_PERCENT / 100.0  # Envoy divides budget_percent by 100.0 first
    minimum: int = ENVOY_MIN_RETRY_CONCURRENCY

    def __post_init__(self) -> None:
        check_real("ratio", self.ratio, 0.0, 1.0)
        check_int("minimum", self.minimum, 0)

    def limit(self, active: int) -> int:
        """Envoy's ``max()``: the retries that may be in flight beside ``active`` requests."""
        return max(int(self.ratio * active), self.minimum)


SRE_BUDGET = RatioBudget(SRE_RETRY_RATIO, 0)
ENVOY_BUDGET = EnvoyBudget()


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


class RetryQuota(RetryBudget):
    """One client's token bucket as the SDKs keep it, behind the cell's interface: a retry takes
    ``retry_cost`` tokens (``timeout_cost`` after a timeout), refused if fewer are left;
    :meth:`success` puts back the request's last retry's cost, or ``refund``; never above
    ``capacity``."""

    def __init__(self, bucket: TokenBucket = AWS_QUOTA) -> None:
        super().__init__(1.0)
        self.bucket, self.tokens = bucket, bucket.capacity

    def can_retry(self) -> bool:
        return self.bucket.retry_cost <= self.tokens  # a refusal (a 503) is no timeout

    def on_retry(self) -> None:
        super().on_retry()
        self.take()

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


class SlidingBudget(RetryBudget):
    """The cell's budget with a :class:`RatioBudget`'s floor, over the last ``window`` units of
    ``clock()`` (the live client's seconds): calls older than that no longer count."""

    def __init__(self, budget: RatioBudget, clock: Callable[[], float]) -> None:
        super().__init__(budget.ratio)
        self.budget, self.clock = budget, clock
        self.sent: deque[tuple[float, bool]] = deque()  # (when, a retry) for each call counted

    def on_request(self) -> None:
        super().on_request()
        self.sent.append((self.clock(), False))

    def on_retry(self) -> None:
        super().on_retry()
        self.sent.append((self.clock(), True))

    def can_retry(self) -> bool:
        low = self.clock() - self.budget.window
        while self.sent and self.sent[0][0] <= low:
            _, retry = self.sent.popleft()
            self.calls -= 1
            self.retries -= retry
        return self.budget.allows(self.retries, self.calls)


def client_budget(budget: Budget | None, clock: Callable[[], float]) -> RetryBudget:
    """What a live client keeps for ``budget``: no budget is a ratio of 1 (``retries < calls``
    always holds, so it never refuses), a ratio budget slides over ``clock``, a bucket is a quota."""
    if isinstance(budget, RatioBudget):
        return SlidingBudget(budget, clock)
    if isinstance(budget, TokenBucket):
        return RetryQuota(budget)
    return RetryBudget(1.0)


class Ledger:
    """One client's budget over a seeded run's rounds: no budget (every retry may go)."""

    def grant(self, t: int, n: int) -> int:
        """How many of ``n`` retries may go in round ``t`` (those are charged)."""
        return n

    def served(self, t: int, originals: int, retries: int) -> None:
        """Successes whose responses arrive in round ``t`` (a token bucket refills)."""


class RatioLedger(Ledger, RetryBudget):
    """A :class:`RatioBudget` over a sliding window of rounds: the cell's counters hold the
    window's calls and retries; the originals sent per round are known (``originals``), a
    retry counts when granted (:meth:`on_retry`). A denial changes nothing, so once one retry
    is denied in a round, the rest are too."""

    def __init__(self, budget: RatioBudget, originals: Sequence[int]) -> None:
        RetryBudget.__init__(self, budget.ratio)
        self.budget, self.cum = budget, [0, *accumulate(originals)]
        self.granted = [0] * len(originals)
        self.kept = self.low = 0  # retries granted in rounds low..now

    def can_retry(self) -> bool:
        return self.budget.allows(self.retries, self.calls)  # the cell's rule, with its floor

    def grant(self, t: int, n: int) -> int:
        low = t - self.budget.window + 1
        while self.low < low:
            self.kept -= self.granted[self.low]
            self.low += 1
        self.retries, self.calls = self.kept, self.cum[t + 1] - self.cum[max(low, 0)] + self.kept
        allowed = 0
        while allowed < n and self.can_retry():
            self.on_retry()
            allowed += 1
        self.granted[t] += allowed
        self.kept += allowed
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


class InFlightLedger(Ledger):
    """An :class:`EnvoyBudget` over a run's rounds, as Envoy keeps it: a retry granted in round ``t``
    is in flight until the round its own call is answered (:meth:`answered_in`), and one more may
    start while those in flight are under the budget's :meth:`~EnvoyBudget.limit` of the round's
    open calls (:meth:`open`). It records the most in flight at once, the highest limit, and how
    long the retries were in flight."""

    def __init__(self, budget: EnvoyBudget) -> None:
        self.budget = budget
        self.in_flight = self.active = 0
        self.ends: dict[int, int] = {}  # round -> retries answered then (their count goes)
        self.peak = self.highest = self.granted = self.rounds_in_flight = 0

    def open(self, t: int, active: int) -> None:
        """Round ``t`` begins: its retries answered now leave the count; ``active`` calls are open."""
        self.in_flight -= self.ends.pop(t, 0)
        self.active = active
        self.highest = max(self.highest, self.budget.limit(active))

    def grant(self, t: int, n: int) -> int:
        allowed = max(0, min(n, self.budget.limit(self.active) - self.in_flight))
        self.in_flight += allowed
        self.peak = max(self.peak, self.in_flight)
        return allowed

    def answered_in(self, t: int, when: int) -> None:
        """A retry granted in round ``t`` is sent, and answered, in round ``when``."""
        self.ends[when] = self.ends.get(when, 0) + 1
        self.granted += 1
        self.rounds_in_flight += when - t

    @property
    def mean_in_flight(self) -> float:
        """Rounds a granted retry was in flight on average (its backoff, then its answer)."""
        return self.rounds_in_flight / self.granted if self.granted else 0.0


def ledger_for(budget: Budget | None, originals: Sequence[int]) -> Ledger:
    """The ledger for ``budget`` over a run whose originals per round are ``originals``."""
    if isinstance(budget, RatioBudget):
        return RatioLedger(budget, originals)
    if isinstance(budget, TokenBucket):
        return QuotaLedger(budget, len(originals))
    return Ledger()
