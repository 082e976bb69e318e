"""What a figure drew, read back for the figure tests: its words and the one line with a label; and
notebook 05's explore run with the table and label its figure is drawn with, as its panel makes them."""

from __future__ import annotations

from matplotlib.figure import Figure

from bulkhead_lab.adaptive.compare import explore
from bulkhead_lab.course.adaptive_limits import views


def texts(fig: Figure) -> list[str]:
    """Every non-empty text the figure draws: titles, axis labels, legends, notes."""
    found = [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text"))]
    return [t for t in found if t]


def line(ax, label: str):
    """The one line on ``ax`` labelled ``label`` (a second one, or none, fails)."""
    (found,) = [x for x in ax.get_lines() if x.get_label() == label]
    return found


def explored(*args: object) -> tuple:
    """``explore(*args)`` with its table and label: what ExploreFigure.update takes."""
    run = explore(*args)  # type: ignore[arg-type]
    return run, views.explore_frame(run), views.explore_label(run)
