"""Notebook 02's figures: drops against every split on both days, and each pool as a compartment of slots.
Each is a :class:`~bulkhead_lab.course.ui.blit.KeptFigure` a panel keeps and redraws in place."""

from __future__ import annotations

import math
from typing import Any

from matplotlib.artist import Artist
from matplotlib.collections import PatchCollection
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon, Rectangle

from bulkhead_lab.course.single_pool_vs_bulkhead.views import (
    LESSON_SPLITS,
    SENSITIVITY_SPLIT,
    CompartmentView,
    TradeoffView,
)
from bulkhead_lab.course.ui.blit import KeptFigure, KeptLayouts, moving_title, nice_ceiling, spines
from bulkhead_lab.course.ui.style import EVENT, FAILURE, LIMIT, NEUTRAL, TRACKING
from bulkhead_lab.pool.params import MODES, TOTAL, split_label

# A lesson's split, named beside its line at the tick labels' size, on its left; the last one on its right,
# so that 27/5 and 28/4, a slot apart, stand a slot apart instead of touching.
SPLIT_MARK = dict(rotation=90, va="top", fontsize=10, color=NEUTRAL)
LAYOUT_NAME: dict[str, Any] = dict(ha="center", weight="bold")  # over each layout's compartments


def _tradeoff_top(view: TradeoffView) -> float:
    # Scale to the splits a learner compares (16 and up), the single pool and the marked split;
    # tiny tracking pools drop far more and run off the top.
    dropped = [c for c in view.sweep.columns if c.endswith("dropped")]
    sweep = view.sweep[dropped]
    top = [sweep[sweep.index >= 16].to_numpy().max(), view.single[dropped].max()]
    if view.split is not None:
        top.append(sweep.loc[view.split].max())
    return nice_ceiling(1.12 * max(float(v) for v in top) + 1)


class TradeoffFigure(KeptFigure):
    """Dropped requests per flow against every split, healthy and slowdown days side by side.

    A move changes the curves, the single pool's levels (dashed), the marked split and the title. The
    frame (axes, day titles, legend, the lesson's splits) is kept as pixels, drawn again only when the
    y scale moves a step.
    """

    def __init__(self) -> None:
        super().__init__(10, 4.6, left=0.085, right=0.98, top=0.86, bottom=0.22, wspace=0.05)
        axes = self.figure.subplots(1, 2, sharey=True)
        self._curves: dict[str, Line2D] = {}
        self._levels: dict[str, Line2D] = {}
        self._markers: dict[str, Line2D] = {}
        self._marks: list[Line2D] = []
        splits = list(range(1, TOTAL))
        for ax, day in zip(axes, MODES, strict=True):
            for flow, color in (("tracking", TRACKING), ("event", EVENT)):
                col = f"{day} {flow} dropped"
                (self._curves[col],) = ax.plot(
                    splits, [0] * len(splits), color=color, marker=".", label=f"{flow} dropped (bulkhead)"
                )
                self._levels[col] = ax.axhline(
                    0, color=color, linestyle="--", linewidth=1, label=f"{flow} dropped (single pool)"
                )
            marked = sorted({*LESSON_SPLITS, SENSITIVITY_SPLIT})
            for s in marked:
                ax.axvline(s, color=NEUTRAL, linestyle=":", linewidth=1)
                side = "left" if s == marked[-1] else "right"
                ax.text(s, 0.99, split_label(s), transform=ax.get_xaxis_transform(), ha=side, **SPLIT_MARK)
            self._marks.append(ax.axvline(0, color=LIMIT, linewidth=2, alpha=0.35))
            for flow, color in (("tracking", TRACKING), ("event", EVENT)):
                (self._markers[f"{day} {flow} dropped"],) = ax.plot([0], [0], "o", color=color, ms=9)
            ax.set_title(f"{day} day")
            ax.set_xlabel(f"split: tracking slots (event pool = {TOTAL} - split)")
            ax.set_xlim(0.5, TOTAL - 0.5)
            ax.yaxis.set_label_coords(-0.14, 0.5)  # a fixed place spares measuring the tick labels
        axes[0].set_ylabel("dropped requests in the 40 s run")
        handles, labels = axes[0].get_legend_handles_labels()
        self.figure.legend(handles, labels, loc="lower center", ncol=4, frameon=False)
        self._title = self.figure.suptitle("")
        self._axes = tuple(axes)

    def update(self, view: TradeoffView) -> TradeoffFigure:
        for col, line in self._curves.items():
            line.set_ydata(list(view.sweep[col]))
        for col, line in self._levels.items():
            line.set_ydata([view.single[col]] * 2)
        split = view.split
        for artist in (*self._marks, *self._markers.values()):
            artist.set_visible(split is not None)
        if split is not None:
            for mark in self._marks:
                mark.set_xdata([split] * 2)
            for col, marker in self._markers.items():
                marker.set_data([split], [view.sweep.loc[split, col]])
        for ax in self._axes:
            ax.set_ylim(0, _tradeoff_top(view))
        suffix = "" if split is None else f" (marked: {split_label(split)})"
        self._title.set_text(f"Bulkhead size trades the two days against each other{suffix}")
        return self

    def frame_key(self) -> object:
        return self._axes[0].get_ylim()  # the y scale moves in steps; its axis is part of the frame

    def moving(self) -> list[Artist]:
        lines = [*self._levels.values(), *self._curves.values(), *self._marks, *self._markers.values()]
        return [*lines, *spines(*self._axes), self._title]


def _outline(x0: float, slots: int, columns: int) -> list[tuple[float, float]]:
    # The compartment's edge hugs its cells: full rows, then a shorter top row if the slots do not
    # fill it (so 7 slots in rows of 4 show as 4 + 3, not as a ragged box of 8).
    full, rest = divmod(slots, columns)
    left, right, top = x0 - 0.1, x0 + columns, full
    bottom = [(left, -0.1), (right, -0.1)]
    if rest == 0:
        return [*bottom, (right, top), (left, top)]
    step = x0 + rest
    return [*bottom, (right, top - 0.1), (step, top - 0.1), (step, top + 1), (left, top + 1)]


class _Compartments(KeptFigure):
    """One layout of compartments: cells, outlines and counts drawn once, recoloured every round."""

    COLUMNS = 4

    def __init__(self, view: CompartmentView) -> None:
        super().__init__(7.5, 4.6, left=0.01, right=0.99, top=0.9, bottom=0.01)
        ax = self._ax = self.figure.subplots()
        columns, gap = self.COLUMNS, 1.5
        cells: list[Rectangle] = []
        self._counts, self._outlines = [], []
        x0 = bulkhead_x = 0.0
        for pool, row in view.frame.iterrows():
            slots = int(row["slots"])
            cells += [Rectangle((x0 + i % columns, i // columns), 0.9, 0.9) for i in range(slots)]
            outline = Polygon(_outline(x0, slots, columns), fill=False, linewidth=2)
            self._outlines.append(ax.add_patch(outline))
            middle = x0 + columns / 2
            self._counts.append(ax.text(middle, -0.5, "", ha="center", va="top"))
            if str(pool).startswith("single"):
                ax.text(middle, math.ceil(slots / columns) + 0.4, "one shared pool", **LAYOUT_NAME)
                x0 += gap  # keep the two layouts apart
                bulkhead_x = x0 + columns + gap
            elif str(pool).startswith("tracking"):
                label = f"bulkhead {row['layout']}"
                ax.text(bulkhead_x + columns + gap / 2, TOTAL / columns - 0.6, label, **LAYOUT_NAME)
            x0 += columns + gap
        grid = PatchCollection(cells, facecolors="white", edgecolors="0.5", linewidths=0.5)
        self._cells = ax.add_collection(grid)
        ax.set(xlim=(-0.5, x0 - gap + 0.5), ylim=(-2.4, TOTAL / columns + 1), aspect="equal")
        ax.axis("off")
        self._title = moving_title(ax, fontsize="large")

    def update(self, view: CompartmentView) -> _Compartments:
        colors: list[str] = []
        for (pool, row), count in zip(view.frame.iterrows(), self._counts, strict=True):
            slots, tracking, event = int(row["slots"]), int(row["tracking"]), int(row["event"])
            busy = tracking + event
            colors += [TRACKING] * tracking + [EVENT] * event + ["white"] * (slots - busy)
            who = f"{tracking} tracking + {event} event" if str(pool).startswith("single") else f"{busy} busy"
            count.set_text(f"{pool}\n{who}{' FULL' if busy >= slots else ''}")
        self._cells.set_facecolor(colors)
        gap = view.round - view.start
        phase = f"{gap} rounds into the failure" if view.failing else f"{-gap} rounds before the failure"
        self._title.set_text(f"round {view.round} ({phase}); blue: tracking, orange: events, white: free")
        self._title.set_color(FAILURE if view.failing else LIMIT)
        return self

    def moving(self) -> list[Artist]:
        return [self._cells, *self._outlines, *self._counts, self._title]  # walls over the cells


class CompartmentFigure(KeptLayouts):
    """Each pool drawn as a compartment of slots, filled from the bottom: tracking's, then events'.

    Kept by the step-through: a round's move recolours the cells and rewrites the counts and the
    title. The last few splits' layouts are kept, so moving the split back is a recolour too.
    """

    def __init__(self) -> None:
        super().__init__(
            lambda v: tuple((str(p), int(r["slots"])) for p, r in v.frame.iterrows()), _Compartments
        )
