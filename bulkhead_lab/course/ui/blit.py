"""A figure a panel keeps and repaints in place: the frame drawn once, only what moved drawn again.

Laying out text costs most of a full draw, so a :class:`KeptFigure` renders the frame (axes, fixed
labels, legends) once with the moving artists hidden, keeps its pixels, and on each
:meth:`~KeptFigure.png` restores them and draws only the moving artists (Agg blitting). A subclass
builds its figure in ``__init__``, lists what moves in :meth:`~KeptFigure.moving` and changes it in
its ``update(view)``; an axis range that changes now and then is its :meth:`~KeptFigure.frame_key`
(the last few frames are kept), and a new layout is a :meth:`~KeptFigure.rebuild`.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from bulkhead_lab.course.ui.style import canvas_png, figure

KEPT_FRAMES = 8  # frames kept per figure (each is the figure's pixels, about 1.5 MB)
KEPT_LAYOUTS = 8  # figures kept, one a layout, where a figure's layout changes with a slider


class KeptFigure:
    """A figure redrawn in place; :attr:`figure` is always the current matplotlib figure."""

    def __init__(self, width: float, height: float, **margins: float) -> None:
        self._size = (width, height)
        self._margins = margins
        self.figure = figure(width, height, **margins)
        self._canvas = FigureCanvasAgg(self.figure)
        self._frames: OrderedDict[object, Any] = OrderedDict()  # frame key -> the frame's pixels

    def rebuild(self) -> Figure:
        """Start over on a fresh figure (the frame changed); returns it for the subclass to fill."""
        self.figure = figure(*self._size, **self._margins)
        self._canvas = FigureCanvasAgg(self.figure)
        self._frames.clear()
        return self.figure

    def frame_key(self) -> object:
        """What the kept frame depends on besides its layout (e.g. an axis' range); None: nothing."""
        return None

    def moving(self) -> list[Artist]:
        """The artists a move can change, in drawing order (the rest is the kept frame)."""
        raise NotImplementedError

    def png(self) -> bytes:
        """The figure as PNG bytes: the kept frame, with what moved painted over it."""
        canvas = self._canvas
        moving = self.moving()
        key = self.frame_key()
        frame = self._frames.get(key)
        if frame is None:
            shown = [a.get_visible() for a in moving]
            for artist in moving:
                artist.set_visible(False)
            canvas.draw()
            frame = self._frames[key] = canvas.copy_from_bbox(self.figure.bbox)
            for artist, visible in zip(moving, shown, strict=True):
                artist.set_visible(visible)
            while len(self._frames) > KEPT_FRAMES:
                self._frames.popitem(last=False)
        else:
            self._frames.move_to_end(key)
            canvas.restore_region(frame)
        renderer = canvas.get_renderer()
        for artist in moving:
            if artist.get_visible():
                artist.draw(renderer)
        return canvas_png(canvas)


class KeptLayouts:
    """A kept figure per layout (``layout(view)``: the pools and their slots, a shard size), each made by
    ``make(view)``, the last :data:`KEPT_LAYOUTS` kept: moving back to a layout redraws no frame.
    :meth:`update` shows a view on its layout's figure and returns that figure."""

    def __init__(self, layout: Callable[[Any], Hashable], make: Callable[[Any], Any]) -> None:
        self._layout, self._make = layout, make
        self._figures: OrderedDict[Hashable, Any] = OrderedDict()

    def update(self, view: Any) -> Any:
        key = self._layout(view)
        if key not in self._figures:
            self._figures[key] = self._make(view)
            while len(self._figures) > KEPT_LAYOUTS:
                self._figures.popitem(last=False)
        self._figures.move_to_end(key)
        return self._figures[key].update(view)


def moving_title(ax: Any, **kwargs: Any) -> Text:
    """A text where ``ax``'s title goes, for a title that moves.

    ``ax.title`` itself is repositioned by every full draw (clear of the tick labels), and
    a kept figure's moving artists are drawn without one; a text of its own stays put.
    """
    return ax.text(0.5, 1.015, "", transform=ax.transAxes, ha="center", va="bottom", **kwargs)


def spines(*axes: Any) -> list[Artist]:
    """The axes' edges, to draw again after what moved, so they stay on top as in a full draw."""
    return [spine for ax in axes for spine in ax.spines.values()]


def nice_ceiling(value: float) -> float:
    """The least of 1, 2, 5 x 10^k at or above ``value``: an axis scaled to it rescales in steps,
    so its frame is drawn again only when a move crosses a step, not on every move."""
    value = max(value, 1.0)
    power = 10 ** math.floor(math.log10(value))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= value)
