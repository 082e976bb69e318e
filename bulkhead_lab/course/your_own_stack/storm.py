"""Notebook 10, section 5: a client-side throttle in notebook 06's storm model.

The model is :mod:`bulkhead_lab.retries.storm`'s, round for round: lesson 000's seeded rounds, callers
that retry a refusal (a 503 at once) after a jittered backoff, the same RNGs drawn in the same order.
One thing is added: each flow's callers keep a throttle (the learner's class or the course's
:class:`~bulkhead_lab.live.stack.throttle.AdaptiveThrottle`, built with ``k``), and every call they are
about to make, an original or a retry, counts as a request (``on_request()``) and goes unless a coin
(``random.Random``, seeded per flow) falls under the throttle's ``probability()``, asked once per flow at
the start of each round (a round is 10 ms: its calls arrive together). A call the coin rejects is never
sent, and its request ends there (a rejected call is not retried: that would be the load the throttle
is for). A call the pool admits is an accept (``on_accept()``): in lesson 000's model a pool admits or
refuses a call at once, so the client learns both when it sends.

Without a throttle the run is :func:`bulkhead_lab.retries.storm.run` exactly (the tests compare every
counter), so what changes is the throttle's doing. Decorrelated jitter and a budget shared by both flows
are left out (neither is needed here).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from bulkhead_lab.live.stack.throttle import K
from bulkhead_lab.pool.arrivals import EVENT, TRACKING, arrival_stream
from bulkhead_lab.pool.params import Params, event_holds
from bulkhead_lab.pool.rounds import admit, lesson_pool
from bulkhead_lab.retries.seeded import LESSON_POLICY, SLOWDOWN
from bulkhead_lab.retries.storm import Callers, RetrySetup, shared_draw, split_draw

SEED = 10  # the throttles' coins: flow f draws from random.Random(SEED * 2 + f)
SETUP = RetrySetup(LESSON_POLICY)  # notebook 06's callers: 3 attempts, the AWS SDK's full jitter, no budget


class Throttled:
    """One flow's throttle as the rounds ask it: a call goes unless the coin falls under its probability.
    What the learner's class raises (or answers that is no number) propagates to the caller."""

    def __init__(self, throttle: object, coin: random.Random) -> None:
        self.throttle, self.coin, self.p = throttle, coin, 0.0
        self.probability: Callable[[], object] = throttle.probability  # type: ignore[attr-defined]
        self.on_request: Callable[[], object] = throttle.on_request  # type: ignore[attr-defined]
        self.on_accept: Callable[[], object] = throttle.on_accept  # type: ignore[attr-defined]

    def ask(self) -> None:
        """The probability for this round's calls."""
        self.p = float(self.probability())  # type: ignore[arg-type]

    def goes(self) -> bool:
        self.on_request()
        return not self.coin.random() < self.p

    def accepted(self, n: int) -> None:
        for _ in range(n):
            self.on_accept()


@dataclass(frozen=True)
class FlowLoad:
    """One flow over a run: the requests its application asked for, the calls its throttle rejected
    before sending (originals and retries), the calls that reached the pool (originals sent and
    retries), and how many of those the pool served and refused."""

    requests: int
    rejected_here: int
    reached: int
    served: int
    refused: int

    @property
    def per_request(self) -> float:
        """Calls that reached the pool per request asked for (1.0: one each, no retry)."""
        return self.reached / self.requests


@dataclass(frozen=True)
class ThrottledStorm:
    """One run: the layout (a split, ``None``: one pool), whether the callers had a throttle, each flow."""

    split: int | None
    throttled: bool
    tracking: FlowLoad
    event: FlowLoad


def _throttle_round(
    t: int,
    order: tuple[int, ...],
    callers: tuple[Callers, Callers],
    throttles: tuple[Throttled, ...],
    rejected: list[int],
) -> tuple[int, ...]:
    """Round ``t``'s calls through their flows' throttles: the originals that go (``order`` without the
    rejected ones); the retries due at ``t`` that the throttle rejects leave the callers' ``due`` and
    ``total`` (their requests end); ``rejected`` counts both per flow."""
    for throttle in throttles:
        throttle.ask()
    kept = []
    for f in order:
        if throttles[f].goes():
            kept.append(f)
        else:
            rejected[f] += 1
    for f, caller in enumerate(callers):
        for due in caller.dues:
            going = sum(throttles[f].goes() for _ in range(due[t]))
            rejected[f] += due[t] - going
            caller.total[t] -= due[t] - going
            due[t] = going
    return tuple(kept)


def run(
    params: Params = SLOWDOWN,
    setup: RetrySetup = SETUP,
    make: Callable[[float], object] | None = None,
    k: float = K,
) -> ThrottledStorm:
    """``params``' day with ``setup``'s retrying callers, each flow behind ``make(k)`` (``None``: no
    throttle, which is :func:`bulkhead_lab.retries.storm.run` exactly)."""
    if setup.shared or (setup.policy.backoff is not None and setup.policy.backoff.jitter == "decorrelated"):
        raise ValueError("a throttled storm takes a budget per flow and no decorrelated jitter")
    stream = arrival_stream(params)
    rounds, arrivals = params.rounds, (stream.tracking, stream.event)
    callers = (
        Callers(TRACKING, setup, rounds, arrivals[TRACKING], False),
        Callers(EVENT, setup, rounds, arrivals[EVENT], False),
    )
    throttles = None
    if make is not None:
        throttles = tuple(Throttled(make(k), random.Random(SEED * 2 + f)) for f in (TRACKING, EVENT))
    rejected, sent = [0, 0], [0, 0]
    pool = lesson_pool(params)
    tracking, event = pool.flows
    holds = event_holds(params, setup.stop)
    rngs = (random.Random(setup.seed * 4 + 2).random, random.Random(setup.seed * 4 + 3).random)
    draw = shared_draw if params.split is None else split_draw
    ct, ce = callers
    for t in range(rounds):  # storm's own rounds, with the throttles asked before the pool
        event.hold = holds[t]
        pool.free(t)
        order, nt, ne = stream.order[t], stream.tracking[t], stream.event[t]
        if throttles is not None:
            order = _throttle_round(t, order, callers, throttles, rejected)
            nt, ne = order.count(TRACKING), order.count(EVENT)
        sent[TRACKING] += nt
        sent[EVENT] += ne
        mt, me = ct.total[t], ce.total[t]
        if mt or me:  # the retries the draw lets in take their slots first ...
            won_t, won_e = draw(pool, t, (nt, ne), (mt, me), callers, rngs)
            admit(pool, t, (), won_t[0], won_e[0])
        else:
            won_t, won_e = (0, ct.nothing, None), (0, ce.nothing, None)
        at, ae = admit(pool, t, order, nt, ne)  # ... then the originals, as in lesson 000
        wt, we = won_t[0], won_e[0]
        if at < nt or wt < mt:
            ct.refuse(t, nt - at, won_t[1], won_t[2])
        if ae < ne or we < me:
            ce.refuse(t, ne - ae, won_e[1], won_e[2])
        if ct.tokens:
            ct.ledger.served(t + tracking.hold, at, wt)
            ce.ledger.served(t + event.hold, ae, we)
        if throttles is not None:
            throttles[TRACKING].accepted(at + wt)
            throttles[EVENT].accepted(ae + we)
    flows = (_flow(sum(arrivals[f]), rejected[f], sent[f], callers[f]) for f in (TRACKING, EVENT))
    return ThrottledStorm(params.split, throttles is not None, *flows)


def _flow(requests: int, rejected: int, sent: int, caller: Callers) -> FlowLoad:
    reached = sent + sum(caller.total)  # the originals sent and every retry that came due
    return FlowLoad(requests, rejected, reached, reached - caller.refused, caller.refused)
