"""Section 5 of notebook 05: what users of adaptive limits trip over, as slider views.

Each view wraps one function of :mod:`bulkhead_lab.adaptive.pitfalls` and adds what its
figure draws beside it, from the same memoised runs (so the
extra series cost no run): Gradient2's drift under a long slowdown, Vegas from a low
initial limit with and without slow start, and one setting's reaction against its
stability.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate
from typing import Any

import pandas as pd

from bulkhead_lab.adaptive.pitfalls import (
    Drift,
    Ramp,
    Reaction,
    gradient2_drift,
    reaction_and_stability,
    vegas_slow_start,
)
from bulkhead_lab.adaptive.pool import Algorithm, LimitTrace, model_spec, pool_run
from bulkhead_lab.course.adaptive_limits.views.basics import LESSON
from bulkhead_lab.pool.arrivals import EVENT
from bulkhead_lab.pool.params import LESSON_SPLIT, Params
from bulkhead_lab.validation import check_int

DRIFT_LENGTHS = tuple(range(100, LESSON.rounds - LESSON.start + 1, 20))  # the drift slider's lengths
TOLERANCES = tuple(round(1.0 + 0.1 * i, 1) for i in range(31))  # 1.0 .. 4.0
SMOOTHINGS = tuple(round(0.05 * i, 2) for i in range(1, 21))  # 0.05 .. 1.0


# --- Gradient2's drift ----------------------------------------------------------------------------


@dataclass(frozen=True)
class DriftView:
    """Gradient2 on the event flow through a slowdown of ``drift.slowdown_rounds`` rounds.

    ``drift`` is :func:`~bulkhead_lab.adaptive.pitfalls.gradient2_drift`'s (the run cut at
    the slowdown's end); the series here run on to the end of the lesson's 40 s, the calls
    healthy again after the slowdown. ``tracking_since`` is each layout's tracking drops
    summed from the failure round on (0 before it).
    """

    drift: Drift
    tolerance: float
    slow: int
    event_limit: tuple[int, ...]  # per round, the whole run
    baseline: tuple[float, ...]
    tracking_since: dict[str, tuple[int, ...]]  # 'Gradient2', 'single pool (32)', '24/8'
    frame: pd.DataFrame  # one column, 'value'

    @property
    def start(self) -> int:
        return self.drift.start

    @property
    def stop(self) -> int:
        return self.drift.start + self.drift.slowdown_rounds

    @property
    def back_at(self) -> int | None:
        return self.drift.back_at

    @property
    def rounds(self) -> int:
        return len(self.event_limit)

    def value(self, name: str) -> Any:
        return self.frame.loc[name, "value"]


def _since(trace: LimitTrace, start: int) -> tuple[int, ...]:
    return tuple(accumulate(d if t >= start else 0 for t, d in enumerate(trace.tracking_dropped)))


def drift_view(length: int = 3000, tolerance: float = 1.5, base: Params = LESSON) -> DriftView:
    """A slowdown of ``length`` rounds from the failure round; Gradient2's ``tolerance``."""
    check_int("length", length, 1, base.rounds - base.start)
    drift = gradient2_drift(length, base, tolerance=tolerance)
    params = base.with_(split=None, mode="slowdown")
    stop = params.start + length
    spec = model_spec("Gradient2", EVENT, params, tolerance=tolerance)
    runs = {
        "Gradient2": pool_run(params, None, spec, trace=True, stop=stop),  # gradient2_drift's run
        "single pool (32)": pool_run(params, None, None, trace=True, stop=stop),
        "24/8": pool_run(params, LESSON_SPLIT, params.total - LESSON_SPLIT, trace=True, stop=stop),
    }
    traces = {name: run.trace for name, run in runs.items()}
    assert all(trace is not None for trace in traces.values())
    since = {name: _since(trace, params.start) for name, trace in traces.items() if trace is not None}
    g2 = traces["Gradient2"]
    assert g2 is not None
    back = drift.back_at
    end = stop - 1
    facts: list[tuple[str, Any]] = [
        ("slowdown length (rounds)", length),
        ("event limit when the slowdown starts", drift.before),
        ("event limit, lowest", drift.lowest),
        ("lowest at round", drift.lowest_at),
        (f"back at {drift.before} at round", "not while the slowdown lasts" if back is None else back),
        ("rounds the slowdown stayed confined", drift.protected_rounds),
        ("baseline when the slowdown starts (rounds)", round(drift.baseline[params.start], 2)),
        ("baseline when the slowdown ends (rounds)", round(drift.baseline[-1], 2)),
        *((f"tracking dropped in the slowdown, {name}", series[end]) for name, series in since.items()),
    ]
    shown = [(name, value if isinstance(value, str) else f"{value:g}") for name, value in facts]
    frame = pd.DataFrame(shown, columns=["", "value"]).set_index("")
    return DriftView(drift, tolerance, params.slow, g2.event_limit, g2.event_baseline, since, frame)


# --- Vegas from a low start ------------------------------------------------------------------------


@dataclass(frozen=True)
class RampView:
    """Vegas on the tracking flow from ``initial``, healthy day: the four ramps, one of them chosen."""

    initial: int
    slow_start: bool
    windowed: bool
    ramps: tuple[Ramp, ...]
    cycle: float
    frame: pd.DataFrame  # index (updates, slow start)

    def ramp(self, windowed: bool, slow_start: bool) -> Ramp:
        return next(r for r in self.ramps if (r.windowed, r.slow_start) == (windowed, slow_start))

    @property
    def chosen(self) -> Ramp:
        return self.ramp(self.windowed, self.slow_start)

    @property
    def other(self) -> Ramp:
        """The chosen ramp with slow start the other way."""
        return self.ramp(self.windowed, not self.slow_start)


UPDATES = {False: "every call", True: "once a second (WindowedLimit)"}


def _reached(ramp: Ramp, cycle: float) -> tuple[Any, Any]:
    if ramp.reached_at is None:
        return "never", "never"
    return ramp.reached_at, round(ramp.reached_at / cycle, 2)


def ramp_view(
    initial: int = 1, slow_start: bool = True, windowed: bool = False, base: Params = LESSON
) -> RampView:
    """Vegas from ``initial`` on the healthy day, per call and windowed, with and without slow start."""
    ramps = vegas_slow_start(initial, base)
    target = ramps[0].target
    rows = []
    for ramp in ramps:
        at, seconds = _reached(ramp, base.cycle)
        rows.append(
            {
                "updates": UPDATES[ramp.windowed],
                "slow start": "on" if ramp.slow_start else "off",
                f"reaches {target} at round": at,
                f"reaches {target} after (s)": seconds,
                "tracking dropped (healthy day)": ramp.tracking_dropped,
            }
        )
    frame = pd.DataFrame(rows).set_index(["updates", "slow start"])
    return RampView(initial, bool(slow_start), bool(windowed), ramps, base.cycle, frame)


# --- reaction against stability ----------------------------------------------------------------


@dataclass(frozen=True)
class Tuned:
    """One algorithm's setting at a chosen value and at the source's default, on both days."""

    algorithm: str
    setting: str
    value: float
    default: float
    chosen: Reaction
    baseline: Reaction  # the default's
    healthy: tuple[tuple[int, ...], tuple[int, ...]]  # event limit per round: (chosen, default)
    slowdown: tuple[tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True)
class ReactionView:
    """Vegas' smoothing and Gradient2's tolerance: how fast each reacts, how much it moves when calm."""

    vegas: Tuned
    gradient2: Tuned
    start: int
    frame: pd.DataFrame  # index (setting, value)


def _tuned(algorithm: Algorithm, setting: str, value: float, base: Params) -> Tuned:
    params = base.with_(split=None)
    default = model_spec(algorithm, EVENT, params).get(setting)
    chosen, baseline = reaction_and_stability(algorithm, setting, (value, default), base)
    limits: dict[str, list[tuple[int, ...]]] = {"healthy": [], "slowdown": []}
    for v in (value, default):
        spec = model_spec(algorithm, EVENT, params, **{setting: v})  # the runs reaction_and_stability made
        for mode in ("healthy", "slowdown"):
            trace = pool_run(params.with_(mode=mode), None, spec, trace=True).trace
            assert trace is not None
            limits[mode].append(trace.event_limit)
    h, s = limits["healthy"], limits["slowdown"]
    return Tuned(algorithm, setting, value, default, chosen, baseline, (h[0], h[1]), (s[0], s[1]))


def _reaction_row(setting: str, reaction: Reaction, value: str) -> dict[str, Any]:
    return {
        "setting": setting,
        "value": value,
        "event limit at the failure": reaction.before,
        "lowest after": reaction.lowest,
        "rounds to half its fall": "never falls" if reaction.reaction is None else reaction.reaction,
        "healthy day: moves a second": round(reaction.moves_per_second, 2),
        "healthy day: spread (slots)": reaction.spread,
        "slowdown tracking dropped": reaction.tracking_dropped,
        "slowdown event dropped": reaction.event_dropped,
    }


def reaction_view(smoothing: float = 1.0, tolerance: float = 1.5, base: Params = LESSON) -> ReactionView:
    """Vegas at ``smoothing`` and Gradient2 at ``tolerance`` on the event flow, each beside its default."""
    vegas = _tuned("Vegas", "smoothing", smoothing, base)
    gradient2 = _tuned("Gradient2", "tolerance", tolerance, base)
    rows = []
    for tuned in (vegas, gradient2):
        setting = f"{tuned.algorithm} {tuned.setting}"
        rows.append(_reaction_row(setting, tuned.chosen, f"{tuned.value:g} (yours)"))
        rows.append(_reaction_row(setting, tuned.baseline, f"{tuned.default:g} (source's default)"))
    frame = pd.DataFrame(rows).set_index(["setting", "value"])
    return ReactionView(vegas, gradient2, base.start, frame)


def drift_table(
    lengths: tuple[int, ...] = (300, 400, 500, 1000, 3000), tolerance: float = 1.5
) -> pd.DataFrame:
    """The drift over several slowdown lengths: how low the limit goes, whether it is back, what it costs."""
    rows = []
    for length in lengths:
        view = drift_view(length, tolerance)
        end = view.stop - 1
        rows.append(
            {
                "slowdown (rounds)": length,
                "event limit: before": view.drift.before,
                "lowest": view.drift.lowest,
                "back at round": "not back" if view.back_at is None else view.back_at,
                "baseline at the end (rounds)": round(view.drift.baseline[-1], 2),
                **{f"tracking dropped: {name}": series[end] for name, series in view.tracking_since.items()},
            }
        )
    return pd.DataFrame(rows).set_index("slowdown (rounds)")


def reaction_sweep(
    smoothings: tuple[float, ...] = (0.1, 0.2, 0.5, 1.0),
    tolerances: tuple[float, ...] = (1.0, 1.5, 2.0, 3.0, 4.0),
    base: Params = LESSON,
) -> pd.DataFrame:
    """Vegas' smoothing and Gradient2's tolerance over a few values each: reaction against stability."""
    rows = []
    knobs: tuple[tuple[Algorithm, str, tuple[float, ...]], ...] = (
        ("Vegas", "smoothing", smoothings),
        ("Gradient2", "tolerance", tolerances),
    )
    for algorithm, setting, values in knobs:
        for reaction in reaction_and_stability(algorithm, setting, values, base):
            rows.append(_reaction_row(f"{algorithm} {setting}", reaction, f"{reaction.value:g}"))
    return pd.DataFrame(rows).set_index(["setting", "value"])
