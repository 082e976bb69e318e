"""An adaptive limit around lesson 004's Payment, read: one steady run's phases and its timing-free facts.

One run (:func:`.steady.run_adaptive`): a steady load of :data:`RATE` orders a second through
an algorithm's limit around Payment, Payment healthy for :data:`HEALTHY_FOR` s, slow
(:data:`SLOW_LATENCY` s a call) for a while, then healthy for :data:`RECOVER_FOR` s.
:func:`live_view` reads it: the series a figure draws, each phase's numbers, and the facts
that hold on any machine, busy or not (:meth:`LiveView.checked`, what notebook 05's checked
cell prints). Pure: the load's shape (:func:`slowdown_load`) and the reading of a finished run, no I/O.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from bulkhead_lab.live.orders.checks import AdaptiveFacts, adaptive_facts, over_limit
from bulkhead_lab.live.orders.load import OrdersRun
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

    @property
    def limit_fell(self) -> bool:
        return self.facts.limit_lowest < self.facts.limit_before

    @property
    def limit_rose_again(self) -> bool:
        return self.facts.limit_after > self.facts.limit_lowest

    @property
    def refused_only_while_slow(self) -> bool:
        before, _, after = self.facts.refused
        return before == after == 0

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
                f"the limit fell during the slowdown: {self.limit_fell}",
                f"it rose again after its lowest: {self.limit_rose_again}",
                f"Payment's own peak fell with the limit (its last slow second against its first): "
                f"{self.late_peak < self.early_peak}",
                f"the limit refused orders while Payment was slow: {self.facts.refused[1] > 0}",
                f"every refusal came while Payment was slow or its last slow calls held their places: "
                f"{self.refused_only_while_slow}",
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
