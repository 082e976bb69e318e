"""Timeouts, the bulkhead's partner: what a caller holds, and how long a queue may be (Little's Law).

A caller holds each call (a slot, a bulkhead place, a socket) from the round it makes it until it
is answered or gives up: ``min(latency, timeout)`` rounds. At ``rate`` calls a round it holds
``rate * min(latency, timeout)`` on average (:func:`occupancy`): the timeout caps what a slow
dependency can take from its callers, never what the dependency itself still works on.
:func:`held` runs it: a dependency with a worker for every call (no queue), callers that never
retry, and the mean of the calls waiting per round.

Inside the dependency a call that finds ``q`` calls waiting ahead of it waits about
``(q + 1) * service / workers`` rounds (its workers free one every ``service / workers`` rounds):
:func:`queued_latency`. It is answered in time only while that wait plus its service fits inside its
caller's timeout: :func:`longest_queue` is the longest line that still does.
"""

from __future__ import annotations

import math
from statistics import fmean

from bulkhead_lab.queues.rounds import kept_run
from bulkhead_lab.queues.settings import ROUNDS, Callers, Dependency, Setup
from bulkhead_lab.retries.policy import NO_RETRIES

WARM_UP = 100  # rounds left out of a mean: the first calls are still in flight


def occupancy(rate: float, latency: float, timeout: float) -> float:
    """Calls a caller holds at once: ``rate`` (calls a round) x ``min(latency, timeout)`` (rounds)."""
    return rate * min(latency, timeout)


def held(rate: float, latency: int, timeout: int, rounds: int = ROUNDS) -> float:
    """The same, simulated: lesson 000's event arrivals at ``rate`` calls/s against a dependency that
    takes ``latency`` rounds a call and never queues; the mean of the calls held, per round."""
    workers = max(8, math.ceil(rate / 100 * latency * 3) + 16)  # ample: no call ever waits
    setup = Setup(
        dependency=Dependency(workers=workers, service=latency),
        callers=Callers(timeout=timeout, policy=NO_RETRIES),
        trigger=None,
        rate=rate,
        rounds=rounds,
    )
    return fmean(kept_run(setup).trace.waiting[WARM_UP:])


def queued_latency(dependency: Dependency, ahead: int) -> float:
    """Rounds from joining the queue to the answer for a call with ``ahead`` calls waiting before it
    (every worker busy): its wait, ``(ahead + 1) * service / workers``, then its service."""
    return (ahead + 1) * dependency.service / dependency.workers + dependency.service


def longest_queue(dependency: Dependency, timeout: int) -> int:
    """The most calls that may wait and the last still be answered inside ``timeout`` (0: none)."""
    room = (timeout - dependency.service) * dependency.workers / dependency.service
    return max(0, math.floor(room + 1e-9))
