"""What one drive of lesson 004's Order Service measured: :class:`OrdersRun`, and its timelines.

:func:`~.load.drive` and :func:`~.load.run_orders` (a burst or a steady load) return an
:class:`OrdersRun`. Times are seconds on the drive's clock (0 = the first order sent).
In-process runners record each dependency's open calls with a :class:`Recorder` and
place them, and the bulkhead's own timeline, on that one clock (:func:`exact_timelines`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from bulkhead_lab.live.bulkhead import BulkheadPoint
from bulkhead_lab.live.net.dependency import Dependency, DependencyStats
from bulkhead_lab.live.net.lag import LagWatch
from bulkhead_lab.live.orders.clients import Kind, Outcome, PoolsReading, Received, RequestResult
from bulkhead_lab.live.orders.schedule import Schedule
from bulkhead_lab.live.orders.service import OrderService, OrderSettings, Variant

SETUP_WAIT = 0.010  # s: a shorter wait for a connection is its set-up, not a queue
NOT_READ = Received(error="not read")  # a run that never asked Order Service what it received


@dataclass
class OrdersRun:
    """One drive of the Order Service: every answer, what Payment and Inventory saw, the bulkhead.

    ``settings`` is the Order Service's when this process ran it (None for a drive of a service
    elsewhere); ``pools`` what it said of its pools, ``bulkhead_busy`` and ``bulkhead_after`` its
    ``/admin/bulkhead`` counters (cockatiel's names) while the orders were in flight and after.
    """

    variant: Variant
    settings: OrderSettings | None
    slow: bool
    slow_latency: float | None
    requests: list[RequestResult]
    payment: DependencyStats
    inventory: DependencyStats
    bulkhead_busy: dict[str, int] | None
    bulkhead_after: dict[str, int] | None
    pools: PoolsReading | None
    duration: float
    stock_delay: float
    timelines: dict[str, list[tuple[float, int]]] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)
    bulkhead_timeline: list[BulkheadPoint] = field(default_factory=list)
    order_service: Received = NOT_READ  # its /admin/stats: requests received
    load: Schedule | None = None  # what the drive sent
    slow_window: tuple[float, float] | None = None  # (from, until) seconds when Payment was slow
    t0: float = 0.0  # time.monotonic() when the orders were sent
    lag: LagWatch | None = field(default=None, compare=False, repr=False)  # its burst's loop lag (net.lag)

    def of(self, kind: Kind) -> list[RequestResult]:
        return [r for r in self.requests if r.kind == kind]

    @property
    def orders(self) -> list[RequestResult]:
        return self.of("order")

    @property
    def stock_checks(self) -> list[RequestResult]:
        return self.of("stock")

    def count(self, outcome: Outcome, kind: Kind = "order") -> int:
        return sum(r.outcome == outcome for r in self.of(kind))

    @property
    def served(self) -> int:
        return self.count("served")

    @property
    def refused(self) -> int:
        return self.count("refused")

    def refused_arrivals(self) -> list[int]:
        """Which orders were refused, numbered by their arrival at Order Service (1 = first)."""
        return sorted(int(r.body.get("order", 0)) for r in self.orders if r.outcome == "refused")

    def served_arrivals(self) -> list[int]:
        """The served orders, numbered by their arrival at Order Service, in the order they were answered."""
        served = sorted((r.end, int(r.body.get("order", 0))) for r in self.orders if r.outcome == "served")
        return [n for _, n in served]

    def waiting(self, kind: Kind) -> list[tuple[float, int]]:
        """Requests of ``kind`` waiting at Order Service for a connection at each change, ``(t, n)`` from
        ``(0, 0)``: from each answer's ``waited_ms`` (the bulkhead's queue, then the pool's wait). A
        refusal never waits, and a wait under :data:`SETUP_WAIT` is a connection being set up."""
        changes: dict[float, int] = {}
        for r in self.of(kind):
            began = min(max(r.run_start, r.start), r.end)  # its call had a connection
            if r.outcome != "refused" and began - r.start >= SETUP_WAIT:
                changes[r.start] = changes.get(r.start, 0) + 1
                changes[began] = changes.get(began, 0) - 1
        points, n = [(0.0, 0)], 0
        for t in sorted(changes):
            n += changes[t]
            points.append((t, n))
        return points

    def slowest(self, kind: Kind, outcome: Outcome | None = None) -> float:
        """The longest latency of that kind (and outcome), in seconds; 0 when there is none."""
        times = [r.latency for r in self.of(kind) if outcome is None or r.outcome == outcome]
        return max(times, default=0.0)

    def longest_wait(self, kind: Kind) -> float:
        """The longest a request of that kind waited at Order Service for its connection, in seconds."""
        return max((r.waited or 0.0 for r in self.of(kind)), default=0.0)

    def limit_over_time(self) -> list[tuple[float, int]]:
        """The bulkhead's limit at every change of it: ``(t, limit)``."""
        out: list[tuple[float, int]] = []
        for p in self.bulkhead_timeline:
            if not out or out[-1][1] != p.limit:
                out.append((p.t, p.limit))
        return out

    @property
    def attempts(self) -> int:
        """Orders the client sent, retries included."""
        return sum(r.attempts for r in self.orders)

    def calls_per_order(self) -> dict[str, float]:
        """Per original order: what the client sent, what Order Service received, what Payment counted.

        A refused order never reaches Payment, so retried refusals multiply the first two only.
        """
        n = len(self.orders) or 1
        return {
            "client sent": self.attempts / n,
            "order service received": self.order_service.orders / n,
            "payment counted": self.payment.calls / n,
        }

    def served_waves(self, slow_latency: float | None = None) -> dict[int, int]:
        """How many orders were served in Payment's 1st, 2nd, 3rd ... slow wave.

        A wave is a group of orders answered together: a gap of more than half the slow
        latency between two answers starts the next one (counting by gaps, not by dividing
        latencies, so each wave's few milliseconds of overhead never add up to a wrong wave).
        ``slow_latency``: Payment's slowdown when the run did not set it (a server's default).
        """
        latency = slow_latency if slow_latency is not None else self.slow_latency
        if not self.slow or not latency:
            return {}
        ends = sorted(r.end for r in self.orders if r.outcome == "served")
        waves: dict[int, int] = {}
        k, last = 0, -float("inf")
        for end in ends:
            if end - last > latency / 2:
                k += 1
            waves[k] = waves.get(k, 0) + 1
            last = end
        return waves


class Recorder:
    """A dependency's open calls at every change, on ``time.monotonic()`` (its ``on_change``)."""

    def __init__(self) -> None:
        self.points: list[tuple[float, int]] = []

    def __call__(self, dep: Dependency) -> None:
        self.points.append((time.monotonic(), dep.open))

    def since(self, t0: float) -> list[tuple[float, int]]:
        return [(0.0, 0)] + [(t - t0, n) for t, n in self.points if t >= t0]


def exact_timelines(
    run: OrdersRun, service: OrderService, recorders: Mapping[str, Recorder], ports: dict[str, int]
) -> None:
    """Give ``run`` the in-process timelines on its own clock: the dependencies' and the bulkhead's."""
    run.timelines = {name: rec.since(run.t0) for name, rec in recorders.items()}
    b = service.bulkhead
    if b is not None:
        shift = b.t0 - run.t0
        run.bulkhead_timeline = [p._replace(t=max(0.0, p.t + shift)) for p in b.timeline]
    run.ports = ports
    run.settings = service.settings
    run.variant = service.settings.variant
