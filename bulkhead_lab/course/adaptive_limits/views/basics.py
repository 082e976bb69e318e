"""Sections 1 to 3 of notebook 05: the sizing question, the algorithms, the table against 24/8.

Every number comes from memoised seeded runs (through
:mod:`bulkhead_lab.pool.lesson000`, :mod:`bulkhead_lab.adaptive.compare` and
:func:`~bulkhead_lab.adaptive.pool.model_spec`); the sources' formulas and defaults are
quoted from the docstrings of :mod:`bulkhead_lab.adaptive.limits` and
:mod:`bulkhead_lab.adaptive.clocked`, where each port says which file and commit it read.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from bulkhead_lab.adaptive.compare import COLUMNS, FIXED, SINGLE_POOL, ComparisonRow, comparison, controls
from bulkhead_lab.adaptive.compare import FLOWS as GOVERNED
from bulkhead_lab.adaptive.pool import ALGORITHMS, Algorithm, model_spec, pool_run
from bulkhead_lab.pool import lesson000
from bulkhead_lab.pool.arrivals import EVENT, TRACKING
from bulkhead_lab.pool.params import LESSON_SPLIT, Params, split_label
from bulkhead_lab.validation import check_choice

LESSON = Params()  # lesson 000's knobs: 32 slots, failure at round 1000, 22-round slowdown
FLOWS = {"both": "each flow its own limiter (starting at 24 and 8)", "event": "the event flow only"}


# --- section 1: how many slots? ----------------------------------------------------------------


def sizing_question(base: Params = LESSON) -> pd.DataFrame:
    """Lesson 000's sizing table: a fixed event compartment too small or too big, on both days."""
    rows = []
    for day in lesson000.sizing_table(base):
        rows.append(
            {
                "pool split": split_label(day.split, base.total),
                "event slots": base.total - day.split if day.split is not None else base.total,
                "healthy tracking dropped": day.healthy.tracking_dropped,
                "healthy event dropped": day.healthy.event_dropped,
                "slowdown tracking dropped": day.slowdown.tracking_dropped,
                "slowdown event dropped": day.slowdown.event_dropped,
            }
        )
    return pd.DataFrame(rows).set_index("pool split")


def _rounds(value: float) -> str:
    return f"{value:g} rounds"


def vocabulary(base: Params = LESSON) -> pd.DataFrame:
    """The words the limiters' sources and their users' issues use, with lesson 000's numbers."""
    per_round_t, per_round_e = base.tracking_rate / base.cycle, base.event_rate / base.cycle
    in_flight_t, in_flight_e = per_round_t * base.hold_tracking, per_round_e * base.hold_event
    ratio = base.slow / base.hold_event
    envoy = 1.25 * base.hold_event / base.slow
    gradient2 = 1.5 * base.hold_event / base.slow
    rows = [
        (
            "L, the limit",
            "how many calls may be in flight at once; one more is refused at once",
            f"the fixed compartments: {LESSON_SPLIT} tracking, {base.total - LESSON_SPLIT} event "
            f"({split_label(LESSON_SPLIT, base.total)}); the pool itself is {base.total}",
        ),
        (
            "in flight",
            "calls started and not finished yet: what L caps",
            f"Little's Law on a normal day: {in_flight_t:.2f} tracking, {in_flight_e:.2f} event",
        ),
        (
            "RTT (one sample)",
            "one finished call's round trip, reported to the limiter when it completes",
            f"the hold: {_rounds(base.hold_tracking)} tracking, {_rounds(base.hold_event)} event; "
            f"{_rounds(base.slow)} for an event while carrier validation is slow",
        ),
        (
            "minRTT, no-load RTT",
            "the round trip with no queue, the reference a delay-based limit compares with "
            "(Vegas: the smallest seen; Envoy: a percentile measured at min_concurrency)",
            f"{_rounds(base.hold_event)} for events",
        ),
        (
            "sampleRTT",
            "Envoy: a percentile of the round trips of one update window (0.1 s)",
            f"{_rounds(base.hold_event)} on a normal day, {_rounds(base.slow)} in the slowdown "
            f"({ratio:.2f}x)",
        ),
        (
            "gradient",
            "the reference over now: below 1 shrinks the limit (Envoy: minRTT x (1 + buffer) / "
            "sampleRTT; Gradient2: tolerance x long average / RTT), clamped",
            f"in the slowdown: Envoy {envoy:.2f}, Gradient2 {gradient2:.2f}; both clamped to 0.5",
        ),
        (
            "drop",
            "a call refused downstream; loss-based AIMD backs off on it",
            "a call the full 32-slot pool refuses after its own limit let it through",
        ),
    ]
    return pd.DataFrame(rows, columns=["term", "what it means", "in lesson 000's model"]).set_index("term")


# --- section 2: the four algorithms -----------------------------------------------------------

_SOURCES: dict[Algorithm, tuple[str, str, str, str]] = {
    "AIMD": (
        "Netflix concurrency-limits AIMDLimit.java (commit 784c960)",
        "loss: a drop, or an RTT over the timeout",
        "drop or RTT > timeout: L x backoff; else if in flight x 2 >= L: L + 1",
        "initial 20, min 20, max 200, backoffRatio 0.9, timeout 5 s",
    ),
    "Vegas": (
        "Netflix concurrency-limits VegasLimit.java (Log10RootIntFunction form)",
        "delay: the queue estimated from the no-load RTT",
        "queue = ceil(L x (1 - noload / RTT)), log = log10 L; queue <= log: L + 6 log (slow start); "
        "< 3 log: L + log; > 6 log: L - log; smoothed",
        "initial 20, maxConcurrency 1000, smoothing 1.0, probeMultiplier 30",
    ),
    "Gradient2": (
        "Netflix concurrency-limits Gradient2Limit.java (commit f2528de)",
        "delay: each RTT against a long average of them",
        "gradient = clamp(tolerance x long / RTT, 0.5, 1); L = L (1 - s) + (L x gradient + queueSize) s",
        "initial 20, min 20, max 200, smoothing 0.2, queueSize 4, longWindow 600, rttTolerance 1.5",
    ),
    "Envoy": (
        "envoy adaptive_concurrency gradient_controller.cc (commit c35f67f), v3 proto",
        "delay: sampleRTT against a minRTT measured at min_concurrency",
        "every 0.1 s: g = clamp(minRTT (1 + buffer) / sampleRTT, 0.5, 2); L = g L + sqrt(g L)",
        "percentile 50, buffer 25 %, request_count 50, jitter 15 %, min_concurrency 3, max 1000; "
        "docs' example: update 0.1 s, minRTT interval 60 s",
    ),
}
_SHOWN = {  # the settings the "here" column names, in the sources' order
    "AIMD": ("initial", "min_limit", "max_limit", "backoff_ratio", "timeout"),
    "Vegas": ("initial", "min_limit", "max_limit", "smoothing", "probe_multiplier"),
    "Gradient2": ("initial", "min_limit", "max_limit", "smoothing", "queue_size", "long_window", "tolerance"),
    "Envoy": (
        "initial",
        "min_limit",
        "max_limit",
        "percentile",
        "buffer",
        "request_count",
        "update_interval",
        "min_rtt_interval",
    ),
}
_IN_ROUNDS = ("timeout", "update_interval", "min_rtt_interval")


def _here(algorithm: Algorithm, base: Params) -> str:
    event, tracking = model_spec(algorithm, EVENT, base), model_spec(algorithm, TRACKING, base)
    parts = []
    for name in _SHOWN[algorithm]:
        value = event.get(name)
        if name == "initial":
            text = f"initial {tracking.get(name)} tracking / {value} event"
        elif name in _IN_ROUNDS:
            text = f"{name} {value:g} rounds ({value / base.cycle:g} s)"
        else:
            text = f"{name} {value:g}"
        parts.append(text)
    return ", ".join(parts)


def algorithms(base: Params = LESSON) -> pd.DataFrame:
    """Each algorithm: the source read, its signal, its update rule, the source's defaults and ours."""
    rows = [
        {
            "algorithm": name,
            "source read": source,
            "signal": signal,
            "rule": rule,
            "source defaults": defaults,
            "here": _here(name, base),
        }
        for name, (source, signal, rule, defaults) in _SOURCES.items()
    ]
    return pd.DataFrame(rows).set_index("algorithm")


# --- section 3: the same traffic, the same 32 slots -----------------------------------------------


def comparison_frame(flows: str = "both", base: Params = LESSON) -> pd.DataFrame:
    """The checked table: single pool (32), 24/8, then each algorithm at its sources' defaults."""
    rows = comparison(base, check_choice("flows", flows, GOVERNED))
    frame = pd.DataFrame([row.as_dict() for row in rows], index=[row.name for row in rows])
    frame.index.name = "layout"
    frame["tracking rescued"] = frame["tracking rescued"].round().astype(int)
    return frame


@dataclass(frozen=True)
class ComparisonView:
    """Both tables (both flows governed, the event flow only) and the rows behind them."""

    both: tuple[ComparisonRow, ...]
    event: tuple[ComparisonRow, ...]

    def frame(self, flows: str = "both") -> pd.DataFrame:
        return comparison_frame(flows)

    def row(self, name: str, flows: str = "both") -> ComparisonRow:
        return next(r for r in getattr(self, flows) if r.name == name)

    def facts(self) -> str:
        """The lines a learner reads under the table: how far the algorithms are from 24/8."""
        fixed = self.row(FIXED).slowdown.tracking_dropped
        single = self.row(SINGLE_POOL).slowdown.tracking_dropped
        adaptive = [r.slowdown.tracking_dropped for rows in (self.both, self.event) for r in rows[2:]]
        best = min((r for rows in (self.both, self.event) for r in rows[2:]), key=_slow_tracking)
        flows = "both flows" if best in self.both else "the event flow only"
        return (
            f"Slowdown day, tracking dropped: single pool {single}, 24/8 {fixed}; the four algorithms at "
            f"their sources' defaults {min(adaptive)}-{max(adaptive)}. The best, {best.name} on {flows}, "
            f"keeps {single - best.slowdown.tracking_dropped} of the single pool's tracking drops off; "
            f"24/8 keeps {single - fixed}."
        )


def _slow_tracking(row: ComparisonRow) -> int:
    return row.slowdown.tracking_dropped


def comparison_view(base: Params = LESSON) -> ComparisonView:
    """The comparison on both layouts of limiters (the figure's and the facts' data)."""
    return ComparisonView(comparison(base, "both"), comparison(base, "event"))


def limits_at_failure(flows: str = "both", base: Params = LESSON) -> pd.DataFrame:
    """Where each limit stands when the slowdown starts, and where the event limit is during it."""
    governed = check_choice("flows", flows, GOVERNED)
    params = base.with_(split=None, mode="slowdown")
    start, fixed = params.start, base.total - LESSON_SPLIT
    rows = [
        {
            "layout": split_label(LESSON_SPLIT, base.total),
            "tracking limit at the failure": LESSON_SPLIT,
            "event limit at the failure": fixed,
            "event limit, lowest in the slowdown": fixed,
            "event limit, mean in the slowdown": float(fixed),
        }
    ]
    for name in ALGORITHMS:
        run = pool_run(params, *controls(name, governed, params), trace=True)
        assert run.trace is not None
        tracking, event = run.trace.tracking_limit, run.trace.event_limit[start:]
        rows.append(
            {
                "layout": name,
                "tracking limit at the failure": tracking[start],
                "event limit at the failure": event[0],
                "event limit, lowest in the slowdown": min(event),
                "event limit, mean in the slowdown": round(sum(event) / len(event), 1),
            }
        )
    return pd.DataFrame(rows).set_index("layout")


def comparison_columns() -> tuple[str, ...]:
    """The table's columns, as :mod:`bulkhead_lab.adaptive.compare` names them."""
    return COLUMNS
