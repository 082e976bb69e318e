"""Notebook 05's slider panels: each a :class:`~bulkhead_lab.course.ui.panel.SliderView` over a view of
:mod:`.views`, keeping one figure of :mod:`.figures` and redrawing it in place.

- :func:`explore_panel`: the algorithm, the slowdown's hold and length, and the chosen
  algorithm's main setting (one slider per algorithm; only the chosen one shows);
- :func:`drift_panel`: Gradient2's drift, over the slowdown's length and the tolerance;
- :func:`slow_start_panel`: Vegas from a low initial limit, slow start on or off, per call or windowed;
- :func:`reaction_panel`: Vegas' smoothing and Gradient2's tolerance, reaction against stability;
- :func:`live_panel`: an algorithm's limit around lesson 004's Payment, live: each move is one run
  of a few seconds under a progress bar (``bl-progress-live``, ``bl-status-live``); while it is
  in flight the figure shown says it is the previous run's.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from bulkhead_lab.adaptive.pool import ALGORITHMS
from bulkhead_lab.course.adaptive_limits import figures, views
from bulkhead_lab.course.ui import controls
from bulkhead_lab.course.ui.panel import SLIDER_LAYOUT, LiveProgress, SliderView, slider, toggle
from bulkhead_lab.course.ui.runner import Interrupted


def _own_layout(widget: Any) -> Any:
    # Every slider shares one Layout object; a slider that hides gets its own.
    widget.layout = w.Layout(width=SLIDER_LAYOUT.width)
    return widget


def _choice(name: str, description: str, options: Any, value: Any) -> w.SelectionSlider:
    return slider(w.SelectionSlider, name, description, options=options, value=value)


def knob_slider(knob: views.Knob, value: Any = None) -> w.SelectionSlider:
    """The slider of one algorithm's main setting (classed ``bl-slider-<algorithm>-<setting>``)."""
    options = [(f"{v:g}", v) for v in knob.options]
    name = knob.control.replace("_", "-")
    return _own_layout(_choice(name, knob.description, options, knob.default if value is None else value))


def explore_panel(algorithm: str = "AIMD", slow: int = 22, length: int = 3000) -> SliderView:
    """One algorithm on both flows through the slowdown day, beside one pool and 24/8."""
    sliders = {
        "algorithm": _choice("algorithm", "algorithm", list(ALGORITHMS), algorithm),
        "slow": controls.hold_sliders(slow=slow)["slow"],
        "length": slider(
            w.SelectionSlider,
            "slowdown-length",
            "slowdown length (rounds)",
            options=list(views.LENGTHS),
            value=length,
        ),
        **{knob.control: knob_slider(knob) for knob in views.KNOBS.values()},
    }

    def show_chosen_knob(_: object = None) -> None:
        chosen = sliders["algorithm"].value
        for knob in views.KNOBS.values():
            sliders[knob.control].layout.display = None if knob.algorithm == chosen else "none"

    sliders["algorithm"].observe(show_chosen_knob, names="value")
    show_chosen_knob()
    figure = figures.ExploreFigure()  # kept, and redrawn in place on every move

    def render(algorithm: str, slow: int, length: int, **knobs: Any) -> Any:
        value = knobs[views.KNOBS[algorithm].control]
        view = views.explore_view(algorithm, value, slow, length)
        return view, [figure.update(view)], [view.frame]

    return SliderView("explore", sliders, render)


def drift_panel(length: int = 3000, tolerance: float = 1.5) -> SliderView:
    """Gradient2 on the event flow through a slowdown of a chosen length, at a chosen tolerance."""
    sliders = {
        "length": slider(
            w.SelectionSlider,
            "drift-length",
            "slowdown length (rounds)",
            options=list(views.DRIFT_LENGTHS),
            value=length,
        ),
        "tolerance": _choice(
            "drift-tolerance", "Gradient2 tolerance", [(f"{t:g}", t) for t in views.TOLERANCES], tolerance
        ),
    }
    figure = figures.DriftFigure()

    def render(length: int, tolerance: float) -> Any:
        view = views.drift_view(length, tolerance)
        return view, [figure.update(view)], [view.frame]

    return SliderView("drift", sliders, render)


def slow_start_panel(initial: int = 1, slow_start: bool = True, windowed: bool = False) -> SliderView:
    """Vegas on the tracking flow from a low initial limit: slow start on or off, updates per call or
    once a second (Netflix's WindowedLimit)."""
    sliders = {
        "initial": slider(w.IntSlider, "vegas-initial", "Vegas initial limit", min=1, max=24, value=initial),
        "slow_start": toggle("slow-start", "slow start", [("on", True), ("off", False)], slow_start),
        "windowed": toggle(
            "windowed", "limit updated", [(label, key) for key, label in views.UPDATES.items()], windowed
        ),
    }
    figure = figures.RampFigure()

    def render(initial: int, slow_start: bool, windowed: bool) -> Any:
        view = views.ramp_view(initial, slow_start, windowed)
        return view, [figure.update(view)], [view.frame]

    return SliderView("slow-start", sliders, render)


def reaction_panel(smoothing: float = 1.0, tolerance: float = 1.5) -> SliderView:
    """Vegas' smoothing and Gradient2's tolerance on the event flow, each beside its source's default."""
    sliders = {
        "smoothing": _choice(
            "reaction-smoothing", "Vegas smoothing", [(f"{s:g}", s) for s in views.SMOOTHINGS], smoothing
        ),
        "tolerance": _choice(
            "reaction-tolerance",
            "Gradient2 tolerance",
            [(f"{t:g}", t) for t in views.TOLERANCES],
            tolerance,
        ),
    }
    figure = figures.ReactionFigure()

    def render(smoothing: float, tolerance: float) -> Any:
        view = views.reaction_view(smoothing, tolerance)
        return view, [figure.update(view)], [view.frame]

    return SliderView("reaction", sliders, render)


def live_panel(algorithm: str = views.LIVE_ALGORITHM, slow_for: int = views.LIVE_SLOW_FOR) -> SliderView:
    """The algorithm and how long Payment stays slow; each move runs one live stream (a few seconds)
    and draws its limit and Payment's calls in flight, and the table by phase.

    ``panel.set(...)`` moves both controls, runs once and returns the :class:`~.views.LiveView`.
    """
    algorithm_buttons = toggle("live-algorithm", "algorithm", ALGORITHMS, algorithm)
    controls_ = {
        "algorithm": algorithm_buttons,
        "slow_for": slider(
            w.SelectionSlider,
            "live-slow-for",
            "Payment slow for (s)",
            options=list(views.SLOW_FORS),
            value=slow_for,
        ),
    }
    progress = LiveProgress("live", unit="orders answered", total=views.planned(slow_for))

    def render(algorithm: str, slow_for: int) -> Any:
        progress.running()
        try:
            run = views.live_run(algorithm, slow_for, on_progress=progress.on_progress)
        except ValueError as err:  # the panel shows the one line too
            progress.failed(f"cannot run this stream: {err}")
            raise
        except Interrupted:  # Kernel > Interrupt: the status says so, the cell shows one line
            progress.interrupted()
            raise
        view = views.live_view(run, slow_for)
        progress.done(f"done: {view.duration:.1f} s, {view.orders} orders, {view.refused} refused")
        return view, [figures.live_figure(view)], [view.frame]

    panel = SliderView("live", controls_, render, extra=(progress.widget,), draw=False)
    panel.progress = progress
    panel.redraw()
    return panel
