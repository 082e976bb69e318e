"""Notebook 01's panel: arrival rate, hold, pool size and target headroom, redrawing the blocking figure."""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from bulkhead_lab.course.littles_law_sizing import figures, views
from bulkhead_lab.course.ui.panel import SliderView, choice, slider

LESSON_RATES = (97.22, 20.0)  # lesson 000's event flow and lesson 004's Payment, in calls/s
RATES = sorted({float(v) for v in range(1, 301)} | set(LESSON_RATES))  # whole calls/s, and the lessons'


def littles_law_panel(
    arrival_rate: float = 97.22, hold: float = 0.06, slots: int = 8, target_headroom: float = 2.5
) -> SliderView:
    """Arrival rate, hold, pool size and target headroom: Little's Law, Erlang-B and the model."""
    controls = {
        "arrival_rate": choice(
            "arrival-rate", "arrival rate (calls/s)", [(f"{v:g}", v) for v in RATES], arrival_rate
        ),
        "hold": slider(w.FloatSlider, "hold", "hold (s)", min=0.01, max=0.5, step=0.01, value=hold),
        "slots": slider(w.IntSlider, "pool-size", "pool size (slots)", min=1, max=40, value=slots),
        "target_headroom": slider(
            w.FloatSlider,
            "headroom",
            "target headroom (×)",  # times the calls in flight; a longer label is cut at 13em
            min=1,
            max=5,
            step=0.5,
            readout_format=".1f",
            value=target_headroom,
        ),
    }

    figure = figures.BlockingFigure()  # kept, and redrawn in place on every move

    def render(**values: Any) -> Any:
        view = views.littles_law_view(**values)
        return view, [figure.update(view)], [view.table()]

    return SliderView("littles-law", controls, render)
