"""Notebook 07's slider panel: load, timeout, queue bound, retry attempts and budget, and the fix in;
the storm over time and its numbers out (a :class:`~bulkhead_lab.course.ui.panel.SliderView`).
And section 5's live run under a progress bar (``bl-progress-storms``, ``bl-status-storms``).
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from bulkhead_lab.course.timeouts_and_queues import figures, live, views
from bulkhead_lab.course.ui.panel import LiveProgress, SliderView, slider
from bulkhead_lab.live.orders.reading.metastable import LiveStorm
from bulkhead_lab.pool.params import EVENT_RATE


def storm_panel() -> SliderView:
    """The storm for the sliders' setup: offered load, goodput, wasted work and the queue over time. The
    sliders start at the notebook's storm: lesson 000's load, the callers' timeout, 3 attempts, and each
    choice at its first option (no bound, no budget, no fix)."""
    rates = [(f"{r:g}" + (" (lesson 000)" if r == EVENT_RATE else ""), r) for r in views.RATES]
    timeout = views.DEFAULT.callers.timeout
    controls = {
        "rate": slider(w.SelectionSlider, "load", "load (calls/s)", options=rates, value=EVENT_RATE),
        "timeout": slider(w.IntSlider, "timeout", "timeout (rounds)", min=10, max=60, step=5, value=timeout),
        "bound": slider(w.SelectionSlider, "queue-bound", "queue bound (calls)", options=list(views.BOUNDS)),
        "attempts": slider(w.IntSlider, "attempts", "attempts per request", min=1, max=5, value=3),
        "budget": slider(w.SelectionSlider, "budget", "retry budget", options=list(views.BUDGETS)),
        "fix": slider(w.SelectionSlider, "fix", "the fix", options=list(views.PANEL_FIXES)),
    }
    figure = figures.StormFigure()  # kept, and redrawn in place on every move

    def render(**values: Any) -> Any:
        view = views.storm_view(views.setup_of(**values))
        return view, [figure.update(view)], [view.frame]

    return SliderView("storm", controls, render)


def live_storms() -> tuple[LiveStorm, ...]:
    """Section 5's two live runs side by side (:func:`.live.run`) under a progress bar counting the
    orders finished; it says done, or where an interrupt stopped them."""
    progress = LiveProgress("storms", unit="orders finished", total=2 * live.STORM.orders)
    with progress.shown("Run this cell to run the live storms (a bar counts the orders)."):
        storms = live.run(progress.on_progress)
    progress.done(f"done: {2 * live.STORM.orders} orders, {max(s.duration for s in storms):.1f} s")
    return storms
