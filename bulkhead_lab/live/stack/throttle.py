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

:func:`orders_runs` takes the throttle to lesson 004's Order Service, the ``limited`` variant (a
bulkhead of :data:`LIMIT` running and :data:`QUEUE` waiting around Payment, answering 503 at once when
full), started on free ports by the one driver (:func:`~bulkhead_lab.live.orders.load.run_orders`) with
Payment slow at :data:`ORDERS_SLOW` s (the lesson's 3 s, shortened so the run takes seconds). One client
asks for :data:`ORDERS_RATE` orders a second for :data:`ORDERS_SECONDS` s (notebook 05's steady rate,
an open loop), without a throttle and with one (:class:`ThrottledLoad`), side by side, each against its
own services; an accept is an order answered 200, known when its answer comes back (a served order's
takes Payment's latency, a refusal's none).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiohttp

from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.net.key import key_headers
from bulkhead_lab.live.net.server import Progress, all_or_cancel
from bulkhead_lab.live.net.side_by_side import SummedProgress
from bulkhead_lab.live.orders.clients import Client, Kind, Try, admin_json, slow_url
from bulkhead_lab.live.orders.load import OrdersRun, run_orders
from bulkhead_lab.live.orders.settings import OrderSettings
from bulkhead_lab.live.orders.steady import SteadyLoad
from bulkhead_lab.live.stack.proxy import FaultProxy

K = 2.0  # the book's multiplier
REQUESTS = 300  # requests the application asks for in a live run
REFUSED = 0.9  # the share the backend refuses
SEED = 10  # the throttle's coin
ORDERS_RATE = 50.0  # orders a second the application asks the Order Service for
ORDERS_SECONDS = 2.0  # how long it asks
ORDERS_SLOW = 0.5  # seconds a Payment call takes: 5 running places serve 10 orders a second
LIMIT, QUEUE = 5, 5  # lesson 004's limited Order Service: 5 running, 5 waiting


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


class ThrottleFault(Exception):
    """What a throttle raised in a live run, in one line; the run stopped and its services closed."""


def _guarded(throttle: object, method: str) -> Callable[[], object]:
    ask = getattr(throttle, method)

    def call() -> object:
        try:
            return ask()
        except Exception as exc:
            why = (str(exc).splitlines() or [""])[0]
            said = f"{type(exc).__name__}: {why}" if why else type(exc).__name__
            raise ThrottleFault(f"{type(throttle).__name__}.{method}() raised {said}") from None

    return call


REJECTED_HERE = {"error": "rejected here by the throttle"}  # the body of an order the client never sent


class ThrottledClient(Client):
    """Lesson 004's client behind the application's throttle (``make(K)``, or none): each order asks it
    first; one it rejects ends at once, never sent (:data:`REJECTED_HERE`); one answered 200 is an accept."""

    def __init__(
        self, session: aiohttp.ClientSession, t0: float, load: ThrottledLoad, on_progress: Progress | None
    ) -> None:
        super().__init__(session, t0, load.requests, on_progress)
        throttle = load.make(K) if load.make is not None else None
        methods = ("probability", "on_request", "on_accept")
        self.asks = [_guarded(throttle, m) for m in methods] if throttle is not None else []
        self.coin = random.Random(SEED)

    async def attempts(self, kind: Kind, method: str, url: str, tries: list[Try]) -> dict[str, Any]:
        if self.asks:
            probability, on_request, _ = self.asks
            p = float(probability())  # type: ignore[arg-type]
            on_request()
            if self.coin.random() < p:
                now = time.monotonic() - self.t0
                tries.append(Try(now, now, 0))
                return REJECTED_HERE
        status, body = await self.attempt(method, url, tries)
        if status == 200 and self.asks:
            self.asks[2]()  # on_accept
        return body


@dataclass(frozen=True)
class ThrottledLoad(SteadyLoad):
    """A steady rate of orders, Payment slow from before the first, each asked for through ``make``'s
    throttle (None: no throttle)."""

    make: Callable[[float], object] | None = None

    def client(self, session: aiohttp.ClientSession, t0: float, on_progress: Progress | None) -> Client:
        return ThrottledClient(session, t0, self, on_progress)

    async def prepare(self, session: aiohttp.ClientSession, payment_url: str) -> None:
        """Payment slow before the orders are sent."""
        await admin_json(session, "POST", slow_url(payment_url, self.slow_latency))


@dataclass(frozen=True)
class OrdersThrottleRun:
    """One client against lesson 004's Order Service: orders asked for, rejected here, sent, answered
    200 (served) and 503 (refused at once by the bulkhead); what the Order Service and Payment counted;
    how long it took (s)."""

    throttled: bool
    asked: int
    local: int
    sent: int
    served: int
    refused: int
    received: int
    payment_calls: int
    seconds: float

    @classmethod
    def read(cls, throttled: bool, run: OrdersRun) -> OrdersThrottleRun:
        local = sum(r.body is REJECTED_HERE for r in run.orders)
        asked, received, calls = len(run.orders), run.order_service.orders, run.payment.calls
        return cls(
            throttled, asked, local, asked - local, run.served, run.refused, received, calls, run.duration
        )


async def orders_run(
    make: Callable[[float], object] | None, on_progress: Progress | None = None
) -> OrdersThrottleRun:
    """:data:`ORDERS_RATE` orders a second for :data:`ORDERS_SECONDS` s to the limited Order Service,
    Payment slow, through ``make(K)`` (or no throttle), by the one driver
    (:func:`~bulkhead_lab.live.orders.load.run_orders`); ``on_progress(ended, asked)`` as orders end.
    Nothing stays listening after it returns, raises or is cancelled."""
    settings = OrderSettings("limited", limit=LIMIT, queue=QUEUE)
    load = ThrottledLoad(ORDERS_RATE, 0.0, ORDERS_SECONDS, 0.0, ORDERS_SLOW, make=make)
    return OrdersThrottleRun.read(make is not None, await run_orders(settings, load, on_progress=on_progress))


async def orders_runs(
    make: Callable[[float], object] | None = AdaptiveThrottle, on_progress: Progress | None = None
) -> tuple[OrdersThrottleRun, OrdersThrottleRun]:
    """No throttle and ``make``'s, side by side (about 3 s); ``on_progress`` counts both runs' orders."""
    summed = SummedProgress([int(ORDERS_RATE * ORDERS_SECONDS)] * 2, on_progress)
    runs = [orders_run(None, summed.for_run(0)), orders_run(make, summed.for_run(1))]
    plain, throttled = await all_or_cancel(runs)
    return plain, throttled
