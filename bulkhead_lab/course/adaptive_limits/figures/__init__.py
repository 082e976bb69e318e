"""Notebook 05's figures: one kept figure per slider view of :mod:`..views`, the comparison's bars, and
section 6's live run.

Each panel keeps its figure and redraws it in place (:class:`~bulkhead_lab.course.ui.blit.KeptFigure`);
each ``*_figure(view)`` function draws one afresh for a notebook cell. Colours and the figure
style are :mod:`bulkhead_lab.course.ui.style`'s: the limit black, tracking blue, events orange,
the failure vermillion, the single pool grey, an algorithm's own estimate green.
"""

from bulkhead_lab.course.adaptive_limits.figures.bars import comparison_figure
from bulkhead_lab.course.adaptive_limits.figures.explore import ExploreFigure, explore_figure
from bulkhead_lab.course.adaptive_limits.figures.live import live_figure
from bulkhead_lab.course.adaptive_limits.figures.pitfalls import (
    DriftFigure,
    RampFigure,
    ReactionFigure,
    drift_figure,
    ramp_figure,
    reaction_figure,
)

__all__ = [
    "DriftFigure",
    "ExploreFigure",
    "RampFigure",
    "ReactionFigure",
    "comparison_figure",
    "drift_figure",
    "explore_figure",
    "live_figure",
    "ramp_figure",
    "reaction_figure",
]
