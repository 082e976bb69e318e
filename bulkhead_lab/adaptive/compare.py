"""Fixed 24/8 against adaptive limits on lesson 000's traffic, both days: the table notebook 05 shows.

Every row replays the same seeded arrival stream (:func:`bulkhead_lab.pool.arrivals.stream`) on
the healthy and the slowdown day. The ``single pool (32)`` and ``24/8`` rows are the
lesson's own runs (:func:`bulkhead_lab.pool.rounds.counters`, so they equal lesson 000's
counters exactly); each algorithm's row is :func:`bulkhead_lab.adaptive.pool.run_pool`
with :func:`~bulkhead_lab.adaptive.pool.model_spec`'s settings, either on both flows
(``flows="both"``: each flow its own limiter, starting at 24 and 8) or on the event flow
only (``flows="event"``: tracking limited only by the pool). "Rescued" is the lesson's
figure: the tracking drops a row saves against the single pool on the slowdown day,
scaled to AY3's 10-minute failure (:func:`bulkhead_lab.pool.lesson000.rescued`).

Pure and deterministic (what nbval checks): no I/O, no plotting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bulkhead_lab.adaptive.pool import ALGORITHMS, Algorithm, FlowControl, LimitTrace, model_spec, pool_run
from bulkhead_lab.pool.arrivals import EVENT, TRACKING
from bulkhead_lab.pool.lesson000 import rescued
from bulkhead_lab.pool.params import LESSON_SPLIT, MODES, Counters, Params, split_label
from bulkhead_lab.pool.rounds import counters
from bulkhead_lab.validation import check_choice, check_int

Governed = Literal["both", "event"]  # which flows an adaptive row governs: both, or the event flow only
FLOWS: tuple[Governed, ...] = ("both", "event")
SINGLE_POOL = split_label(None)  # 'single pool (32)'
FIXED = split_label(LESSON_SPLIT)  # '24/8'
ROW_NAMES = (SINGLE_POOL, FIXED, *ALGORITHMS)
COLUMNS = (
    "healthy tracking dropped",
    "healthy event dropped",
    "slowdown tracking dropped",
    "slowdown event dropped",
    "tracking rescued",
)


@dataclass(frozen=True)
class ComparisonRow:
    """One row (a split, or an algorithm governing the flows) on both days, and the tracking
    requests it rescues against the single pool."""

    name: str
    healthy: Counters
    slowdown: Counters
    rescued: float

    def as_dict(self) -> dict[str, int | float]:
        """The table's columns (:data:`COLUMNS`) for this row."""
        h, s = self.healthy, self.slowdown
        values = (h.tracking_dropped, h.event_dropped, s.tracking_dropped, s.event_dropped, self.rescued)
        return dict(zip(COLUMNS, values, strict=True))


def controls(
    algorithm: Algorithm, flows: Governed = "both", base: Params = Params()
) -> tuple[FlowControl, FlowControl]:
    """How ``algorithm``'s row governs (tracking, event): both adaptive, or the event flow only."""
    check_choice("flows", flows, FLOWS)
    event = model_spec(algorithm, EVENT, base)
    return (model_spec(algorithm, TRACKING, base) if flows == "both" else None), event


def adaptive_days(base: Params, tracking: FlowControl, event: FlowControl) -> tuple[Counters, Counters]:
    """(healthy, slowdown) counters of the flows governed so on ``base``'s stream."""
    healthy, slowdown = (pool_run(base.with_(mode=mode), tracking, event).counters for mode in MODES)
    return healthy, slowdown


def comparison(base: Params = Params(), flows: Governed = "both") -> tuple[ComparisonRow, ...]:
    """The table: single pool (32), 24/8, then AIMD, Vegas, Gradient2, Envoy, on the same stream."""
    check_choice("flows", flows, FLOWS)
    base = base.with_(split=None)
    single = [counters(base.with_(mode=m)) for m in MODES]
    fixed = [counters(base.with_(split=LESSON_SPLIT, mode=m)) for m in MODES]
    lost = single[1].tracking_dropped
    rows = [
        ComparisonRow(SINGLE_POOL, single[0], single[1], 0.0),
        ComparisonRow(FIXED, fixed[0], fixed[1], rescued(lost, fixed[1].tracking_dropped, base)),
    ]
    for name in ALGORITHMS:
        healthy, slowdown = adaptive_days(base, *controls(name, flows, base))
        rows.append(ComparisonRow(name, healthy, slowdown, rescued(lost, slowdown.tracking_dropped, base)))
    return tuple(rows)


@dataclass(frozen=True)
class FailureWindow:
    """A trace's rounds ``first`` .. ``first + len - 1`` around the failure round ``start``."""

    first: int
    start: int
    tracking_limit: tuple[int, ...]
    event_limit: tuple[int, ...]
    tracking_inflight: tuple[int, ...]
    event_inflight: tuple[int, ...]
    event_baseline: tuple[float, ...]
    tracking_dropped: tuple[int, ...]

    @property
    def rounds(self) -> range:
        return range(self.first, self.first + len(self.event_limit))


def window(trace: LimitTrace, start: int, before: int, after: int) -> FailureWindow:
    """Cut ``trace`` to ``before`` rounds before ``start`` and ``after`` rounds from it on."""
    first = max(0, start - check_int("before", before, 0))
    last = min(len(trace.event_limit), start + check_int("after", after, 0))
    cut = slice(first, last)
    return FailureWindow(
        first,
        start,
        trace.tracking_limit[cut],
        trace.event_limit[cut],
        trace.tracking_inflight[cut],
        trace.event_inflight[cut],
        trace.event_baseline[cut],
        trace.tracking_dropped[cut],
    )


def around_failure(
    algorithm: Algorithm,
    flows: Governed = "both",
    base: Params = Params(),
    before: int = 200,
    after: int = 1000,
) -> FailureWindow:
    """Each flow's limit and in-flight count around the failure on the slowdown day (the figure's data)."""
    params = base.with_(split=None, mode="slowdown")
    run = pool_run(params, *controls(algorithm, flows, params), trace=True)
    assert run.trace is not None
    return window(run.trace, params.start, before, after)
