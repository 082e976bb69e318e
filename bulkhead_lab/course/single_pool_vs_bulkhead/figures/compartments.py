"""The step-through's picture: each pool as a compartment of slots, coloured by the flow holding them."""

from __future__ import annotations

import math
from collections import OrderedDict

from matplotlib.artist import Artist
from matplotlib.collections import PatchCollection
from matplotlib.figure import Figure
from matplotlib.patches import Polygon, Rectangle

from bulkhead_lab.course.single_pool_vs_bulkhead.views import CompartmentView
from bulkhead_lab.course.ui.blit import KeptFigure, moving_title
from bulkhead_lab.course.ui.style import EVENT, FAILURE, LIMIT, TRACKING
from bulkhead_lab.pool.params import TOTAL


def _outline(x0: float, slots: int, columns: int) -> list[tuple[float, float]]:
    # The compartment's edge hugs its cells: full rows, then a shorter top row if slots
    # do not fill it (so 7 slots in rows of 4 show as 4 + 3, not as a ragged box of 8).
    full, rest = divmod(slots, columns)
    pad = 0.1
    left, right = x0 - pad, x0 + columns - 0.1 + pad
    if rest == 0:
        top = full - 0.1 + pad
        return [(left, -pad), (right, -pad), (right, top), (left, top)]
    step = x0 + rest - 0.1 + pad
    return [
        (left, -pad),
        (right, -pad),
        (right, full - pad),
        (step, full - pad),
        (step, full + 1 - 0.1 + pad),
        (left, full + 1 - 0.1 + pad),
    ]


def _pools_of(view: CompartmentView) -> tuple[tuple[str, int], ...]:
    return tuple((str(p), int(r["slots"])) for p, r in view.frame.iterrows())


class CompartmentFigure:
    """Each pool drawn as a compartment of slots, filled from the bottom: tracking's slots, then events'.

    Kept by the step-through: a round's move recolours the cells and rewrites the counts and
    the title. Each split's layout is kept once drawn (the last few), so moving the split
    back to one seen before is a recolour too.
    """

    KEPT_LAYOUTS = 8

    def __init__(self) -> None:
        self._layouts: OrderedDict[tuple[tuple[str, int], ...], _Compartments] = OrderedDict()
        self._shown: _Compartments | None = None

    @property
    def figure(self) -> Figure:
        assert self._shown is not None, "update() the figure first"
        return self._shown.figure

    def update(self, view: CompartmentView) -> CompartmentFigure:
        """Show ``view``, on its layout's kept figure."""
        key = _pools_of(view)
        kept = self._layouts.get(key)
        if kept is None:
            kept = self._layouts[key] = _Compartments()
            while len(self._layouts) > self.KEPT_LAYOUTS:
                self._layouts.popitem(last=False)
        self._layouts.move_to_end(key)
        self._shown = kept.update(view)
        return self

    def png(self) -> bytes:
        assert self._shown is not None, "update() the figure first"
        return self._shown.png()


class _Compartments(KeptFigure):
    """One layout of compartments (see :class:`CompartmentFigure`)."""

    COLUMNS = 4

    def __init__(self) -> None:
        super().__init__(7.5, 4.6, left=0.01, right=0.99, top=0.9, bottom=0.01)
        self._pools: tuple[tuple[str, int], ...] | None = None

    def _layout(self, view: CompartmentView) -> None:
        fig = self.rebuild()
        ax = fig.subplots()
        columns, gap = self.COLUMNS, 1.5
        cells: list[Rectangle] = []
        self._counts = []
        self._outlines: list[Polygon] = []
        x0 = bulkhead_x = 0.0
        for pool, row in view.frame.iterrows():
            slots = int(row["slots"])
            cells += [Rectangle((x0 + i % columns, i // columns), 0.9, 0.9) for i in range(slots)]
            outline = Polygon(_outline(x0, slots, columns), closed=True, fill=False, linewidth=2)
            ax.add_patch(outline)
            self._outlines.append(outline)
            self._counts.append(ax.text(x0 + columns / 2, -0.5, "", ha="center", va="top"))
            height = math.ceil(slots / columns)
            if str(pool).startswith("single"):
                ax.text(x0 + columns / 2, height + 0.4, "one shared pool", ha="center", weight="bold")
                x0 += gap  # keep the two layouts apart
                bulkhead_x = x0 + columns + gap
            elif str(pool).startswith("tracking"):
                layout = view.frame.loc[pool, "layout"]
                ax.text(
                    bulkhead_x + columns + gap / 2,
                    TOTAL / columns - 0.6,
                    f"bulkhead {layout}",
                    ha="center",
                    weight="bold",
                )
            x0 += columns + gap
        self._cells = PatchCollection(cells, facecolors="white", edgecolors="0.5", linewidths=0.5)
        ax.add_collection(self._cells)
        ax.set_xlim(-0.5, x0 - gap + 0.5)
        ax.set_ylim(-2.4, TOTAL / columns + 1)
        ax.set_aspect("equal")
        ax.axis("off")
        self._ax = ax
        self._title = moving_title(ax, fontsize="large")
        self._pools = _pools_of(view)

    def update(self, view: CompartmentView) -> _Compartments:
        """Show ``view``: every pool's cells in its flows' colours, its counts, the round."""
        if self._pools != _pools_of(view):
            self._layout(view)
        colors: list[str] = []
        for (pool, row), count in zip(view.frame.iterrows(), self._counts, strict=True):
            slots, tracking, event = int(row["slots"]), int(row["tracking"]), int(row["event"])
            busy = tracking + event
            colors += [TRACKING] * tracking + [EVENT] * event + ["white"] * (slots - busy)
            full = " FULL" if busy >= slots else ""
            who = f"{tracking} tracking + {event} event" if str(pool).startswith("single") else f"{busy} busy"
            count.set_text(f"{pool}\n{who}{full}")
        self._cells.set_facecolor(colors)
        phase = (
            f"{view.round - view.start} rounds into the failure"
            if view.failing
            else f"{view.start - view.round} rounds before the failure"
        )
        self._title.set_text(f"round {view.round} ({phase}); blue: tracking, orange: events, white: free")
        self._title.set_color(FAILURE if view.failing else LIMIT)
        return self

    def moving(self) -> list[Artist]:
        return [self._cells, *self._outlines, *self._counts, self._title]  # walls over the cells


def compartment_figure(view: CompartmentView) -> Figure:
    """Each pool as a compartment of slots at one round (a :class:`CompartmentFigure` drawn once)."""
    return CompartmentFigure().update(view).figure
