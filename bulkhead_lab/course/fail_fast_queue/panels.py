"""Notebook 04's widgets: a run's figure and table as one cell's output, and the live panel.

:func:`show` displays a run's figure and summary table. :func:`orders_panel` has sliders
over the variant's sizes and Payment's slowdown, a progress bar while a live run is in
flight, and an output area redrawn with the figure and the summary table after each run.
CSS classes for the browser test: ``bl-slider-<name>``, ``bl-toggle-variant``,
``bl-progress-orders``, ``bl-view-orders``, ``bl-panel-orders``.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w
from IPython.display import Image, display

from ...live.load import OrdersRun
from ...live.order_service import VARIANTS
from ..live import Interrupted
from ..panel import LiveProgress, SliderView, slider
from ..style import to_png
from . import figures, views


def show(r: OrdersRun) -> None:
    """Display the run's figure and its summary table (a notebook cell's whole output)."""
    display(Image(data=to_png(figures.orders_figure(r)), format="png"))
    display(views.summary_table([r]))


# --- the live panel -------------------------------------------------------------------------


def orders_panel(
    variant: str = "limited", pool: int = 10, limit: int = 5, queue: int = 5, slow_latency: float = 0.3
) -> SliderView:
    """Variant, pool size, limit, queue and Payment's slowdown; each change runs the lesson's
    load live (20 orders, 10 stock checks) and redraws the figure and the summary table.

    A progress bar counts the answers while the run is in flight. ``panel.set(...)`` moves
    several controls, runs once and returns the :class:`~bulkhead_lab.live.load.OrdersRun`.
    """
    controls = {
        "variant": w.ToggleButtons(options=list(VARIANTS), value=variant, description="variant"),
        "pool": slider(w.IntSlider, "pool", "shared pool size", min=1, max=30, value=pool),
        "limit": slider(w.IntSlider, "limit", "limit per pool", min=1, max=20, value=limit),
        "queue": slider(w.IntSlider, "queue", "bulkhead queue", min=0, max=20, value=queue),
        "slow_latency": slider(
            w.FloatSlider, "slowdown", "Payment slow (s)", min=0.1, max=3.0, step=0.1, value=slow_latency
        ),
    }
    controls["variant"].add_class("bl-toggle-variant")
    progress = LiveProgress("orders", unit="answered", total=30)

    def render(**values: Any):
        progress.running()
        try:
            r = views.run(on_progress=progress.on_progress, **values)
        except ValueError as err:  # the panel shows the one line too
            progress.failed(f"cannot run this load: {err}")
            raise
        except Interrupted as stop:  # Kernel > Interrupt: the status says so, the cell shows one line
            progress.failed(str(stop))
            raise
        progress.done(f"done: {r.duration:.2f} s, {len(r.requests)} answers")
        return r, [figures.orders_figure(r)], [views.summary_table([r])]

    panel = SliderView("orders", controls, render, extra=(progress.widget,))
    panel.progress = progress
    return panel
