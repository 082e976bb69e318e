"""Notebook 10, section 5: a client-side throttle in notebook 06's storm model.

The model is :func:`bulkhead_lab.retries.storm.run` itself: lesson 000's seeded rounds, callers that
retry a refusal (a 503 at once) after a jittered backoff. One thing is added, as its
:class:`~bulkhead_lab.retries.storm.Gate`: each flow's callers keep a throttle (the learner's class or
the course's :class:`~bulkhead_lab.live.stack.throttle.AdaptiveThrottle`, built with ``k``), and every
call they are about to make, an original or a retry, counts as a request (``on_request()``) and goes
unless a coin (``random.Random``, seeded per flow) falls under the throttle's ``probability()``, asked
once per flow at the start of each round (a round is 10 ms: its calls arrive together). A call the coin
rejects is never sent, and its request ends there (a rejected call is not retried: that would be the
load the throttle is for). A call the pool admits is an accept (``on_accept()``): in lesson 000's model
a pool admits or refuses a call at once, so the client learns both when it sends.

Without a throttle the run is 06's exactly, so what changes is the throttle's doing.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bulkhead_lab.live.stack.throttle import K
from bulkhead_lab.pool.arrivals import EVENT, TRACKING
from bulkhead_lab.pool.params import Params
from bulkhead_lab.retries import storm as storm06
from bulkhead_lab.retries.seeded import LESSON_POLICY, SLOWDOWN
from bulkhead_lab.retries.storm import Callers, RetrySetup

SEED = 10  # the throttles' coins: flow f draws from random.Random(SEED * 2 + f)
SETUP = RetrySetup(LESSON_POLICY)  # notebook 06's callers: 3 attempts, the AWS SDK's full jitter, no budget


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


class Throttles:
    """Both flows' throttles as the gate of 06's rounds (:class:`~bulkhead_lab.retries.storm.Gate`): a
    call goes unless its flow's coin falls under the probability its throttle gave at the round's start.
    It counts per flow the calls rejected before sending (originals and retries). What the learner's
    class raises (or answers that is no number) propagates to the caller."""

    def __init__(self, make: Callable[[float], object], k: float) -> None:
        self.throttles: list[Any] = [make(k) for _ in (TRACKING, EVENT)]
        self.coins = [random.Random(SEED * 2 + f).random for f in (TRACKING, EVENT)]
        self.rejected = [0, 0]

    def calls(self, t: int, order: tuple[int, ...], callers: tuple[Callers, Callers]) -> tuple[int, ...]:
        """Round ``t``'s calls through their flows' throttles: the originals that go (``order`` without
        the rejected ones); the retries due at ``t`` that a throttle rejects leave the callers' ``due``."""
        p = [float(throttle.probability()) for throttle in self.throttles]

        def goes(f: int) -> bool:
            self.throttles[f].on_request()
            return not self.coins[f]() < p[f]

        kept = tuple(f for f in order if goes(f))
        for f, caller in enumerate(callers):
            self.rejected[f] += order.count(f) - kept.count(f)
            for due in caller.dues:
                going = sum(goes(f) for _ in range(due[t]))
                self.rejected[f] += due[t] - going
                caller.total[t] -= due[t] - going
                due[t] = going
        return kept

    def admitted(self, tracking: int, event: int) -> None:
        for throttle, n in zip(self.throttles, (tracking, event), strict=True):
            for _ in range(n):
                throttle.on_accept()


def run(
    params: Params = SLOWDOWN,
    setup: RetrySetup = SETUP,
    make: Callable[[float], object] | None = None,
    k: float = K,
) -> ThrottledStorm:
    """``params``' day with ``setup``'s retrying callers, each flow behind ``make(k)`` (``None``: no
    throttle, which is :func:`bulkhead_lab.retries.storm.run` exactly)."""
    gate = None if make is None else Throttles(make, k)
    played = storm06.run(params, setup, gate=gate)
    rejected = [0, 0] if gate is None else gate.rejected
    flows = (played.tracking, played.event)
    loads = (FlowLoad(c.requests, rejected[f], c.attempts, c.served, c.refused) for f, c in enumerate(flows))
    return ThrottledStorm(params.split, gate is not None, *loads)
