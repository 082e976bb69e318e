"""Notebook 02's figures: one function per view of :mod:`.views`, numbers in, figure out.

Colours and the figure style are :mod:`bulkhead_lab.course.style`'s.
"""

from __future__ import annotations

import math
from typing import Any

from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PatchCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from ...model import TOTAL, split_label
from ..style import EVENT_COLOR, FAILURE_COLOR, SINGLE_COLOR, TRACKING_COLOR, canvas_png
from ..style import figure as _figure
from .views import (
    LESSON_SPLITS,
    SENSITIVITY_SPLIT,
    CompartmentView,
    IdleView,
    LayoutView,
    OccupancyView,
    TradeoffView,
)

DAYS = ("healthy", "slowdown")


def _pool_color(pool: str) -> str:
    if pool.startswith("tracking"):
        return TRACKING_COLOR
    if pool.startswith("event"):
        return EVENT_COLOR
    return SINGLE_COLOR


def tradeoff_figure(view: TradeoffView) -> Figure:
    """Dropped requests per flow against split, healthy and slowdown days side by side."""
    return TradeoffFigure().update(view).figure


def _tradeoff_top(view: TradeoffView) -> float:
    # Scale to the splits a learner compares (16 and up), the single pool and the marked
    # split; tiny tracking pools drop far more and run off the top.
    dropped = [c for c in view.sweep.columns if c.endswith("dropped")]
    sweep = view.sweep[dropped]
    top_values = [sweep[sweep.index >= 16].to_numpy().max(), view.single[dropped].max()]
    if view.split is not None:
        top_values.append(sweep.loc[view.split].max())
    return 1.12 * max(float(v) for v in top_values) + 1


class TradeoffFigure:
    """The trade-off figure, kept by a panel and redrawn in place on every slider move.

    A move changes the curves, the single pool's levels, the marked split, the y scale and
    the title; the frame (axes, x axis, day titles, legend, the lesson's splits) never
    changes. So the frame is rendered once and kept as pixels, and :meth:`png` paints only
    what moved on top of it (Agg blitting): a redraw costs a few text labels and lines
    instead of the whole figure's ~40 text labels.
    """

    def __init__(self, dpi: float = 90) -> None:
        fig = Figure(figsize=(10, 4.6), dpi=dpi)
        fig.subplots_adjust(left=0.085, right=0.98, top=0.86, bottom=0.22, wspace=0.05)
        self.figure = fig
        self._canvas = FigureCanvasAgg(fig)
        self._frame: object | None = None  # the frame's pixels, once rendered
        axes = fig.subplots(1, 2, sharey=True)
        self._curves: dict[str, Line2D] = {}
        self._levels: dict[str, Line2D] = {}
        self._markers: dict[str, Line2D] = {}
        self._marks: list[Line2D] = []
        splits = list(range(1, TOTAL))
        for ax, day in zip(axes, DAYS, strict=True):
            for flow, color in (("tracking", TRACKING_COLOR), ("event", EVENT_COLOR)):
                col = f"{day} {flow} dropped"
                (self._curves[col],) = ax.plot(
                    splits, [0] * len(splits), color=color, marker=".", label=f"{flow} dropped (bulkhead)"
                )
                self._levels[col] = ax.axhline(
                    0, color=color, linestyle="--", linewidth=1, label=f"{flow} dropped (single pool)"
                )
            for s in (*LESSON_SPLITS, SENSITIVITY_SPLIT):
                ax.axvline(s, color="0.6", linestyle=":", linewidth=1)
                ax.text(
                    s,
                    0.99,
                    split_label(s),
                    transform=ax.get_xaxis_transform(),  # x in splits, y in axes height: scale-free
                    rotation=90,
                    ha="right",
                    va="top",
                    fontsize=8,
                    color="0.35",
                )
            self._marks.append(ax.axvline(0, color="black", linewidth=2, alpha=0.35))
            for flow, color in (("tracking", TRACKING_COLOR), ("event", EVENT_COLOR)):
                (self._markers[f"{day} {flow} dropped"],) = ax.plot([0], [0], "o", color=color, ms=9)
            ax.set_title(f"{day} day")
            ax.set_xlabel(f"split: tracking slots (event pool = {TOTAL} - split)")
            ax.set_xlim(0.5, TOTAL - 0.5)
            ax.grid(alpha=0.3)
        axes[0].set_ylabel("dropped requests in the 40 s run")
        for ax in axes:  # a fixed place (clear of five-digit ticks) spares measuring the tick labels
            ax.yaxis.set_label_coords(-0.14, 0.5)
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8, frameon=False)
        self._title = fig.suptitle("")
        self._axes = tuple(axes)

    def update(self, view: TradeoffView) -> TradeoffFigure:
        """Show ``view``: its curves, the single pool's levels, its marked split and scale."""
        sweep = view.sweep
        for col, line in self._curves.items():
            line.set_ydata(list(sweep[col]))
        for col, line in self._levels.items():
            line.set_ydata([view.single[col]] * 2)
        split = view.split
        for mark in self._marks:
            mark.set_visible(split is not None)
            if split is not None:
                mark.set_xdata([split] * 2)
        for col, marker in self._markers.items():
            marker.set_visible(split is not None)
            if split is not None:
                marker.set_data([split], [sweep.loc[split, col]])
        for ax in self._axes:
            ax.set_ylim(0, _tradeoff_top(view))
        suffix = "" if view.split is None else f" (marked: {split_label(view.split)})"
        self._title.set_text(f"Bulkhead size trades the two days against each other{suffix}")
        return self

    def _moving(self) -> list[Artist]:
        # In drawing order: y axes (ticks, grid, labels) under the lines, the title last.
        return [
            *(ax.yaxis for ax in self._axes),
            *self._levels.values(),
            *self._curves.values(),
            *self._marks,
            *self._markers.values(),
            self._title,
        ]

    def png(self) -> bytes:
        """The figure as PNG bytes: the kept frame, with what moved painted over it."""
        canvas = self._canvas
        moving = self._moving()
        if self._frame is None:
            shown = [a.get_visible() for a in moving]
            for artist in moving:
                artist.set_visible(False)
            canvas.draw()
            self._frame = canvas.copy_from_bbox(self.figure.bbox)
            for artist, visible in zip(moving, shown, strict=True):
                artist.set_visible(visible)
        else:
            canvas.restore_region(self._frame)
        renderer = canvas.get_renderer()
        for artist in moving:
            artist.draw(renderer)
        return canvas_png(canvas)


def _bars(
    ax: Any, labels: list[str], left: Any, right: Any, colors: tuple[str, str], names: tuple[str, str]
) -> None:
    x = list(range(len(labels)))
    ax.bar([i - 0.2 for i in x], left, 0.4, color=colors[0], label=names[0])
    ax.bar([i + 0.2 for i in x], right, 0.4, color=colors[1], label=names[1])
    for i, (a, b) in enumerate(zip(left, right, strict=True)):
        ax.text(i - 0.2, a, str(a), ha="center", va="bottom", fontsize=8)
        ax.text(i + 0.2, b, str(b), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylim(0, 1.35 * max(1, *left, *right))  # room for the legend above the bars
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(axis="y", alpha=0.3)


def layout_figure(view: LayoutView, idle: IdleView | None = None) -> Figure:
    """Drops per flow for the single pool and the chosen layout on both days; beside it, if
    given, the rejections that happened while the other pool held idle slots."""
    fig = _figure(
        12 if idle is not None else 6.5, 4, left=0.07, right=0.99, top=0.85, bottom=0.14, wspace=0.18
    )
    axes = fig.subplots(1, 2 if idle is not None else 1, squeeze=False)[0]
    frame = view.frame
    labels = [f"{layout}\n{day}" for layout, day in frame.index]
    _bars(
        axes[0],
        labels,
        frame["tracking dropped"],
        frame["event dropped"],
        (TRACKING_COLOR, EVENT_COLOR),
        ("tracking dropped", "event dropped"),
    )
    axes[0].set_ylabel("count in the 40 s run")
    axes[0].set_title("dropped requests per flow", fontsize=10)
    if idle is not None:
        _idle_axes(axes[1], idle)
    title = f"Single pool ({TOTAL})" if view.split is None else f"Single pool ({TOTAL}) against {view.label}"
    fig.suptitle(title)
    return fig


def occupancy_figure(view: OccupancyView) -> Figure:
    """Busy slots per pool round by round around the failure: the flooding compartment."""
    fig = _figure(10, 5, left=0.06, right=0.74, top=0.87, bottom=0.1, hspace=0.3)
    n = 1 if view.split is None else 2
    axes = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0]
    rounds = view.frame.index
    pools = list(view.capacity)
    groups = [pools[:1]] + ([pools[1:]] if n == 2 else [])
    titles = ["one shared pool: the slow event flow takes every slot"]
    if n == 2:
        titles.append(f"bulkhead {split_label(view.split)}: the event compartment floods, tracking stays dry")
    for ax, group, title in zip(axes, groups, titles, strict=True):
        for pool in group:
            color = _pool_color(pool)
            ax.plot(rounds, view.frame[pool], color=color, linewidth=1, label=f"{pool} busy")
            ax.axhline(view.capacity[pool], color=color, linestyle="--", linewidth=1, label=f"{pool} slots")
        ax.axvline(view.start, color=FAILURE_COLOR, linewidth=1.5, label="failure starts (event hold slows)")
        ax.set_ylabel("busy slots")
        ax.set_ylim(0, TOTAL + 2)
        ax.set_title(title, fontsize=10)
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8)
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("round (100 rounds = 1 s)")
    fig.suptitle("Busy slots per pool around the failure (slowdown day)")
    return fig


def _idle_axes(ax: Any, view: IdleView) -> None:
    frame = view.frame
    labels = [f"{layout}\n{day}" for layout, day in frame.index]
    _bars(
        ax,
        labels,
        frame["rejections"],
        frame["idle slots at rejections"],
        ("tab:red", "tab:green"),
        ("rejections (dropped requests)", "idle slots next door, summed over those rejections"),
    )
    ax.set_title("rejected while the other pool had idle slots (lost sharing)", fontsize=10)


def idle_figure(view: IdleView) -> Figure:
    """Rejections, beside the idle slots the other pool held at those moments."""
    fig = _figure(6.5, 4, left=0.12, right=0.98, top=0.9, bottom=0.14)
    ax = fig.subplots()
    _idle_axes(ax, view)
    ax.set_ylabel("count in the 40 s run")
    return fig


def compartment_figure(view: CompartmentView, columns: int = 4) -> Figure:
    """Each pool drawn as a compartment of slots, busy slots filled from the bottom."""
    fig = _figure(7, 4.2, left=0.01, right=0.99, top=0.92, bottom=0.01)
    ax = fig.subplots()
    patches: list[Rectangle] = []
    colors: list[str] = []
    x0 = 0.0
    gap = 1.5
    bulkhead_x = 0.0
    for pool, row in view.frame.iterrows():
        slots, busy = int(row["slots"]), int(row["busy"])
        color = _pool_color(str(pool))
        for i in range(slots):
            col, level = i % columns, i // columns
            patches.append(Rectangle((x0 + col, level), 0.9, 0.9))
            colors.append(color if i < busy else "white")
        height = math.ceil(slots / columns)
        ax.add_patch(Rectangle((x0 - 0.1, -0.1), columns + 0.1, height + 0.1, fill=False, linewidth=2))
        full = " FULL" if busy >= slots else ""
        ax.text(
            x0 + columns / 2, -0.5, f"{pool}\n{busy}/{slots} busy{full}", ha="center", va="top", fontsize=9
        )
        if str(pool).startswith("single"):
            ax.text(
                x0 + columns / 2, height + 0.4, "one shared pool", ha="center", fontsize=10, weight="bold"
            )
            x0 += gap  # keep the two layouts apart
            bulkhead_x = x0 + columns + gap
        elif str(pool).startswith("tracking"):
            ax.text(
                bulkhead_x + columns + gap / 2,
                TOTAL / columns - 0.6,
                f"bulkhead {view.frame.loc[pool, 'layout']}",
                ha="center",
                fontsize=10,
                weight="bold",
            )
        x0 += columns + gap
    ax.add_collection(PatchCollection(patches, facecolors=colors, edgecolors="0.5", linewidths=0.5))
    ax.set_xlim(-0.5, x0 - gap + 0.5)
    ax.set_ylim(-2.2, TOTAL / columns + 1)
    ax.set_aspect("equal")
    ax.axis("off")
    phase = (
        f"{view.round - view.start} rounds into the failure"
        if view.failing
        else f"{view.start - view.round} rounds before the failure"
    )
    ax.set_title(f"round {view.round} ({phase})", color=FAILURE_COLOR if view.failing else "black")
    return fig
