"""The small experiments that show what retries and budgets do: amplification, the worst case,
and Brooker's contending clients. Pure and seeded. Sources:

- **Amplification.** Google SRE book, ch. 22 "Addressing Cascading Failures": a request may
  make as many attempts at the lowest layer as the *product* of the attempts at each
  layer; three layers (backend, frontend, JavaScript) each issuing 3 retries (4 attempts)
  make 4^3 = 64 attempts on the database for one user action. :func:`amplification`.
- **The budget's worst case.** SRE book, ch. 21 "Handling Overload": in its worst case (a
  datacenter refusing most requests) the per-request cap alone lets the load grow to
  somewhat below 3x, the 10% budget to about 1.1x. :func:`worst_case_load` computes both
  (3.00x and 1.11x) in the seeded rounds; :func:`every_call_refused_in_turn` runs notebook 06's
  own retry loop and a budget (the cell's, or a learner's) against a dependency that refuses all.
- **Contention.** Marc Brooker, "Exponential Backoff And Jitter" (AWS Architecture Blog,
  2015) and its simulator: :func:`contention` is a small version of his contention
  experiment, :func:`contention_table` his table.
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Iterable
from dataclasses import dataclass

from bulkhead_lab.retries.budgets import (
    Budget,
    EnvoyBudget,
    InFlightLedger,
    Ledger,
    RetryBudget,
    ledger_for,
)
from bulkhead_lab.retries.policy import (
    JITTER_SEED,
    REFUSED,
    SRE_MAX_ATTEMPTS,
    Backoff,
    RetryPolicy,
    call_with_retries,
    delay_rounds,
)

SRE_LAYERS = 3  # SRE ch. 22: backend, frontend and JavaScript layers
SRE_ATTEMPTS_PER_LAYER = 4  # ... each issuing 3 retries (4 attempts): 64 attempts at the bottom
BROOKER_CLIENTS = (10, 20, 30, 40, 50)  # his simulator's client counts


def amplification(attempts: int, depth: int) -> int:
    """Calls at the bottom of ``depth`` layers that each make up to ``attempts`` (the first try
    included: 1 + r with r retries, so (1 + r) ** depth). The SRE book's 4 over 3 layers: 64."""
    return attempts**depth


def calls_per_layer(attempts: int, depth: int) -> tuple[int, ...]:
    """Calls reaching each layer from the top when every call fails: (4, 16, 64) for 4 over 3."""
    return tuple(amplification(attempts, d) for d in range(1, depth + 1))


# --- the budget's worst case -------------------------------------------------------------------


@dataclass(frozen=True)
class WorstCase:
    """Calls made when every call is refused: ``attempts / requests`` is the load factor."""

    requests: int
    attempts: int

    @property
    def load(self) -> float:
        return self.attempts / self.requests


@dataclass(frozen=True)
class InFlightCase(WorstCase):
    """The worst case under Envoy's cap on retries in flight, with what the cap saw: the most retries
    in flight at once, the highest limit any round had, and the rounds a retry was in flight on
    average (its backoff, then its answer)."""

    peak_in_flight: int = 0
    highest_limit: int = 0
    mean_in_flight: float = 0.0


def worst_case_load(
    policy: RetryPolicy = RetryPolicy(SRE_MAX_ATTEMPTS, Backoff()),
    budget: Budget | EnvoyBudget | None = None,
    *,
    requests_per_round: int = 10,
    rounds: int = 2000,
    every: int = 1,
    seed: int = JITTER_SEED,
) -> WorstCase:
    """The SRE book's worst case: a dependency that refuses every call.

    ``requests_per_round`` requests arrive in each of ``rounds`` rounds (in every ``every``-th round
    of them: 1 every 10 rounds is 10 a second); every call is refused
    in the round it is sent; each refusal retries under ``policy`` while ``budget`` allows, until
    none is pending. So without a budget the factor is ``policy.attempts`` (3.00x for 3); with
    the SRE 10% budget retries settle at 1/9 of the originals, 1.11x (the book's "about 1.1x"); a
    token bucket with no success to refill it allows ``capacity // retry_cost`` retries in all.
    Envoy's budget (:class:`~bulkhead_lab.retries.budgets.EnvoyBudget`) caps the retries in flight,
    each from its refusal to its own answer, beside the round's calls as the open requests
    (an :class:`InFlightCase`).
    """
    rng, backoff = random.Random(seed).random, policy.backoff
    horizon = rounds + (policy.attempts - 1) * delay_rounds(backoff.cap if backoff else 0.0) + 1
    originals = [requests_per_round if t < rounds and t % every == 0 else 0 for t in range(horizon)]
    envoy: InFlightLedger | None = None
    if isinstance(budget, EnvoyBudget):
        ledger: Ledger = (envoy := InFlightLedger(budget))
    else:
        ledger = ledger_for(budget, originals)
    due: dict[int, list[tuple[int, float]]] = {}
    attempts = 0
    for t in range(horizon):
        calls = [(1, backoff.base if backoff else 0.0)] * originals[t]
        calls += due.pop(t, [])
        attempts += len(calls)
        if envoy is not None:
            envoy.open(t, len(calls))
        retrying = [c for c in calls if c[0] < policy.attempts]
        for tried, sleep in retrying[: ledger.grant(t, len(retrying)) if retrying else 0]:
            d = 0.0 if backoff is None else backoff.delay(tried, rng(), sleep)
            when = t + delay_rounds(d)
            due.setdefault(when, []).append((tried + 1, d))
            if envoy is not None:
                envoy.answered_in(t, when)
    requests = sum(originals)
    if envoy is None:
        return WorstCase(requests, attempts)
    return InFlightCase(requests, attempts, envoy.peak, envoy.highest, envoy.mean_in_flight)


async def every_call_refused_in_turn(
    budget: RetryBudget, requests: int = 1000, attempts: int = SRE_MAX_ATTEMPTS
) -> WorstCase:
    """The worst case through notebook 06's retry loop, one request after another, as the notebook's
    ``worst_case`` cell runs it (and ``write_budget`` checks a learner's budget): ``requests``
    requests, every call refused, each retried up to ``attempts`` times within ``budget``, sleeping
    0 s. 3000 calls for 1000 requests without a budget (``RetryBudget(1.0)``), 1112 with the SRE 10%."""
    calls = 0

    async def refuse() -> int:
        nonlocal calls
        calls += 1
        return REFUSED

    for _ in range(requests):
        await call_with_retries(refuse, budget, attempts, lambda n: 0.0)
    return WorstCase(requests, calls)


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


def contention_table(clients: Iterable[int] = BROOKER_CLIENTS, *, runs: int = 10) -> list[ContentionRow]:
    """Brooker's table: each strategy at each client count, averaged over ``runs`` seeds
    (``JITTER_SEED``, ``JITTER_SEED + 1``, ...; the same seeds for every strategy)."""
    rows = []
    for name, backoff in CONTENTION_STRATEGIES.items():
        for n in clients:
            done = [contention(n, backoff, seed=JITTER_SEED + i) for i in range(runs)]
            calls, completion = (
                math.fsum(getattr(r, k) for r in done) / runs for k in ("calls", "completion")
            )
            rows.append(ContentionRow(name, n, calls, completion))
    return rows


def fewest_calls(clients: int, *, runs: int = 10) -> str:
    """The strategy whose ``clients`` contending clients make the fewest calls (mean of ``runs`` seeds)."""
    return min(contention_table((clients,), runs=runs), key=lambda r: r.calls).strategy
