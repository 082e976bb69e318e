"""Retry policies and retry budgets, and the small experiments that show what they do.

A bulkhead answers a full pool at once with a 503 ("busy, try again"); a caller that
retries turns each refusal into more load. This module is the retry side, pure and
seeded; :mod:`bulkhead_lab.retries.storm` puts it into lesson 000's seeded rounds. Sources:

- **Amplification.** Google SRE book, ch. 22 "Addressing Cascading Failures": a request may
  make as many attempts at the lowest layer as the *product* of the attempts at each
  layer; three layers (backend, frontend, JavaScript) each issuing 3 retries (4 attempts)
  make 4^3 = 64 attempts on the database for one user action. :func:`amplification`.
- **Per-request cap, per-client budget.** SRE book, ch. 21 "Handling Overload", "Deciding
  to Retry": up to three attempts per request, and a client retries only while fewer than
  10% of its requests are retries. In its worst case (a datacenter refusing most requests)
  the cap alone lets the load grow to somewhat below 3x, the 10% budget to about 1.1x.
  :class:`RatioBudget`; :func:`worst_case_load` computes both (3.00x and 1.11x).
- **Envoy** ``retry_budget``: ``budget_percent`` (default 20%) of the active and pending
  requests may be retries, at least ``min_retry_concurrency`` (default 3).
  :func:`envoy_retry_limit`; Envoy counts concurrent retries, the seeded model counts
  retries over a window (:class:`RatioBudget` with Envoy's numbers, ``ENVOY_BUDGET``).
- **AWS SDK retry quota** (``standard`` mode, aws-sdk-js-v3 ``middleware-retry``): 500
  tokens; a retry takes 5 (10 after a timeout), refused when fewer are left; a success
  puts back 1, or its last retry's cost if it needed retries; never above 500.
  :class:`TokenBucket`, :class:`RetryQuota`. Its backoff: full jitter, 100 ms base, 20 s
  cap, 3 attempts (our defaults, in rounds).
- **Backoff and jitter.** Marc Brooker, "Exponential Backoff And Jitter" (AWS Architecture
  Blog, 2015) and its simulator (aws-samples/aws-arch-backoff-simulator): capped
  exponential ``min(cap, base * 2**n)`` after the n-th failed attempt; full jitter
  ``uniform(0, that)``; equal ``that/2 + uniform(0, that/2)``; decorrelated
  ``min(cap, uniform(base, last_sleep * 3))`` from ``last_sleep = base``. :func:`contention`
  is a small version of his contention experiment.

Every draw comes from a ``random.Random`` seeded by the caller, through ``random()`` only
(whose sequence Python keeps for a given seed across versions); nothing here touches
lesson 000's arrival stream.
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from bulkhead_lab.validation import check_choice, check_int, check_real, fail

# --- the sources' numbers -------------------------------------------------------------------

SRE_LAYERS = 3  # SRE ch. 22: backend, frontend and JavaScript layers
SRE_ATTEMPTS_PER_LAYER = 4  # ... each issuing 3 retries (4 attempts): 64 attempts at the bottom
SRE_MAX_ATTEMPTS = 3  # SRE ch. 21: a per-request retry budget of up to three attempts
SRE_RETRY_RATIO = 0.10  # SRE ch. 21: retry while retries are below 10% of a client's requests
ENVOY_BUDGET_PERCENT = 20.0  # Envoy retry_budget.budget_percent default
ENVOY_MIN_RETRY_CONCURRENCY = 3  # Envoy retry_budget.min_retry_concurrency default
AWS_INITIAL_TOKENS = 500  # AWS SDK standard mode: INITIAL_RETRY_TOKENS (also the bucket's cap)
AWS_RETRY_COST = 5  # RETRY_COST
AWS_TIMEOUT_RETRY_COST = 10  # TIMEOUT_RETRY_COST
AWS_NO_RETRY_INCREMENT = 1  # NO_RETRY_INCREMENT: a success that needed no retry
BROOKER_CLIENTS = (10, 20, 30, 40, 50)  # his simulator's client counts

# The seeded model's defaults, in rounds (lesson 000: 100 rounds = 1 s). Our choice, stated:
# the AWS SDK's 100 ms base and 20 s cap, and the SRE book's (and the SDK's) 3 attempts.
BASE_ROUNDS = 10.0  # 100 ms
CAP_ROUNDS = 2000.0  # 20 s
BUDGET_WINDOW = 1000  # rounds (10 s) a ratio budget counts over; the SRE book names no window
JITTER_SEED = 20260806  # the retry RNGs' seed; lesson 000's stream keeps its own (20260801)

JITTERS = ("none", "full", "equal", "decorrelated")


def amplification(attempts: int, depth: int) -> int:
    """Calls at the bottom of ``depth`` layers that each make up to ``attempts`` (the first try
    included: 1 + r with r retries, so (1 + r) ** depth). The SRE book's 4 over 3 layers: 64."""
    check_int("attempts", attempts, 1)
    check_int("depth", depth, 0)
    return attempts**depth


def calls_per_layer(attempts: int, depth: int) -> tuple[int, ...]:
    """Calls reaching each layer from the top when every call fails: (4, 16, 64) for 4 over 3."""
    return tuple(amplification(attempts, d) for d in range(1, depth + 1))


# --- backoff ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Backoff:
    """Capped exponential backoff with no, full, equal or decorrelated jitter (Brooker's four);
    ``base`` and ``cap`` in the caller's unit (rounds in the seeded model)."""

    base: float = BASE_ROUNDS
    cap: float = CAP_ROUNDS
    jitter: str = "full"

    def __post_init__(self) -> None:
        check_real("base", self.base, 0.0, 1e9, low_open=True)
        check_real("cap", self.cap, 0.0, 1e9, low_open=True)
        if self.cap < self.base:
            raise fail("cap", self.cap, f"a number >= base {self.base:g}")
        check_choice("jitter", self.jitter, JITTERS)

    def ceiling(self, n: int) -> float:
        """The capped exponential after the n-th failed attempt: ``min(cap, base * 2**n)``."""
        return min(self.cap, self.base * 2.0 ** min(n, 1023))

    def delay(self, n: int, u: float, previous: float | None = None) -> float:
        """The sleep after the n-th failed attempt (n = 1 after the first) for a uniform draw
        ``u`` in [0, 1); ``previous`` is the last sleep (decorrelated only; ``None``: ``base``)."""
        if self.jitter == "decorrelated":
            prev = self.base if previous is None else previous
            return min(self.cap, self.base + u * (prev * 3.0 - self.base))
        c = self.ceiling(n)
        if self.jitter == "none":
            return c
        if self.jitter == "full":
            return u * c
        return c / 2.0 + u * (c / 2.0)  # equal


def delay_rounds(delay: float) -> int:
    """A sleep as the retry's offset in rounds, ``max(1, ceil(delay))``: never the same round."""
    return max(1, math.ceil(delay))


@dataclass(frozen=True)
class RetryPolicy:
    """Up to ``attempts`` tries per request (the first included), sleeping ``backoff`` between.

    ``backoff=None`` retries at once (the next round). ``attempts=1`` never retries.
    """

    attempts: int = SRE_MAX_ATTEMPTS
    backoff: Backoff | None = Backoff()

    def __post_init__(self) -> None:
        check_int("attempts", self.attempts, 1, 100)

    @property
    def label(self) -> str:
        b = self.backoff
        how = "at once" if b is None else "no jitter" if b.jitter == "none" else f"{b.jitter} jitter"
        return "no retries" if self.attempts == 1 else f"{self.attempts} attempts, {how}"


NO_RETRIES = RetryPolicy(attempts=1, backoff=None)


# --- budgets ---------------------------------------------------------------------------------


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


class Books:
    """One client's budget over a run's rounds, kept as the seeded models need it: no budget."""

    def grant(self, t: int, n: int) -> int:
        """How many of ``n`` retries may go in round ``t`` (those are charged)."""
        return n

    def served(self, t: int, originals: int, retries: int) -> None:
        """Successes whose responses arrive in round ``t`` (a token bucket refills)."""


class RatioBooks(Books):
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


class QuotaBooks(Books, RetryQuota):
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


def books(budget: Budget | None, originals: Sequence[int]) -> Books:
    """The books for ``budget`` over a run whose originals per round are ``originals``."""
    if isinstance(budget, RatioBudget):
        return RatioBooks(budget, originals)
    if isinstance(budget, TokenBucket):
        return QuotaBooks(budget, len(originals))
    return Books()


# --- the budget's worst case -------------------------------------------------------------------


@dataclass(frozen=True)
class WorstCase:
    """Calls made when every call is refused: ``attempts / requests`` is the load factor."""

    requests: int
    attempts: int

    @property
    def load(self) -> float:
        return self.attempts / self.requests


def worst_case_load(
    policy: RetryPolicy = RetryPolicy(SRE_MAX_ATTEMPTS, Backoff()),
    budget: Budget | None = None,
    *,
    requests_per_round: int = 10,
    rounds: int = 2000,
    seed: int = JITTER_SEED,
) -> WorstCase:
    """The SRE book's worst case: a dependency that refuses every call.

    ``requests_per_round`` requests arrive in each of ``rounds`` rounds; every call is refused;
    each refusal retries under ``policy`` while ``budget`` allows, until none is pending. So
    without a budget the factor is ``policy.attempts`` (3.00x for 3); with the SRE 10% budget
    retries settle at 1/9 of the originals, 1.11x (the book's "about 1.1x"); a token bucket
    with no success to refill it allows ``capacity // retry_cost`` retries in all.
    """
    check_int("requests_per_round", requests_per_round, 1)
    check_int("rounds", rounds, 1)
    rng, backoff = random.Random(seed).random, policy.backoff
    horizon = rounds + (policy.attempts - 1) * delay_rounds(backoff.cap if backoff else 0.0) + 1
    ledger = books(budget, [requests_per_round] * rounds + [0] * (horizon - rounds))
    due: dict[int, list[tuple[int, float]]] = {}
    attempts = 0
    for t in range(horizon):
        calls = [(1, backoff.base if backoff else 0.0)] * (requests_per_round if t < rounds else 0)
        calls += due.pop(t, [])
        attempts += len(calls)
        retrying = [c for c in calls if c[0] < policy.attempts]
        for tried, sleep in retrying[: ledger.grant(t, len(retrying)) if retrying else 0]:
            d = 0.0 if backoff is None else backoff.delay(tried, rng(), sleep)
            due.setdefault(t + delay_rounds(d), []).append((tried + 1, d))
    return WorstCase(requests_per_round * rounds, attempts)


# --- Brooker's contention experiment -----------------------------------------------------------


@dataclass(frozen=True)
class Contention:
    """One contention run: every call made, and the step the last client succeeded."""

    clients: int
    calls: int
    completion: int


def contention(clients: int, backoff: Backoff | None, *, seed: int = JITTER_SEED) -> Contention:
    """``clients`` clients that each need one successful call on one contended resource.

    A small, exact version of Brooker's OCC simulation, in steps of one round trip: all call
    at step 0; of the calls landing on one step exactly one succeeds (the lowest client
    number: the first write wins, the others read a stale version); a client whose n-th
    call failed calls again ``delay_rounds(sleep)`` steps later (``backoff`` None: the next
    step), drawing from one ``random.Random(seed)`` in client order. Without jitter the
    losers stay in lockstep: ``clients * (clients + 1) / 2`` calls, whatever the backoff.
    """
    check_int("clients", clients, 1)
    rng = random.Random(seed).random
    start = backoff.base if backoff is not None else 0.0
    failures = [0] * clients
    sleeps = [start] * clients
    queue: list[tuple[int, int]] = [(0, c) for c in range(clients)]
    heapq.heapify(queue)
    calls = completion = 0
    while queue:
        step = queue[0][0]
        landing: list[int] = []
        while queue and queue[0][0] == step:
            landing.append(heapq.heappop(queue)[1])
        calls += len(landing)
        completion = step  # landing is sorted: landing[0] (the lowest number) succeeds
        for c in landing[1:]:
            failures[c] += 1
            sleeps[c] = d = 0.0 if backoff is None else backoff.delay(failures[c], rng(), sleeps[c])
            heapq.heappush(queue, (step + delay_rounds(d), c))
    return Contention(clients, calls, completion)


# Brooker's five strategies, in steps of one round trip: his 5 ms base and 2 s cap over a
# ~20 ms read-and-write round trip (two 10 ms network legs) are 0.25 and 100 round trips.
CONTENTION_BASE = 5 / 20  # his ExpoBackoff*(5, 2000), in ms
CONTENTION_CAP = 2000 / 20
CONTENTION_STRATEGIES: dict[str, Backoff | None] = {
    "no backoff": None,
    "exponential, no jitter": Backoff(CONTENTION_BASE, CONTENTION_CAP, "none"),
    "full jitter": Backoff(CONTENTION_BASE, CONTENTION_CAP, "full"),
    "equal jitter": Backoff(CONTENTION_BASE, CONTENTION_CAP, "equal"),
    "decorrelated jitter": Backoff(CONTENTION_BASE, CONTENTION_CAP, "decorrelated"),
}


@dataclass(frozen=True)
class ContentionRow:
    """One strategy at one client count: mean calls and mean completion over ``runs`` seeds."""

    strategy: str
    clients: int
    calls: float
    completion: float


def contention_table(
    clients: Iterable[int] = BROOKER_CLIENTS,
    strategies: dict[str, Backoff | None] | None = None,
    *,
    runs: int = 10,
    seed: int = JITTER_SEED,
) -> list[ContentionRow]:
    """Brooker's table: each strategy at each client count, averaged over ``runs`` seeds
    (``seed``, ``seed + 1``, ...; the same seeds for every strategy)."""
    check_int("runs", runs, 1)
    rows = []
    for name, backoff in (strategies or CONTENTION_STRATEGIES).items():
        for n in clients:
            done = [contention(n, backoff, seed=seed + i) for i in range(runs)]
            calls, completion = (
                math.fsum(getattr(r, k) for r in done) / runs for k in ("calls", "completion")
            )
            rows.append(ContentionRow(name, n, calls, completion))
    return rows
