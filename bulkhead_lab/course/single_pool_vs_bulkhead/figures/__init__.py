"""Notebook 02's figures: one kept figure per view of :mod:`..views` (numbers in, figure out).

Each panel keeps its figure and redraws it in place (:class:`~bulkhead_lab.course.kept.KeptFigure`);
each ``*_figure(view)`` function draws one afresh for a notebook cell. Colours and the figure
style are :mod:`bulkhead_lab.course.style`'s.
"""

from .bars import LayoutFigure, idle_figure, layout_figure
from .compartments import CompartmentFigure, compartment_figure
from .occupancy import OccupancyFigure, occupancy_figure
from .tradeoff import TradeoffFigure, tradeoff_figure

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
