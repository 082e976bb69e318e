"""An adaptive limit around lesson 004's Payment, read: one steady run's phases and its timing-free facts.

:func:`adaptive_facts` reads a steady load's limit and Payment's peak before, during and after the
slowdown; :func:`over_limit` lists every moment Payment held more calls than the limit in force let
in (none, when the bulkhead works). One run (:func:`~.load.run_orders` of an ``adaptive`` Order
Service): a steady load of :data:`RATE` orders a second through an algorithm's limit around Payment,
Payment healthy for :data:`HEALTHY_FOR` s, slow (:data:`SLOW_LATENCY` s a call) for a while, then
healthy for :data:`RECOVER_FOR` s.
:func:`live_view` reads it: the series a figure draws, each phase's numbers, and the facts
that hold on any machine, busy or not (:meth:`LiveView.checked`, what notebook 05's checked
cell prints). Pure: the load's shape (:func:`slowdown_load`) and the reading of a finished run, no I/O.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from bulkhead_lab.live.orders.results import OrdersRun
from bulkhead_lab.live.orders.steady import SteadyLoad

RATE = 20.0  # orders a second
HEALTHY_FOR = 1.0  # seconds of a healthy Payment before the slowdown
RECOVER_FOR = 2.0  # ... and after it
SLOW_LATENCY = 1.0  # seconds a slow Payment call takes
PHASES = ("healthy", "slow, to its last slow call", "healthy again")
SLOW_FORS = (1, 2, 3, 4, 5)  # seconds the slowdown may last (notebook 05's live slider)


Steps = tuple[tuple[float, int], ...]


def value_at(steps: Sequence[tuple[float, int]], t: float) -> int:
    """A step series' value at ``t`` (its first value before it starts)."""
    k = bisect_right([s for s, _ in steps], t) - 1
    return steps[max(k, 0)][1] if steps else 0


def span(steps: Sequence[tuple[float, int]], start: float, end: float) -> list[int]:
    """Every value a step series takes in ``[start, end)``, the one in force at ``start`` first."""
    return [value_at(steps, start)] + [n for t, n in steps if start < t < end]


def over_limit(run: OrdersRun) -> list[tuple[float, int, int]]:
    """Every moment Payment held more calls than the bulkhead had let in under the limit in force:
    ``(t, Payment's calls, the bulkhead's running calls or limit)``. Empty when the limit held.

    Two things are checked on the run's one clock: the bulkhead's running count never rose
    above its limit at that moment (a lowered limit admits nothing until enough calls end;
    calls already running go on), and Payment's own count never exceeded the calls the
    bulkhead was running (each Payment call is counted there from before it is sent until
    after its answer arrives).
    """
    points = run.bulkhead_timeline
    if not points:
        raise ValueError("run must have a bulkhead timeline (a limited or adaptive run from run_orders)")
    found = [
        (p.t, p.running, p.limit)
        for k, p in enumerate(points)
        if k and p.running > points[k - 1].running and p.running > p.limit
    ]
    times = [p.t for p in points]
    for t, n in run.timelines.get("payment", []):
        k = bisect_right(times, t) - 1
        if k >= 0 and n > points[k].running:
            found.append((t, n, points[k].running))
    return sorted(found)


@dataclass(frozen=True)
class AdaptiveFacts:
    """A steady load through a slowdown: the limit and Payment's own peak before, during and after it.

    ``during`` runs from the switch to slow until the last slow call could end (the switch
    back plus one slow latency); ``after`` from then to the end.
    """

    algorithm: str
    limit_before: int  # when Payment was switched slow
    limit_lowest: int  # the lowest during the slowdown
    limit_after: int  # at the end of the run
    limit_highest_after: int
    peak_before: int  # Payment's own peak before, during and after
    peak_during: int
    peak_after: int
    refused: tuple[int, int, int]  # refused orders sent before, during and after
    peak_within_limit: bool  # over_limit(run) is empty


def adaptive_facts(run: OrdersRun) -> AdaptiveFacts:
    """Read a steady load's facts (:func:`~.load.run_orders` of a :class:`~.steady.SteadyLoad`)."""
    if run.slow_window is None or not run.bulkhead_timeline or run.settings is None:
        raise ValueError("run must be a steady load with a bulkhead from run_orders (got another)")
    start, stop = run.slow_window
    end = stop + (run.slow_latency or 0.0)
    limits = run.limit_over_time()
    pay = run.timelines.get("payment", [])
    phase = [
        sum(1 for r in run.orders if r.outcome == "refused" and a <= r.start < b)
        for a, b in ((0.0, start), (start, end), (end, float("inf")))
    ]
    return AdaptiveFacts(
        algorithm=getattr(run.settings, "algorithm", run.settings.variant),
        limit_before=value_at(limits, start),
        limit_lowest=min(span(limits, start, end)),
        limit_after=run.bulkhead_timeline[-1].limit,
        limit_highest_after=max(span(limits, end, float("inf"))),
        peak_before=max(span(pay, 0.0, start)),
        peak_during=max(span(pay, start, end)),
        peak_after=max(span(pay, end, float("inf"))),
        refused=(phase[0], phase[1], phase[2]),
        peak_within_limit=not over_limit(run),
    )


@dataclass(frozen=True)
class LiveView:
    """One live run through an adaptive limit, as the figure, the table and the checked cell read it.

    Times are seconds from the first order. ``window`` is when Payment was switched slow and
    back (measured); its last slow call ends ``last_slow`` (one slow latency after the switch back).
    """

    algorithm: str
    slow_for: int
    window: tuple[float, float]
    last_slow: float
    duration: float
    limit: Steps  # the bulkhead's limit at every change
    payment: Steps  # the calls Payment itself was holding, as it counted them
    sent: tuple[float, ...]  # when each order was sent
    refusals: tuple[float, ...]  # ... and each refused one
    orders: int
    served: int
    refused: int
    facts: AdaptiveFacts
    breaches: tuple[tuple[float, int, int], ...]  # over_limit(run): empty when the limit held

    @property
    def phases(self) -> tuple[tuple[str, float, float], ...]:
        start = self.window[0]
        return (
            (PHASES[0], 0.0, start),
            (PHASES[1], start, self.last_slow),
            (PHASES[2], self.last_slow, max(self.duration, self.last_slow)),
        )

    @property
    def early_peak(self) -> int:
        """Payment's peak in the slowdown's first second (calls admitted under the limit before it)."""
        start = self.window[0]
        return max(span(self.payment, start, start + SLOW_LATENCY))

    @property
    def late_peak(self) -> int:
        """Payment's peak in the slowdown's last second, under the limit the slow calls taught it."""
        stop = self.window[1]
        return max(span(self.payment, max(self.window[0], stop - SLOW_LATENCY), stop))

    def phase_rows(self) -> list[dict[str, object]]:
        """Per phase: its seconds, orders sent and refused, the limit at its start, lowest and end,
        and Payment's own peak."""
        rows: list[dict[str, object]] = []
        for name, start, end in self.phases:
            limits = span(self.limit, start, end)
            rows.append(
                {
                    "phase": name,
                    "seconds": f"{start:.1f} - {end:.1f}",
                    "orders sent": sum(start <= t < end for t in self.sent),
                    "orders refused": sum(start <= t < end for t in self.refusals),
                    "limit at its start": limits[0],
                    "lowest limit": min(limits),
                    "limit at its end": value_at(self.limit, end),
                    "Payment's peak": max(span(self.payment, start, end)),
                }
            )
        return rows

    def checked(self) -> str:
        """The run's facts that hold on any machine, busy or not (nbval compares them)."""
        return "\n".join(
            [
                f"{self.algorithm} around Payment: {RATE:g} orders a second; Payment healthy "
                f"{HEALTHY_FOR:g} s, slow ({SLOW_LATENCY:g} s a call) {self.slow_for} s, healthy "
                f"{RECOVER_FOR:g} s",
                f"every order answered, served or refused: {self.served + self.refused == self.orders}",
                f"Payment never had more calls than the bulkhead was running: {not self.breaches}",
                "in the slowdown's first second Payment held as many calls as the healthy limit let in: "
                f"{self.early_peak == self.facts.limit_before}",
                f"the limit fell during the slowdown: {self.facts.limit_lowest < self.facts.limit_before}",
                f"it rose again after its lowest: {self.facts.limit_after > self.facts.limit_lowest}",
                f"Payment's own peak fell with the limit (its last slow second against its first): "
                f"{self.late_peak < self.early_peak}",
                f"the limit refused orders while Payment was slow: {self.facts.refused[1] > 0}",
                f"every refusal came while Payment was slow or its last slow calls held their places: "
                f"{self.facts.refused[0] == self.facts.refused[2] == 0}",
            ]
        )


def slowdown_load(slow_for: int) -> SteadyLoad:
    """The steady load of one run: Payment healthy, slow for ``slow_for`` s (one of :data:`SLOW_FORS`),
    healthy again; a ``slow_for`` not among them is a one-line :class:`ValueError`."""
    if slow_for not in SLOW_FORS:
        raise ValueError(
            f"slow_for must be one of {', '.join(map(str, SLOW_FORS))} seconds (got {slow_for!r})"
        )
    return SteadyLoad(RATE, HEALTHY_FOR, float(slow_for), RECOVER_FOR, slow_latency=SLOW_LATENCY)


def live_view(run: OrdersRun, slow_for: int) -> LiveView:
    """Read a run of `slow_for` seconds of a slow Payment."""
    facts = adaptive_facts(run)
    window = run.slow_window or (0.0, 0.0)
    orders = run.orders
    return LiveView(
        algorithm=facts.algorithm,
        slow_for=slow_for,
        window=window,
        last_slow=window[1] + (run.slow_latency or 0.0),
        duration=run.duration,
        limit=tuple(run.limit_over_time()),
        payment=tuple(run.timelines.get("payment", [])),
        sent=tuple(r.start for r in orders),
        refusals=tuple(r.start for r in orders if r.outcome == "refused"),
        orders=len(orders),
        served=run.served,
        refused=run.refused,
        facts=facts,
        breaches=tuple(over_limit(run)),
    )
