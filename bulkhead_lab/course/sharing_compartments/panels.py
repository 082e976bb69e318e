"""Notebook 09's panels: the reserved share of a soft partition, and the slots kept back for the critical
flow. Each keeps one :class:`~.figures.StopsFigure` (its curves drawn once) and moves its mark."""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from bulkhead_lab.compartments import partition_sweep
from bulkhead_lab.course.sharing_compartments import figures, views
from bulkhead_lab.course.ui.panel import SliderView, slider


def soft_panel(share: float = 7 / 8) -> SliderView:
    """From all shared (0/8) to all reserved (8/8, lesson 000's 24/8), in eighths."""
    options = [(f"{round(8 * s)}/8", s) for s in partition_sweep.EIGHTHS]
    controls = {"share": slider(w.SelectionSlider, "share", "reserved share", options=options, value=share)}
    figure = figures.StopsFigure(
        partition_sweep.soft_view(share), "reserved share (of 24/8)", [o for o, _ in options]
    )

    def render(share: float) -> Any:
        curves = partition_sweep.soft_view(share)
        return curves, [figure.update(curves)], [views.chosen_table(curves)]

    return SliderView("soft", controls, render)


def shed_panel(keep: int = 8) -> SliderView:
    """The slots kept back for tracking: events are shed once only that many are free."""
    controls = {
        "keep": slider(
            w.IntSlider, "keep", "slots kept for tracking", min=0, max=partition_sweep.KEEPS[-1], value=keep
        )
    }
    figure = figures.StopsFigure(
        partition_sweep.shed_view(keep), "slots kept for tracking", [str(k) for k in partition_sweep.KEEPS]
    )

    def render(keep: int) -> Any:
        curves = partition_sweep.shed_view(keep)
        return curves, [figure.update(curves)], [views.chosen_table(curves)]

    return SliderView("shed", controls, render)
