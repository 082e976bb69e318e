"""Fixed 24/8 against adaptive limits on lesson 000's traffic, both days: the table notebook 05 shows.

Every row replays the same seeded arrival stream (:func:`bulkhead_lab.pool.arrivals.stream`) on
the healthy and the slowdown day. The ``single pool (32)`` and ``24/8`` rows are the
lesson's own runs (:func:`bulkhead_lab.pool.rounds.counters`, so they equal lesson 000's
counters exactly); each algorithm's row is :func:`bulkhead_lab.adaptive.pool.run_pool`
with :func:`~bulkhead_lab.adaptive.pool.model_spec`'s settings, either on both flows
(``flows="both"``: each flow its own limiter, starting at 24 and 8) or on the event flow
only (``flows="event"``: tracking limited only by the pool). "Rescued" is the lesson's
figure: the tracking drops a row saves against the single pool on the slowdown day,
scaled to lesson 000's 10-minute failure (:func:`bulkhead_lab.pool.lesson000.rescued`).

Pure and deterministic (what nbval checks): no I/O, no plotting.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from bulkhead_lab.adaptive.pool import (
    ALGORITHMS,
    Algorithm,
    FlowControl,
    LimiterSpec,
    LimitTrace,
    model_spec,
    pool_run,
)
from bulkhead_lab.pool.arrivals import EVENT, TRACKING
from bulkhead_lab.pool.lesson000 import rescued
from bulkhead_lab.pool.params import LESSON_SPLIT, MODES, Counters, Params, split_label
from bulkhead_lab.pool.rounds import counters
from bulkhead_lab.validation import check_choice

Governed = Literal["both", "event"]  # which flows an adaptive row governs: both, or the event flow only
FLOWS: tuple[Governed, ...] = ("both", "event")
SINGLE_POOL = split_label(None)  # 'single pool (32)'
FIXED = split_label(LESSON_SPLIT)  # '24/8'
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


# --- one algorithm through the failure: the explore panel's runs -------------------------------

MAIN_SETTING: dict[Algorithm, str] = {  # the setting each algorithm's slider moves
    "AIMD": "timeout",
    "Vegas": "smoothing",
    "Gradient2": "tolerance",
    "Envoy": "request_count",
}


@dataclass(frozen=True)
class Explore:
    """``algorithm`` on both flows with its main setting at ``value``, through a slowdown of ``slow``-round
    event calls from ``start`` to ``stop``; beside the single pool and 24/8 on the same stream."""

    algorithm: Algorithm
    value: float
    slow: int
    start: int
    stop: int
    trace: LimitTrace  # the algorithm's run on the slowdown day
    rows: tuple[ComparisonRow, ...]  # single pool, 24/8, the algorithm (``rescued`` unused: 0)

    @property
    def length(self) -> int:
        return self.stop - self.start

    @property
    def event_before(self) -> int:
        return self.trace.event_limit[self.start]

    @property
    def event_lowest(self) -> int:
        return min(self.trace.event_limit[self.start : self.stop])


def explore(
    algorithm: str = "AIMD",
    value: float | None = None,
    slow: int | None = None,
    length: int | None = None,
    base: Params = Params(),
) -> Explore:
    """The explore panel's runs (memoised: moving a slider back replays nothing)."""
    name = check_choice("algorithm", algorithm, tuple(ALGORITHMS))
    setting = MAIN_SETTING[name]
    params = base.with_(split=None, slow=base.slow if slow is None else slow)
    value = model_spec(name, EVENT, params).get(setting) if value is None else value
    most = params.rounds - params.start
    stop = params.start + (most if length is None else length)
    specs = tuple(model_spec(name, flow, params, **{setting: value}) for flow in (TRACKING, EVENT))
    layouts: tuple[tuple[str, FlowControl, FlowControl], ...] = (
        (SINGLE_POOL, None, None),
        (FIXED, LESSON_SPLIT, params.total - LESSON_SPLIT),
        (name, specs[0], specs[1]),
    )
    rows = []
    for label, tracking, event in layouts:
        healthy = pool_run(params.with_(mode="healthy"), tracking, event).counters
        slowdown = pool_run(params.with_(mode="slowdown"), tracking, event, trace=True, stop=stop)
        rows.append(ComparisonRow(label, healthy, slowdown.counters, 0.0))
    trace = pool_run(params.with_(mode="slowdown"), *specs, trace=True, stop=stop).trace
    assert trace is not None
    return Explore(name, value, params.slow, params.start, stop, trace, tuple(rows))


# --- AIMD's timeout against 24/8: exercise 1's runs ------------------------------------------


@dataclass(frozen=True)
class TimeoutResult:
    """AIMD on both flows with one timeout (rounds), and 24/8, on the lesson's two days; and AIMD's event
    limit through the slowdown (``event_limit``: per round from the failure round ``start`` to the end)."""

    timeout: float
    aimd: ComparisonRow
    fixed: ComparisonRow
    start: int = 0
    event_limit: tuple[int, ...] = ()

    @property
    def event_lowest(self) -> int:
        """The event limit's lowest from the failure on."""
        return min(self.event_limit)

    @property
    def event_pinned_from(self) -> int | None:
        """The round from which the event limit stays at its lowest to the end (None: it leaves it)."""
        lowest, limits = self.event_lowest, self.event_limit
        if limits[-1] != lowest:
            return None
        last_other = next((i for i in range(len(limits) - 1, -1, -1) if limits[i] != lowest), -1)
        return self.start + last_other + 1

    @property
    def rounds(self) -> int:
        """The run's last round + 1 (the end of the slowdown day)."""
        return self.start + len(self.event_limit)

    @property
    def keeps_the_healthy_day(self) -> bool:
        """No more healthy-day drops than 24/8 in either flow."""
        a, f = self.aimd.healthy, self.fixed.healthy
        return a.tracking_dropped <= f.tracking_dropped and a.event_dropped <= f.event_dropped

    @property
    def beats_24_8(self) -> bool:
        """Fewer slowdown tracking drops than 24/8, without losing the healthy day."""
        fewer = self.aimd.slowdown.tracking_dropped < self.fixed.slowdown.tracking_dropped
        return fewer and self.keeps_the_healthy_day


def timeout_result(timeout: float, base: Params = Params()) -> TimeoutResult:
    """Both days with AIMD's ``timeout`` on both flows, beside 24/8.

    AIMD reads a round trip only through ``rtt > timeout``, and every round trip here is
    one of the holds; so a timeout behaves as its whole rounds (20.5 as 20), and one
    past the longest hold as that hold + 1 (each such run is memoised once).
    """
    params = base.with_(split=None)
    longest = max(params.hold_tracking, params.hold_event, params.slow)
    wait = min(math.floor(timeout) or timeout, longest + 1)  # rtt > 20.5 is rtt > 20 for whole holds
    specs = [model_spec("AIMD", flow, params, timeout=wait) for flow in (TRACKING, EVENT)]
    healthy = pool_run(params.with_(mode="healthy"), *specs).counters
    slow = pool_run(params.with_(mode="slowdown"), *specs, trace=True)
    assert slow.trace is not None
    fixed = [counters(params.with_(split=LESSON_SPLIT, mode=m)) for m in MODES]
    return TimeoutResult(
        timeout,
        ComparisonRow("AIMD", healthy, slow.counters, 0.0),
        ComparisonRow(FIXED, fixed[0], fixed[1], 0.0),
        params.start,
        tuple(slow.trace.event_limit[params.start :]),
    )


def working_timeouts(base: Params = Params()) -> tuple[int, ...]:
    """The whole-round timeouts with which AIMD beats 24/8 (every other behaves as one of 1..longest+1)."""
    longest = max(base.hold_tracking, base.hold_event, base.slow)
    return tuple(t for t in range(1, longest + 2) if timeout_result(t, base).beats_24_8)


@dataclass(frozen=True)
class LimitsAtFailure:
    """Where a layout's limits stand when the slowdown starts, and where the event limit goes during it."""

    name: str
    tracking: int
    event: int
    event_lowest: int
    event_mean: float


def limits_at_failure(base: Params = Params()) -> tuple[LimitsAtFailure, ...]:
    """24/8's fixed compartments, then each algorithm on both flows, through the slowdown day."""
    params = base.with_(split=None, mode="slowdown")
    fixed = base.total - LESSON_SPLIT
    rows = [LimitsAtFailure(FIXED, LESSON_SPLIT, fixed, fixed, float(fixed))]
    for name in ALGORITHMS:
        trace = pool_run(params, *controls(name, "both", params), trace=True).trace
        assert trace is not None
        event = trace.event_limit[params.start :]
        rows.append(
            LimitsAtFailure(
                name, trace.tracking_limit[params.start], event[0], min(event), sum(event) / len(event)
            )
        )
    return tuple(rows)


# --- Envoy's first minRTT measurement: its healthy day's cost --------------------------------


@dataclass(frozen=True)
class FirstMeasurement:
    """Envoy on both flows on the healthy day: the rounds its tracking limit stays pinned at
    ``min_concurrency`` while it measures its first minRTT, and tracking's drops in them and in all."""

    min_concurrency: int
    request_count: int
    rounds: int  # rounds 0 .. rounds - 1 at min_concurrency
    dropped_while_pinned: int
    dropped: int


def envoy_first_measurement(base: Params = Params()) -> FirstMeasurement:
    """Where Envoy's healthy-day tracking drops come from: the first minRTT window pins its limit."""
    params = base.with_(split=None, mode="healthy")
    tracking, event = controls("Envoy", "both", params)
    assert isinstance(tracking, LimiterSpec)
    run = pool_run(params, tracking, event, trace=True)
    assert run.trace is not None
    floor, count = tracking.get("min_limit"), tracking.get("request_count")
    limits = run.trace.tracking_limit
    pinned = next((t for t, limit in enumerate(limits) if limit != floor), len(limits))
    drops = run.trace.tracking_dropped
    return FirstMeasurement(floor, count, pinned, sum(drops[:pinned]), run.counters.tracking_dropped)
