"""The tables and fact lines notebook 05 shows, read from the memoised seeded runs of
:mod:`bulkhead_lab.adaptive`; the rules quoted are the docstrings' of :mod:`bulkhead_lab.adaptive.limits`
and :mod:`bulkhead_lab.adaptive.clocked`, where each port names the file and commit it read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from bulkhead_lab.adaptive import compare
from bulkhead_lab.adaptive.clocked import EnvoyGradient
from bulkhead_lab.adaptive.compare import (
    FIXED,
    MAIN_SETTING,
    SINGLE_POOL,
    ComparisonRow,
    Explore,
    comparison,
    timeout_result,
    working_timeouts,
)
from bulkhead_lab.adaptive.limits import Gradient2
from bulkhead_lab.adaptive.pitfalls import DriftRuns, drift_runs, reaction_and_stability, vegas_slow_start
from bulkhead_lab.adaptive.pool import ALGORITHMS, Algorithm, model_spec
from bulkhead_lab.course.ui.claim_table import WideFrame
from bulkhead_lab.live.orders.adaptive import AdaptiveSettings
from bulkhead_lab.live.orders.load import run_orders
from bulkhead_lab.live.orders.reading.adaptive import RATE, SLOW_LATENCY, LiveView, live_view, slowdown_load
from bulkhead_lab.live.orders.reading.adaptive import SLOW_FORS as SLOW_FORS  # the live panel's slider
from bulkhead_lab.live.orders.settings import FAST_LATENCY
from bulkhead_lab.live.sync import run_sync
from bulkhead_lab.pool import lesson000
from bulkhead_lab.pool.arrivals import EVENT
from bulkhead_lab.pool.params import Params, split_label
from bulkhead_lab.sizing import in_flight
from bulkhead_lab.validation import check_choice

LESSON = Params()  # lesson 000's knobs: 32 slots, failure at round 1000, 22-round slowdown


def _drops(rows: Sequence[ComparisonRow], index: str = "layout") -> pd.DataFrame:
    frame = pd.DataFrame([r.as_dict() for r in rows], index=pd.Index([r.name for r in rows], name=index))
    return frame.drop(columns="tracking rescued")


def sizing_question() -> pd.DataFrame:
    """Lesson 000's sizing table: a fixed event compartment too small or too big, on both days."""
    rows = [
        ComparisonRow(split_label(d.split, LESSON.total), d.healthy, d.slowdown, 0.0)
        for d in lesson000.sizing_table(LESSON)
    ]
    return _drops(rows, "pool split")


_RULES: dict[Algorithm, tuple[str, str]] = {  # the signal, the rule (the docstrings' formulas, in short)
    "AIMD": (
        "loss: a drop, or an RTT over the timeout",
        "drop or RTT > timeout: L x backoff; else if in flight x 2 >= L: L + 1",
    ),
    "Vegas": (
        "delay: the queue estimated from the no-load RTT",
        "queue = ceil(L (1 - noload / RTT)), log = log10 L; queue <= log: L + 6 log (slow start); "
        "< 3 log: L + log; > 6 log: L - log; smoothed",
    ),
    "Gradient2": (
        "delay: each RTT against a long average of them",
        "gradient = clamp(tolerance x long / RTT, 0.5, 1); L = L (1 - s) + (L x gradient + queueSize) s",
    ),
    "Envoy": (
        "delay: sampleRTT against a minRTT measured at min_concurrency",
        "every 0.1 s: g = clamp(minRTT (1 + buffer) / sampleRTT, 0.5, 2); L = g L + sqrt(g L)",
    ),
}


def algorithms() -> WideFrame:
    """Each algorithm's signal and rule, and the settings used here on the event flow (times in rounds)."""
    rows = []
    for name, (signal, rule) in _RULES.items():
        here = ", ".join(f"{k} {v:g}" for k, v in model_spec(name, EVENT, LESSON).settings if k != "seed")
        rows.append({"algorithm": name, "signal": signal, "rule": rule, "settings here (event flow)": here})
    return WideFrame(WideFrame(rows).set_index("algorithm"))


def comparison_frame(flows: str = "both") -> pd.DataFrame:
    """The checked table: single pool (32), 24/8, then each algorithm at its sources' defaults."""
    rows = comparison(LESSON, flows)  # type: ignore[arg-type]  # checked there, one line naming 'flows'
    frame = _drops(rows)
    frame["tracking rescued"] = [round(r.rescued) for r in rows]
    return frame


def comparison_facts() -> str:
    """How far the algorithms at their defaults are from 24/8 on the slowdown day, on both layouts."""
    both, event = comparison(LESSON, "both"), comparison(LESSON, "event")
    single, fixed = (both[i].slowdown.tracking_dropped for i in (0, 1))
    best = min(both[2:] + event[2:], key=lambda r: r.slowdown.tracking_dropped)
    lost = sorted(r.slowdown.tracking_dropped for r in both[2:] + event[2:])
    on = "both flows" if best in both else "the event flow only"
    return (
        f"Slowdown day, tracking dropped: single pool {single}, 24/8 {fixed}; "
        f"the four algorithms at their sources' defaults {lost[0]}-{lost[-1]}.\n"
        f"The best, {best.name} on {on}, keeps {single - best.slowdown.tracking_dropped} of the single "
        f"pool's tracking drops off; 24/8 keeps {single - fixed}."
    )


def healthy_facts() -> str:
    """The healthy day's drops (tracking, event) by layout, and where Envoy's extra tracking drops are."""
    both, event = comparison(LESSON, "both"), comparison(LESSON, "event")
    pair = lambda c: f"{c.tracking_dropped} and {c.event_dropped}"  # noqa: E731
    same: dict[str, list[str]] = {}
    for b, e in zip(both[2:], event[2:], strict=True):
        said = f"{pair(b.healthy)} on both flows, {pair(e.healthy)} on the event flow only"
        same.setdefault(said, []).append(b.name)
    named = lambda n: n[0] if len(n) == 1 else f"{', '.join(n[:-1])} and {n[-1]}"  # noqa: E731
    groups = "; ".join(f"{named(names)} {said}" for said, names in same.items())
    first = compare.envoy_first_measurement(LESSON)
    return (
        f"Healthy day, tracking and event dropped: single pool {pair(both[0].healthy)}, 24/8 "
        f"{pair(both[1].healthy)}; {groups}.\n"
        f"Envoy's tracking limit stays at min_concurrency ({first.min_concurrency}) for the first "
        f"{first.rounds} rounds, until {first.request_count} calls have measured its minRTT: tracking drops "
        f"{first.dropped_while_pinned} of its {first.dropped} there."
    )


def tuned_aimd_facts() -> str:
    """Exercise 1's answers (AIMD on both flows with a timeout that beats 24/8) and what they cost."""
    good = working_timeouts(LESSON)
    runs = [timeout_result(t, LESSON) for t in good]
    one = runs[0]
    same = all(r.aimd == one.aimd and r.event_limit == one.event_limit for r in runs)
    a, f = one.aimd.slowdown, one.fixed.slowdown
    pinned = one.event_pinned_from
    where = (
        f"stays there from round {pinned} to the end of the run ({one.rounds - pinned} rounds)"
        if pinned is not None
        else "leaves it again"
    )
    return (
        f"timeouts that beat 24/8: {good[0]} to {good[-1]} rounds "
        f"({'each the same run' if same else 'runs differ'})\n"
        f"slowdown day, tracking dropped: AIMD {a.tracking_dropped}, 24/8 {f.tracking_dropped}\n"
        f"slowdown day, event dropped: AIMD {a.event_dropped}, 24/8 {f.event_dropped}; "
        f"events served: AIMD {a.event_responses}, 24/8 {f.event_responses}\n"
        f"AIMD's event limit: {one.event_limit[0]} at the failure, falls to {one.event_lowest} and {where}"
    )


def limits_at_failure() -> pd.DataFrame:
    """Where each limit stands when the slowdown starts, and where the event limit goes during it."""
    rows = {
        r.name: [r.tracking, r.event, r.event_lowest, round(r.event_mean, 1)]
        for r in compare.limits_at_failure(LESSON)
    }
    at = "limit at the failure"
    columns = [f"tracking {at}", f"event {at}", "event limit, lowest", "event limit, mean"]
    return pd.DataFrame.from_dict(rows, orient="index", columns=columns).rename_axis("layout")


def in_flight_facts() -> str:
    """Little's Law (in flight = arrival rate x hold) on lesson 000's normal day, and section 6's Payment."""
    event, tracking = LESSON.event_rate / LESSON.cycle, LESSON.tracking_rate / LESSON.cycle
    return (
        f"event flow: {event:.4f} arrivals a round x {LESSON.hold_event} rounds = "
        f"{in_flight(event, LESSON.hold_event):.2f} calls in flight "
        f"(x {LESSON.slow} rounds in the slowdown: {in_flight(event, LESSON.slow):.2f})\n"
        f"tracking flow: {tracking:.4f} a round x {LESSON.hold_tracking} rounds = "
        f"{in_flight(tracking, LESSON.hold_tracking):.2f}\n"
        f"section 6's Payment: {RATE:g} orders a second x {FAST_LATENCY:g} s = "
        f"{in_flight(RATE, FAST_LATENCY):g} calls in flight (x {SLOW_LATENCY:g} s while slow: "
        f"{in_flight(RATE, SLOW_LATENCY):g})"
    )


GRADIENTS = (0.5, 0.75, 0.9, 1.0)  # from Gradient2's and Envoy's floor to the top of Gradient2's range


def _settles(step: Any, start: float, updates: int = 20_000) -> float:
    """Where repeated ``step`` leaves ``start`` (after ``updates``, or once it stops moving)."""
    value = start
    for _ in range(updates):
        new = step(value)
        if abs(new - value) < 1e-9:
            break
        value = new
    return value


def gradient_fixed_points() -> pd.DataFrame:
    """Gradient2's and Envoy's updates at a fixed gradient: the limit above which they shrink, and where
    the ports' own update (``next_estimate``, ``next_limit``) settles from their event limits at the
    failure, at the sources' defaults with the course's floor of 1 for Gradient2."""
    at_failure = {r.name: r.event for r in compare.limits_at_failure(LESSON)}
    g2 = Gradient2(initial=at_failure["Gradient2"], min_limit=1)
    envoy = EnvoyGradient(initial=at_failure["Envoy"])
    rows = {}
    for g in GRADIENTS:
        grows = g2.smoothing * g2.queue_size
        rows[f"{g:g}"] = {
            "Gradient2: shrinks while L above": (
                f"{g2.fixed_point(g):g}" if g < 1 else f"never (+{grows:g} an update)"
            ),
            f"Gradient2 from {g2.limit}: settles at": round(
                _settles(lambda e, g=g: g2.next_estimate(e, g), g2.estimate), 1
            ),
            "Envoy: shrinks while L above": f"{envoy.fixed_point(g):g}" if g < 1 else "never",
            f"Envoy from {at_failure['Envoy']}: settles at": int(
                _settles(lambda n, g=g: envoy.next_limit(int(n), g), at_failure["Envoy"])
            ),
        }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("gradient")


def gradient_floor() -> str:
    """Where Envoy's and Gradient2's gradients stand in the lesson's slowdown, and the buffer that leaves
    Envoy's at its 0.5 floor."""
    ratio = LESSON.hold_event / LESSON.slow
    return (
        f"a slow event call against a normal one: {LESSON.slow} / {LESSON.hold_event} = {1 / ratio:.2f}x\n"
        f"Gradient2: 1.5 x {LESSON.hold_event} / {LESSON.slow} = {1.5 * ratio:.3f}, clamped to 0.5\n"
        f"Envoy: {LESSON.hold_event} x (1 + buffer) / {LESSON.slow} = {1.25 * ratio:.3f} at buffer 0.25, "
        f"{2 * ratio:.3f} at buffer 1; at its 0.5 floor for a buffer up to {0.5 / ratio - 1:.2f}"
    )


# --- section 4 and 5: the panels' tables ----------------------------------------------------------


def explore_frame(run: Explore) -> pd.DataFrame:
    """The explore panel's table: the single pool, 24/8 and the algorithm on both days."""
    frame = _drops(run.rows)
    return frame.rename(index={run.algorithm: explore_label(run)})


def explore_label(run: Explore) -> str:
    setting = MAIN_SETTING[run.algorithm]
    unit = {"timeout": " rounds", "request_count": " samples"}.get(setting, "")
    return f"{run.algorithm}, {setting} {run.value:g}{unit}"


def explore_facts(run: Explore) -> str:
    """One line: the event limit through the slowdown, and tracking's drops against 24/8."""
    lost = {r.name: r.slowdown.tracking_dropped for r in run.rows}
    return (
        f"{explore_label(run)}: event limit {run.event_before} when the slowdown starts, "
        f"lowest {run.event_lowest} while it lasts ({run.length} rounds of {run.slow}-round calls); slowdown "
        f"day tracking dropped {lost[run.algorithm]} (24/8: {lost[FIXED]}, single pool: {lost[SINGLE_POOL]})."
    )


def drift_frame(runs: DriftRuns) -> pd.DataFrame:
    """The drift panel's table: the limit's fall and return, the baseline, what tracking paid."""
    d, end = runs.drift, runs.stop - 1
    facts: list[tuple[str, Any]] = [
        ("slowdown length (rounds)", d.slowdown_rounds),
        ("event limit when the slowdown starts", d.before),
        ("event limit, lowest", d.lowest),
        (f"back at {d.before} at round", "not while the slowdown lasts" if d.back_at is None else d.back_at),
        ("baseline when the slowdown starts (rounds)", round(d.baseline[d.start], 2)),
        ("baseline when the slowdown ends (rounds)", round(d.baseline[-1], 2)),
        *((f"tracking dropped in the slowdown, {name}", s[end]) for name, s in runs.tracking_since.items()),
    ]
    shown = {name: value if isinstance(value, str) else f"{value:g}" for name, value in facts}
    return pd.DataFrame.from_dict(shown, orient="index", columns=["value"])


def drift_table() -> pd.DataFrame:
    """The drift over several slowdown lengths: how low the limit goes, whether it is back, what it costs."""
    rows = {}
    for length in (300, 400, 500, 1000, 3000):
        runs = drift_runs(length, 1.5)
        d = runs.drift
        rows[length] = {
            "event limit: before": d.before,
            "lowest": d.lowest,
            "back at round": "not back" if d.back_at is None else d.back_at,
            **{f"tracking dropped: {n}": s[runs.stop - 1] for n, s in runs.tracking_since.items()},
        }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("slowdown (rounds)")


UPDATES = {False: "every call", True: "once a second (WindowedLimit)"}


def ramp_frame(initial: int = 1) -> pd.DataFrame:
    """Vegas from ``initial`` on the healthy day: per call and windowed, with and without slow start."""
    rows = {}
    for ramp in vegas_slow_start(initial, LESSON):
        at = ramp.reached_at
        rows[(UPDATES[ramp.windowed], "on" if ramp.slow_start else "off")] = {
            f"reaches {ramp.target} at round": "never" if at is None else at,
            f"reaches {ramp.target} after (s)": "never" if at is None else round(at / LESSON.cycle, 2),
            "tracking dropped (healthy day)": ramp.tracking_dropped,
        }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis(["updates", "slow start"])


def reaction_sweep() -> pd.DataFrame:
    """Vegas' smoothing and Gradient2's tolerance over a few values each: reaction against stability."""
    rows = {}
    for algorithm, setting, values in (
        ("Vegas", "smoothing", (0.1, 0.2, 0.5, 1.0)),
        ("Gradient2", "tolerance", (1.0, 1.5, 2.0, 3.0, 4.0)),
    ):
        for r in reaction_and_stability(algorithm, setting, values, LESSON):  # type: ignore[arg-type]
            rows[(f"{algorithm} {setting}", f"{r.value:g}")] = {
                "event limit at the failure": r.before,
                "lowest after": r.lowest,
                "rounds to half its fall": "never falls" if r.reaction is None else r.reaction,
                "healthy day: spread (slots)": r.spread,
                "slowdown tracking dropped": r.tracking_dropped,
            }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis(["setting", "value"])


# --- section 6: live ---------------------------------------------------------------------------

LIVE_ALGORITHM, LIVE_SLOW_FOR = "Gradient2", 3  # the Order Service's default, and the checked run's


def live_run(
    algorithm: str = LIVE_ALGORITHM, slow_for: int = LIVE_SLOW_FOR, on_progress: Any = None
) -> LiveView:
    """One live steady load through an ``algorithm`` limit around Payment, read (a few seconds; an
    interrupted cell stops it and its services)."""
    check_choice("algorithm", algorithm, tuple(ALGORITHMS))
    load = slowdown_load(slow_for)
    return live_view(
        run_sync(run_orders(AdaptiveSettings(algorithm=algorithm), load, on_progress=on_progress)), slow_for
    )


def planned(slow_for: int = LIVE_SLOW_FOR) -> int:
    """Orders one run sends (the progress bar's total)."""
    return slowdown_load(slow_for).orders


def live_table(view: LiveView) -> pd.DataFrame:
    """Per phase: its seconds, orders sent and refused, the limit, and Payment's own peak."""
    return pd.DataFrame(view.phase_rows()).set_index("phase")
