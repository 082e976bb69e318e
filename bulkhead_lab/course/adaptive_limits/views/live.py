"""Section 6 of notebook 05: an adaptive limit around lesson 004's Payment, on real sockets.

One run is :func:`live_run`: lesson 004's Order Service in its ``adaptive`` variant (an
algorithm's limit around Payment, 5 waiting places), a steady load of 20 orders a second,
Payment healthy for 1 s, slow (1 s a call) for ``slow_for`` seconds, then healthy for 2 s
(:func:`bulkhead_lab.live.orders.steady.run_adaptive`, each limiter at the sources' defaults of
:func:`bulkhead_lab.live.orders.adaptive.live_spec`). :func:`live_view` reads the run: the
series the figure draws, a table by phase, and the facts that hold however busy the machine
is (:meth:`LiveView.checked`); every millisecond and count that timing moves stays in the
table and the figure, whose cells are not checked.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from bulkhead_lab.adaptive.pool import ALGORITHMS
from bulkhead_lab.course.ui.runner import run_sync
from bulkhead_lab.live.net.server import Progress
from bulkhead_lab.live.orders.checks import AdaptiveFacts, adaptive_facts, over_limit
from bulkhead_lab.live.orders.load import OrdersRun
from bulkhead_lab.live.orders.steady import SteadyLoad, planned_orders, run_adaptive
from bulkhead_lab.validation import check_choice

RATE = 20.0  # orders a second: lesson 004's Little's Law example
HEALTHY_FOR = 1.0  # seconds of a healthy Payment before the slowdown
RECOVER_FOR = 2.0  # ... and after it
SLOW_LATENCY = 1.0  # seconds a slow Payment call takes
SLOW_FORS = (1, 2, 3, 4, 5)  # seconds the slowdown may last (the panel's slider)
LIVE_ALGORITHM = "Gradient2"  # the Order Service's default, and the checked run's
LIVE_SLOW_FOR = 3
REFUSAL_BIN = 0.25  # seconds per bar of the refusals' plot
PHASES = ("healthy", "slow, to its last slow call", "healthy again")


def live_run(
    algorithm: str = LIVE_ALGORITHM, slow_for: int = LIVE_SLOW_FOR, on_progress: Progress | None = None
) -> OrdersRun:
    """One live steady load through an ``algorithm`` limit: Payment healthy 1 s, slow ``slow_for`` s,
    healthy 2 s (a few seconds; an interrupted cell stops it and its services)."""
    check_choice("algorithm", algorithm, tuple(ALGORITHMS))
    if slow_for not in SLOW_FORS:
        raise ValueError(
            f"slow_for must be one of {', '.join(map(str, SLOW_FORS))} seconds (got {slow_for!r})"
        )
    return run_sync(
        run_adaptive(
            algorithm,
            SteadyLoad(RATE, HEALTHY_FOR, float(slow_for), RECOVER_FOR, slow_latency=SLOW_LATENCY),
            on_progress=on_progress,
        )
    )


def planned(slow_for: int = LIVE_SLOW_FOR) -> int:
    """Orders one run sends (the progress bar's total)."""
    return planned_orders(RATE, HEALTHY_FOR + slow_for + RECOVER_FOR)


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

    @property
    def frame(self) -> pd.DataFrame:
        """Per phase: its seconds, orders sent and refused, the limit at its start, lowest and end,
        and Payment's own peak."""
        rows = []
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
        return pd.DataFrame(rows).set_index("phase")

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


def live_view(run: OrdersRun, slow_for: int = LIVE_SLOW_FOR) -> LiveView:
    """Read a run of :func:`live_run`."""
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
