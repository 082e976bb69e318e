"""Notebook 01's panel: arrival rate, hold, pool size and headroom factor."""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from ..panel import SliderView, slider
from . import figures, views


def littles_law_panel(
    arrival_rate: float = 97.22, hold: float = 0.06, slots: int = 8, factor: float = 2.5
) -> SliderView:
    """Arrival rate, hold, pool size and headroom factor: Little's Law, Erlang-B and the model."""
    controls = {
        "arrival_rate": slider(
            w.FloatSlider,
            "arrival-rate",
            "arrival rate (calls/s)",
            min=1,
            max=300,
            step=0.01,
            value=arrival_rate,
        ),
        "hold": slider(w.FloatSlider, "hold", "hold (s)", min=0.01, max=0.5, step=0.01, value=hold),
        "slots": slider(w.IntSlider, "pool-size", "pool size (slots)", min=1, max=40, value=slots),
        "factor": slider(w.FloatSlider, "headroom", "headroom factor", min=1, max=5, step=0.5, value=factor),
    }

    def render(**values: Any) -> Any:
        view = views.littles_law_view(**values)
        return view, [figures.blocking_figure(view)], [view.table()]

    return SliderView("littles-law", controls, render)
