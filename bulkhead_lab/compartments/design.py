"""The design task: a day of three flows, an SLO for each, and the compartments a learner chooses.

A service has ``slots`` places in all (worker threads, connections). Three flows call through
it, each with its own dependency: ``checkout`` (few calls, that must not fail), ``search``
(many short calls, twice as many for a minute) and ``reports`` (slow calls, whose dependency
hangs for 40 s: the calls sent then are answered after minutes, a hundred times the latency, and
their users press reload: four times the calls). A
:class:`Design` gives each flow a :class:`Compartment`: slots *reserved* for it, a *queue* of
waiting places, and a *timeout*; and a number of *shared* slots any flow may borrow when its
reserve is full (0 shared: hard partitions; all shared, nothing reserved: one pool).

A call takes a free slot of its flow's reserve, else a free shared slot, else a waiting place,
else it is refused at once. A freed reserved slot goes to the oldest waiter of its own flow; a
freed shared slot to the oldest waiter of any flow. A caller gives up at its timeout (seconds,
counted from its arrival), waiting or running; the call is then cancelled and its slot freed (an
async client's timeout, section 3 of notebook 08). The longest timeout, :data:`MAX_TIMEOUT`, is
the whole ten-minute day: no timeout. A call meets its flow's SLO when it is answered, not refused
or timed out, within the SLO's latency. The hang makes the lesson needed: a reports compartment
without a timeout is held by the hung calls long after the hang, and misses its SLO whatever its
size (``tests/compartments/test_design_task.py``).

:func:`run_day` plays a seeded day in continuous time (events on a heap); :func:`practice` plays a
design on the day notebook 09 shows (its checker plays another seed of the same traffic). Pure:
seeded, no I/O.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import deque
from dataclasses import dataclass

from bulkhead_lab.memo import Memo
from bulkhead_lab.validation import check_int, check_real

FLOWS = ("checkout", "search", "reports")
SLOTS = 36  # the service's places in all
DURATION = 600.0  # s: ten minutes of the day
PRACTICE_SEED = 8  # the day the notebook shows (notebook 09's checker plays another)
MAX_TIMEOUT = 600.0  # s: the whole day, so no timeout at all
HANG = 100.0  # the hung calls' latency, times the usual: 200 s on average


@dataclass(frozen=True)
class Surge:
    """From ``start`` to ``end`` (s) a flow's rate and latency are multiplied."""

    start: float
    end: float
    rate: float = 1.0
    latency: float = 1.0


@dataclass(frozen=True)
class Flow:
    """One flow's traffic (calls/s, mean latency s, lognormal spread), surges, and SLO."""

    name: str
    rate: float
    latency: float
    slo_latency: float  # s: answered within this ...
    slo_target: float  # ... for at least this share of the calls
    surges: tuple[Surge, ...] = ()
    spread: float = 0.5

    def at(self, t: float) -> tuple[float, float]:
        """(rate, mean latency) at time ``t``."""
        rate, latency = self.rate, self.latency
        for s in self.surges:
            if s.start <= t < s.end:
                rate, latency = rate * s.rate, latency * s.latency
        return rate, latency


DAY = (
    Flow("checkout", 20.0, 0.15, slo_latency=0.6, slo_target=0.995),
    Flow("search", 60.0, 0.1, slo_latency=0.4, slo_target=0.99, surges=(Surge(120.0, 180.0, rate=2.0),)),
    # 6 minutes in, reports' dependency hangs for 40 s: the calls sent then take minutes, and reloads 4x them
    Flow("reports", 2.0, 2.0, slo_latency=8.0, slo_target=0.75, surges=(Surge(360.0, 400.0, 4.0, HANG),)),
)


@dataclass(frozen=True)
class Compartment:
    """One flow's slots of its own, its waiting places, and its callers' timeout in seconds (the default,
    :data:`MAX_TIMEOUT`, is the whole day: no timeout)."""

    reserved: int = 0
    queue: int = 0
    timeout: float = MAX_TIMEOUT

    def __post_init__(self) -> None:
        check_int("reserved", self.reserved, 0, 1000)
        check_int("queue", self.queue, 0, 1000)
        check_real("timeout", self.timeout, 0.0, MAX_TIMEOUT, low_open=True)


@dataclass(frozen=True)
class Design:
    """A compartment per flow (in :data:`FLOWS`' order) and the slots they share."""

    checkout: Compartment
    search: Compartment
    reports: Compartment
    shared: int = 0

    def __post_init__(self) -> None:
        for name in FLOWS:
            if not isinstance(getattr(self, name), Compartment):
                raise ValueError(
                    f"{name} must be a Compartment(reserved, queue, timeout) (got {getattr(self, name)!r})"
                )
        check_int("shared", self.shared, 0, 1000)

    @property
    def compartments(self) -> tuple[Compartment, ...]:
        return (self.checkout, self.search, self.reports)

    @property
    def slots(self) -> int:
        """Slots the design uses: every reserve, and the shared ones."""
        return sum(c.reserved for c in self.compartments) + self.shared


def check_fits(design: Design, slots: int = SLOTS) -> Design:
    """The design, if it fits the service's slots and gives every flow somewhere to run."""
    if design.slots > slots:
        raise ValueError(f"the design must use at most the service's {slots} slots (got {design.slots})")
    for name, c in zip(FLOWS, design.compartments, strict=True):
        if c.reserved == 0 and design.shared == 0:
            raise ValueError(f"{name} must have a reserved or a shared slot to run in (got none)")
    return design


@dataclass(frozen=True)
class FlowResult:
    """One flow's day: its calls and how they ended."""

    name: str
    calls: int
    within: int  # answered within the SLO's latency
    late: int  # answered, but later
    refused: int
    timed_out: int
    slo_target: float

    @property
    def share(self) -> float:
        return self.within / self.calls if self.calls else 1.0

    @property
    def meets(self) -> bool:
        return self.share >= self.slo_target


def _arrivals(flow: Flow, draw: random.Random, duration: float) -> list[tuple[float, float]]:
    """(arrival time, latency) of every call of ``flow``, by thinning at its peak rate."""
    peak = max([flow.rate] + [flow.rate * s.rate for s in flow.surges])
    calls, t = [], draw.expovariate(peak)
    while t < duration:
        rate, latency = flow.at(t)
        if draw.random() * peak < rate:
            mu = math.log(latency) - flow.spread**2 / 2
            calls.append((t, draw.lognormvariate(mu, flow.spread)))
        t += draw.expovariate(peak)
    return calls


class _Service:
    """The slots, the queues and the outcomes while a day plays (see the module's docstring)."""

    def __init__(self, design: Design, flows: tuple[Flow, ...]) -> None:
        self.design, self.flows = design, flows
        self.own = [0] * len(flows)  # reserved slots busy, per flow
        self.borrowed = 0  # shared slots busy
        self.waiting: list[deque[tuple[float, float]]] = [deque() for _ in flows]  # (arrival, latency)
        self.ends: list[tuple[float, int, int, bool, float]] = []  # (end, seq, flow, shared, arrival)
        self.seq = 0
        self.counts = [[0, 0, 0, 0, 0] for _ in flows]  # calls, within, late, refused, timed out

    def _start(self, f: int, arrival: float, latency: float, now: float, shared: bool) -> None:
        timeout = self.design.compartments[f].timeout
        deadline = arrival + timeout
        end = min(now + latency, deadline)
        if shared:
            self.borrowed += 1
        else:
            self.own[f] += 1
        self.seq += 1
        heapq.heappush(self.ends, (end, self.seq, f, shared, arrival if now + latency <= deadline else -1.0))

    def _expire(self, f: int, now: float) -> None:
        """Waiters past their timeout leave (their callers got a timeout)."""
        queue, timeout = self.waiting[f], self.design.compartments[f].timeout
        while queue and queue[0][0] + timeout <= now:
            queue.popleft()
            self.counts[f][4] += 1

    def arrive(self, f: int, t: float, latency: float) -> None:
        self.counts[f][0] += 1
        c = self.design.compartments[f]
        if self.own[f] < c.reserved:
            self._start(f, t, latency, t, shared=False)
        elif self.borrowed < self.design.shared:
            self._start(f, t, latency, t, shared=True)
        else:
            self._expire(f, t)
            if len(self.waiting[f]) < c.queue:
                self.waiting[f].append((t, latency))
            else:
                self.counts[f][3] += 1

    def end(self, now: float, f: int, shared: bool, arrival: float) -> None:
        if arrival < 0:
            self.counts[f][4] += 1  # cancelled at its caller's timeout
        else:
            self.counts[f][1 if now - arrival <= self.flows[f].slo_latency else 2] += 1
        if shared:
            self.borrowed -= 1
        else:
            self.own[f] -= 1
        for g in range(len(self.flows)):
            self._expire(g, now)
        heads = [(q[0][0], g) for g, q in enumerate(self.waiting) if q and (shared or g == f)]
        if heads:
            _, g = min(heads)
            arrived, latency = self.waiting[g].popleft()
            self._start(g, arrived, latency, now, shared)


def run_day(design: Design, seed: int = PRACTICE_SEED, flows: tuple[Flow, ...] = DAY,
            duration: float = DURATION) -> tuple[FlowResult, ...]:  # fmt: skip
    """Play a seeded day through ``design``; each flow's result."""
    draw = random.Random(seed)
    calls = [
        (t, f, latency) for f, flow in enumerate(flows) for t, latency in _arrivals(flow, draw, duration)
    ]
    return play(design, flows, sorted(calls))


def play(
    design: Design, flows: tuple[Flow, ...], calls: list[tuple[float, int, float]]
) -> tuple[FlowResult, ...]:
    """``calls`` (arrival time, flow index, latency), in time order, through ``design``."""
    check_fits(design)
    service = _Service(design, flows)
    for t, f, latency in calls:
        while service.ends and service.ends[0][0] <= t:
            end, _, g, shared, arrival = heapq.heappop(service.ends)
            service.end(end, g, shared, arrival)
        service.arrive(f, t, latency)
    while service.ends:
        end, _, g, shared, arrival = heapq.heappop(service.ends)
        service.end(end, g, shared, arrival)
    for f in range(len(flows)):
        service.counts[f][4] += len(service.waiting[f])  # still waiting at the end: they time out
    return tuple(
        FlowResult(flow.name, n, within, late, refused, timed_out, flow.slo_target)
        for flow, (n, within, late, refused, timed_out) in zip(flows, service.counts, strict=True)
    )


_practices: Memo[Design, tuple[FlowResult, ...]] = Memo("design practice days", 64)


def practice(design: Design) -> tuple[FlowResult, ...]:
    """``design`` on the practice day (the one notebook 09 shows), kept."""
    return _practices.get(design, lambda: run_day(design, PRACTICE_SEED))
