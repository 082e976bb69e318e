"""Notebook 02's figures: one kept figure per view of :mod:`..views` (numbers in, figure out).

Each panel keeps its figure and redraws it in place (:class:`~bulkhead_lab.course.ui.blit.KeptFigure`);
each ``*_figure(view)`` function draws one afresh for a notebook cell. Colours and the figure
style are :mod:`bulkhead_lab.course.ui.style`'s.
"""

from bulkhead_lab.course.single_pool_vs_bulkhead.figures.bars import LayoutFigure, idle_figure, layout_figure
from bulkhead_lab.course.single_pool_vs_bulkhead.figures.compartments import (
    CompartmentFigure,
    compartment_figure,
)
from bulkhead_lab.course.single_pool_vs_bulkhead.figures.occupancy import OccupancyFigure, occupancy_figure
from bulkhead_lab.course.single_pool_vs_bulkhead.figures.tradeoff import TradeoffFigure, tradeoff_figure

__all__ = [
    "CompartmentFigure",
    "LayoutFigure",
    "OccupancyFigure",
    "TradeoffFigure",
    "compartment_figure",
    "idle_figure",
    "layout_figure",
    "occupancy_figure",
    "tradeoff_figure",
]
