"""Section 4 of notebook 05: one algorithm through the failure, its main setting, the slowdown's length.

The explore panel's view: the algorithm on both flows (each its own limiter, starting at
the lesson's 24 and 8) on both days, beside the single pool and 24/8 on the same stream
and the same slowdown. The slowdown starts at the lesson's round 1000, holds ``slow``
rounds and lasts ``length`` rounds (the lesson's lasts to the end of the run: 3000);
its end is :func:`bulkhead_lab.adaptive.pool.pool_run`'s ``stop``. Every run is memoised,
so moving a slider back replays nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from bulkhead_lab.adaptive.compare import FIXED, SINGLE_POOL
from bulkhead_lab.adaptive.pool import ALGORITHMS, Algorithm, model_spec, pool_run
from bulkhead_lab.course.adaptive_limits.views.basics import LESSON
from bulkhead_lab.pool.arrivals import EVENT, TRACKING
from bulkhead_lab.pool.params import LESSON_SPLIT, Counters, Params
from bulkhead_lab.validation import check_choice, check_int

BIN = 10  # rounds per point of the in-flight curves (their mean): one point per 0.1 s


@dataclass(frozen=True)
class Knob:
    """An algorithm's main setting, as its slider offers it."""

    algorithm: Algorithm
    setting: str  # model_spec's keyword
    control: str  # the panel's control name
    description: str
    options: tuple[Any, ...]
    unit: str = ""

    @property
    def default(self) -> Any:
        """The course's setting (the source's default, times in rounds)."""
        return model_spec(self.algorithm, EVENT, LESSON).get(self.setting)

    def label(self, value: Any) -> str:
        return f"{self.algorithm}, {self.setting} {value:g}{self.unit}"


def _steps(low: float, high: float, step: float) -> tuple[float, ...]:
    count = round((high - low) / step)
    return tuple(round(low + i * step, 2) for i in range(count + 1))


KNOBS: dict[str, Knob] = {
    "AIMD": Knob(
        "AIMD",
        "timeout",
        "aimd_timeout",
        "AIMD timeout (rounds)",
        (*range(1, 41), 50, 60, 80, 100, 150, 200, 300, 400, 500),
        " rounds",
    ),
    "Vegas": Knob("Vegas", "smoothing", "vegas_smoothing", "Vegas smoothing", _steps(0.05, 1.0, 0.05)),
    "Gradient2": Knob(
        "Gradient2", "tolerance", "gradient2_tolerance", "Gradient2 tolerance", _steps(1.0, 4.0, 0.1)
    ),
    "Envoy": Knob(
        "Envoy",
        "request_count",
        "envoy_request_count",
        "Envoy minRTT request_count",
        (10, 20, 30, 40, 50, 75, 100, 150, 200, 300, 400),
        " samples",
    ),
}
LENGTHS = tuple(range(50, LESSON.rounds - LESSON.start + 1, 50))  # the slowdown's length, in rounds


@dataclass(frozen=True)
class ExploreView:
    """One algorithm with one setting on the slowdown day, and the table against 24/8."""

    algorithm: str
    setting: str
    value: Any
    slow: int
    start: int  # the failure round
    stop: int  # the round the slowdown ends (the run's length if it lasts to the end)
    total: int
    tracking_limit: tuple[int, ...]  # per round, slowdown day
    event_limit: tuple[int, ...]
    bins: tuple[float, ...]  # the middle round of each BIN-round bin
    tracking_inflight: tuple[float, ...]  # mean busy slots per bin
    event_inflight: tuple[float, ...]
    frame: pd.DataFrame  # index layout: single pool (32), 24/8, the algorithm's label

    @property
    def label(self) -> str:
        return KNOBS[self.algorithm].label(self.value)

    @property
    def length(self) -> int:
        return self.stop - self.start

    def dropped(self, layout: str, column: str) -> int:
        """One cell of the table (``layout``: 'single pool (32)', '24/8' or 'adaptive')."""
        name = self.frame.index[2] if layout == "adaptive" else layout
        return int(self.frame.loc[name, column])

    @property
    def event_before(self) -> int:
        """The event limit when the slowdown starts."""
        return self.event_limit[self.start]

    @property
    def event_lowest(self) -> int:
        """The event limit's lowest while the slowdown lasts."""
        return min(self.event_limit[self.start : self.stop])

    def facts(self) -> str:
        """One line: the event limit through the slowdown, and tracking's drops against 24/8."""
        return (
            f"{self.label}: event limit {self.event_before} when the slowdown starts, lowest "
            f"{self.event_lowest} while it lasts ({self.length} rounds of {self.slow}-round calls); "
            f"slowdown day tracking dropped {self.dropped('adaptive', 'slowdown tracking dropped')} "
            f"(24/8: {self.dropped(FIXED, 'slowdown tracking dropped')}, single pool: "
            f"{self.dropped(SINGLE_POOL, 'slowdown tracking dropped')})."
        )


def _means(values: tuple[int, ...], width: int) -> tuple[float, ...]:
    return tuple(
        sum(values[i : i + width]) / len(values[i : i + width]) for i in range(0, len(values), width)
    )


def _row(name: str, healthy: Counters, slowdown: Counters) -> dict[str, Any]:
    return {
        "layout": name,
        "healthy tracking dropped": healthy.tracking_dropped,
        "healthy event dropped": healthy.event_dropped,
        "slowdown tracking dropped": slowdown.tracking_dropped,
        "slowdown event dropped": slowdown.event_dropped,
    }


def explore_view(
    algorithm: str = "AIMD",
    value: Any = None,
    slow: int | None = None,
    length: int | None = None,
    base: Params = LESSON,
) -> ExploreView:
    """``algorithm`` with its main setting at ``value`` (None: the course's default) on both flows;
    the slowdown holds ``slow`` rounds (None: the lesson's 22) for ``length`` rounds (None: to the end)."""
    chosen = check_choice("algorithm", algorithm, tuple(ALGORITHMS))
    knob = KNOBS[chosen]
    value = knob.default if value is None else value
    params = base.with_(split=None, slow=base.slow if slow is None else slow)
    most = params.rounds - params.start
    stop = params.start + (most if length is None else check_int("length", length, 0, most))
    specs = tuple(model_spec(chosen, flow, params, **{knob.setting: value}) for flow in (TRACKING, EVENT))
    healthy_day, slowdown_day = params.with_(mode="healthy"), params.with_(mode="slowdown")
    layouts: tuple[tuple[str, Any, Any], ...] = (
        (SINGLE_POOL, None, None),
        (FIXED, LESSON_SPLIT, params.total - LESSON_SPLIT),
        (knob.label(value), specs[0], specs[1]),
    )
    trace = pool_run(slowdown_day, *specs, trace=True, stop=stop).trace  # the figure's run ...
    assert trace is not None
    rows = []
    for name, tracking, event in layouts:  # ... and the table's (the adaptive row's traced: kept above)
        healthy = pool_run(healthy_day, tracking, event).counters
        slowdown = pool_run(slowdown_day, tracking, event, trace=event is specs[1], stop=stop)
        rows.append(_row(name, healthy, slowdown.counters))
    bins = tuple(i + BIN / 2 for i in range(0, params.rounds, BIN))
    return ExploreView(
        algorithm,
        knob.setting,
        value,
        params.slow,
        params.start,
        stop,
        params.total,
        trace.tracking_limit,
        trace.event_limit,
        bins,
        _means(trace.tracking_inflight, BIN),
        _means(trace.event_inflight, BIN),
        pd.DataFrame(rows).set_index("layout"),
    )
