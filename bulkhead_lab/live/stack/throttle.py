"""Client-side adaptive throttling (the SRE book, "Handling Overload"), and a live run of it.

Each client counts ``requests`` (every request the application asked for, sent or not) and
``accepts`` (those the backend accepted), and rejects a new request locally, before sending it, with
probability ``max(0, (requests - K * accepts) / (requests + 1))``. With ``K = 2`` a healthy backend
(every request accepted) is never throttled; a backend refusing most requests sees about K times the
requests it accepts, not all of them. The book counts the last two minutes; :class:`AdaptiveThrottle`
counts from its start (a window is a deque of timestamps away).

:func:`throttle_run` sends :data:`REQUESTS` requests one after another through the fault proxy in
front of a dependency that the proxy makes refuse :data:`REFUSED` of them (HTTP 503, evenly spread),
with a throttle class (the learner's, or this one) or none, and counts what reached the backend. The
throttle's coin is seeded, so the counts are the same every run.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import aiohttp

from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.net.key import key_headers
from bulkhead_lab.live.stack.proxy import FaultProxy

K = 2.0  # the book's multiplier
REQUESTS = 300  # requests the application asks for in a live run
REFUSED = 0.9  # the share the backend refuses
SEED = 10  # the throttle's coin


class AdaptiveThrottle:
    """The SRE book's client-side throttle: reject locally with probability
    max(0, (requests - K * accepts) / (requests + 1))."""

    def __init__(self, k: float = K) -> None:
        self.k = k
        self.requests = 0  # every request asked for, sent or rejected here
        self.accepts = 0  # the ones the backend accepted

    def on_request(self) -> None:
        self.requests += 1

    def on_accept(self) -> None:
        self.accepts += 1

    def probability(self) -> float:
        return max(0.0, (self.requests - self.k * self.accepts) / (self.requests + 1))


@dataclass(frozen=True)
class ThrottleRun:
    """Requests asked for, rejected locally, sent, and accepted; what the backend counted."""

    throttled: bool
    asked: int
    local: int
    sent: int
    accepted: int
    backend_calls: int


async def throttle_run(make: Callable[[float], object] | None, refused: float = REFUSED) -> ThrottleRun:
    """:data:`REQUESTS` requests in turn through a proxy refusing ``refused`` of them; with
    ``make(K)`` as the throttle (its probability asked before each request counts), or none."""
    throttle = make(K) if make is not None else None
    coin = random.Random(SEED)
    local = sent = accepted = 0
    async with Dependency("backend", 0.0) as backend, FaultProxy(backend.url, "refusing proxy") as proxy:
        proxy.inject(errors=refused)
        url = f"{proxy.url}/call"
        async with aiohttp.ClientSession(headers=key_headers(url)) as session:
            for _ in range(REQUESTS):
                if throttle is not None:
                    p = float(throttle.probability())  # type: ignore[attr-defined]
                    throttle.on_request()  # type: ignore[attr-defined]
                    if coin.random() < p:
                        local += 1
                        continue
                sent += 1
                async with session.get(url) as answer:
                    await answer.read()
                    if answer.status < 500:
                        accepted += 1
                        if throttle is not None:
                            throttle.on_accept()  # type: ignore[attr-defined]
        return ThrottleRun(throttle is not None, REQUESTS, local, sent, accepted, proxy.calls)
