"""Notebook 05's slider panels, each a :class:`~bulkhead_lab.course.ui.panel.SliderView` over a run of
:mod:`bulkhead_lab.adaptive` keeping one figure; the live panel's every move is one live run of a few
seconds under a progress bar (``bl-progress-live``), the figure shown meanwhile the previous run's.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from bulkhead_lab.adaptive.compare import MAIN_SETTING, explore
from bulkhead_lab.adaptive.pitfalls import drift_runs, vegas_slow_start
from bulkhead_lab.adaptive.pool import ALGORITHMS, model_spec
from bulkhead_lab.course.adaptive_limits import figures, views
from bulkhead_lab.course.ui import controls
from bulkhead_lab.course.ui.panel import LiveProgress, SliderView, choice, show_only, slider, toggle
from bulkhead_lab.pool.arrivals import EVENT

LESSON = views.LESSON
TOLERANCES = tuple(round(1.0 + 0.1 * i, 1) for i in range(31))  # 1.0 .. 4.0
OPTIONS: dict[str, tuple[Any, ...]] = {  # each algorithm's main setting, as its slider offers it
    "AIMD": (*range(1, 41), 50, 60, 80, 100, 150, 200, 300, 400, 500),
    "Vegas": tuple(round(0.05 * i, 2) for i in range(1, 21)),
    "Gradient2": TOLERANCES,
    "Envoy": (10, 20, 30, 40, 50, 75, 100, 150, 200, 300, 400),
}
LENGTHS = tuple(range(50, LESSON.rounds - LESSON.start + 1, 50))  # the slowdown's length, in rounds
DRIFT_LENGTHS = tuple(range(100, LESSON.rounds - LESSON.start + 1, 20))


def _knob(algorithm: str) -> w.SelectionSlider:
    """The slider of one algorithm's main setting (classed ``bl-slider-<algorithm>-<setting>``)."""
    setting = MAIN_SETTING[algorithm]  # type: ignore[index]
    default = model_spec(algorithm, EVENT, LESSON).get(setting)  # type: ignore[arg-type]
    unit = {"timeout": " (rounds)", "request_count": " (samples)"}.get(setting, "")
    name = f"{algorithm.lower()}-{setting.replace('_', '-')}"
    return choice(name, f"{algorithm} {setting}{unit}", [(f"{v:g}", v) for v in OPTIONS[algorithm]], default)


def explore_panel(algorithm: str = "AIMD", slow: int = 22, length: int = 3000) -> SliderView:
    """One algorithm on both flows through the slowdown day, beside one pool and 24/8."""
    knobs = {f"{name.lower()}_{MAIN_SETTING[name]}": _knob(name) for name in ALGORITHMS}
    sliders = {
        "algorithm": choice("algorithm", "algorithm", list(ALGORITHMS), algorithm),
        "slow": controls.hold_sliders(slow=slow)["slow"],
        "length": choice("slowdown-length", "slowdown length (rounds)", list(LENGTHS), length),
        **knobs,
    }
    show_only(sliders, "algorithm", {name: (f"{name.lower()}_{MAIN_SETTING[name]}",) for name in ALGORITHMS})
    figure = figures.ExploreFigure()  # kept, and redrawn in place on every move

    def render(algorithm: str, slow: int, length: int, **values: Any) -> Any:
        run = explore(algorithm, values[f"{algorithm.lower()}_{MAIN_SETTING[algorithm]}"], slow, length)  # type: ignore[index]
        frame = views.explore_frame(run)
        return run, [figure.update(run, frame, views.explore_label(run))], [frame]

    return SliderView("explore", sliders, render)


def drift_panel(length: int = 3000, tolerance: float = 1.5) -> SliderView:
    """Gradient2 on the event flow through a slowdown of a chosen length, at a chosen tolerance."""
    tolerances = [(f"{t:g}", t) for t in TOLERANCES]
    sliders = {
        "length": choice("drift-length", "slowdown length (rounds)", list(DRIFT_LENGTHS), length),
        "tolerance": choice("drift-tolerance", "Gradient2 tolerance", tolerances, tolerance),
    }
    figure = figures.DriftFigure()

    def render(length: int, tolerance: float) -> Any:
        runs = drift_runs(length, tolerance)
        return runs, [figure.update(runs)], [views.drift_frame(runs)]

    return SliderView("drift", sliders, render)


def slow_start_panel(initial: int = 1, slow_start: bool = True, windowed: bool = False) -> SliderView:
    """Vegas on the tracking flow from a low initial limit: slow start on or off, updates per call or
    once a second (Netflix's WindowedLimit)."""
    sliders = {
        "initial": slider(w.IntSlider, "vegas-initial", "Vegas initial limit", min=1, max=24, value=initial),
        "slow_start": toggle("slow-start", "slow start", [("on", True), ("off", False)], slow_start),
        "windowed": toggle("windowed", "limit updated", [(v, k) for k, v in views.UPDATES.items()], windowed),
    }
    figure = figures.RampFigure()

    def render(initial: int, slow_start: bool, windowed: bool) -> Any:
        ramps = vegas_slow_start(initial, LESSON)
        return ramps, [figure.update(ramps, initial, slow_start, windowed)], [views.ramp_frame(initial)]

    return SliderView("slow-start", sliders, render)


def live_panel(algorithm: str = views.LIVE_ALGORITHM, slow_for: int = views.LIVE_SLOW_FOR) -> SliderView:
    """The algorithm and how long Payment stays slow; each move runs one live stream (a few seconds)
    and draws its limit and Payment's calls in flight, and the table by phase.

    ``panel.set(...)`` moves both controls, runs once and returns the :class:`~.views.LiveView`.
    """
    algorithm_buttons = toggle("live-algorithm", "algorithm", ALGORITHMS, algorithm)
    controls_ = {
        "algorithm": algorithm_buttons,
        "slow_for": choice("live-slow-for", "Payment slow for (s)", list(views.SLOW_FORS), slow_for),
    }
    progress = LiveProgress("live", unit="orders answered", total=views.planned(slow_for))

    def render(algorithm: str, slow_for: int) -> Any:
        with progress.redrawing("stream"):
            view = views.live_run(algorithm, slow_for, on_progress=progress.on_progress)
        progress.done(f"done: {view.duration:.1f} s, {view.orders} orders, {view.refused} refused")
        return view, [figures.live_figure(view)], [views.live_table(view)]

    return SliderView("live", controls_, render, progress=progress)
