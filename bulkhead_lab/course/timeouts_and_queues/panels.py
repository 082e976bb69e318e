"""Notebook 07's slider panel: load, timeout, queue bound, retry attempts and budget, and the fix in;
the storm over time and its numbers out (a :class:`~bulkhead_lab.course.ui.panel.SliderView`).

Every run comes from the kept runs of :mod:`bulkhead_lab.queues.rounds` (a slider moved back and
forth replays nothing); the figure is kept and redrawn in place.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from bulkhead_lab.course.timeouts_and_queues import figures, views
from bulkhead_lab.course.ui.panel import SliderView, slider
from bulkhead_lab.pool.model import EVENT_RATE


def storm_panel(
    rate: float = EVENT_RATE,
    timeout: int = views.DEFAULT.callers.timeout,
    bound: str = "no bound",
    attempts: int = 3,
    budget: str = "none",
    fix: str = "no fix",
) -> SliderView:
    """The storm for the sliders' setup: offered load, goodput, wasted work and the queue over time."""
    rates = [(f"{r:g} calls/s" + (" (lesson 000)" if r == EVENT_RATE else ""), r) for r in views.RATES]
    controls = {
        "rate": slider(w.SelectionSlider, "load", "load (event calls/s)", options=rates, value=rate),
        "timeout": slider(w.IntSlider, "timeout", "timeout (rounds)", min=10, max=60, step=5, value=timeout),
        "bound": slider(
            w.SelectionSlider, "queue-bound", "queue bound (calls)", options=list(views.BOUNDS), value=bound
        ),
        "attempts": slider(w.IntSlider, "attempts", "attempts per request", min=1, max=5, value=attempts),
        "budget": slider(
            w.SelectionSlider, "budget", "retry budget", options=list(views.BUDGETS), value=budget
        ),
        "fix": slider(w.SelectionSlider, "fix", "the fix", options=list(views.PANEL_FIXES), value=fix),
    }
    figure = figures.StormFigure()  # kept, and redrawn in place on every move

    def render(**values: Any) -> Any:
        view = views.storm_view(views.setup_of(**values))
        return view, [figure.update(view)], [view.frame]

    return SliderView("storm", controls, render)
