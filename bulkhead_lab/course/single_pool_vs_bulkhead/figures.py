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
from matplotlib.patches import Polygon, Rectangle

from ...model import TOTAL, split_label
from ..style import EVENT, FAILURE, IDLE, LIMIT, NEUTRAL, TRACKING, canvas_png
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
            for flow, color in (("tracking", TRACKING), ("event", EVENT)):
                col = f"{day} {flow} dropped"
                (self._curves[col],) = ax.plot(
                    splits, [0] * len(splits), color=color, marker=".", label=f"{flow} dropped (bulkhead)"
                )
                self._levels[col] = ax.axhline(
                    0, color=color, linestyle="--", linewidth=1, label=f"{flow} dropped (single pool)"
                )
            for s in (*LESSON_SPLITS, SENSITIVITY_SPLIT):
                ax.axvline(s, color=NEUTRAL, linestyle=":", linewidth=1)
                ax.text(
                    s,
                    0.99,
                    split_label(s),
                    transform=ax.get_xaxis_transform(),  # x in splits, y in axes height: scale-free
                    rotation=90,
                    ha="right",
                    va="top",
                    fontsize=8,
                    color=NEUTRAL,
                )
            self._marks.append(ax.axvline(0, color=LIMIT, linewidth=2, alpha=0.35))
            for flow, color in (("tracking", TRACKING), ("event", EVENT)):
                (self._markers[f"{day} {flow} dropped"],) = ax.plot([0], [0], "o", color=color, ms=9)
            ax.set_title(f"{day} day")
            ax.set_xlabel(f"split: tracking slots (event pool = {TOTAL} - split)")
            ax.set_xlim(0.5, TOTAL - 0.5)
            ax.grid(alpha=0.3)
        axes[0].set_ylabel("dropped requests in the 40 s run")
        for ax in axes:  # a fixed place (clear of five-digit ticks) spares measuring the tick labels
            ax.yaxis.set_label_coords(-0.14, 0.5)
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=4, frameon=False)
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


def _short(layout: str) -> str:
    return layout.split(" (")[0]  # "single pool (32)" -> "single pool": tick labels must not collide


def _bars(
    ax: Any, labels: list[str], left: Any, right: Any, colors: tuple[str, str], names: tuple[str, str]
) -> None:
    x = list(range(len(labels)))
    ax.bar([i - 0.2 for i in x], left, 0.4, color=colors[0], label=names[0])
    ax.bar([i + 0.2 for i in x], right, 0.4, color=colors[1], label=names[1])
    for i, (a, b) in enumerate(zip(left, right, strict=True)):
        ax.text(i - 0.2, a, str(a), ha="center", va="bottom")
        ax.text(i + 0.2, b, str(b), ha="center", va="bottom")
    ax.set_xticks(x, labels)
    ax.set_ylim(0, 1.35 * max(1, *left, *right))  # room for the legend above the bars
    ax.legend(loc="upper left", ncol=2)
    ax.grid(axis="x", visible=False)


def layout_figure(view: LayoutView, idle: IdleView | None = None) -> Figure:
    """Drops per flow for the single pool and the chosen layout on both days; beside it, if
    given, the idle slots the other pool held at each rejection (lost sharing)."""
    fig = _figure(
        10 if idle is not None else 6, 4.2, left=0.07, right=0.99, top=0.85, bottom=0.16, wspace=0.22
    )
    axes = fig.subplots(
        1, 2 if idle is not None else 1, squeeze=False, width_ratios=[3, 2][: 2 if idle else 1]
    )[0]
    frame = view.frame
    labels = [f"{_short(layout)}\n{day}" for layout, day in frame.index]
    _bars(
        axes[0],
        labels,
        frame["tracking dropped"],
        frame["event dropped"],
        (TRACKING, EVENT),
        ("tracking dropped", "event dropped"),
    )
    axes[0].set_ylabel("dropped requests in the 40 s run")
    axes[0].set_title("dropped requests per flow")
    if idle is not None:
        _idle_axes(axes[1], idle)
    title = f"Single pool ({TOTAL})" if view.split is None else f"Single pool ({TOTAL}) against {view.label}"
    fig.suptitle(title)
    return fig


def _idle_axes(ax: Any, view: IdleView) -> None:
    frame = view.frame
    labels = [f"{_short(layout)}\n{day}" for layout, day in frame.index]
    per = list(frame["idle slots per rejection"])
    x = list(range(len(labels)))
    ax.bar(x, per, 0.6, color=IDLE)
    for i, v in enumerate(per):
        ax.text(i, v, f"{v:.2f}", ha="center", va="bottom")
    ax.set_xticks(x, labels)
    ax.set_ylim(0, 1.2 * max(1.0, *per))
    ax.set_ylabel("idle slots next door per rejection")
    ax.set_title("lost sharing: idle slots at each rejection")
    ax.grid(axis="x", visible=False)


def idle_figure(view: IdleView) -> Figure:
    """At each rejection, how many slots sat idle in the other pool (zero in one pool by definition)."""
    fig = _figure(6, 4, left=0.12, right=0.98, top=0.9, bottom=0.16)
    _idle_axes(fig.subplots(), view)
    return fig


def occupancy_figure(view: OccupancyView) -> Figure:
    """Busy slots by flow, round by round around the failure: the single pool above, the bulkhead below.

    Both share one scale, the 32 slots: in the single pool the two flows' slots are stacked
    (whose slots the slow events take is what the picture shows); under the bulkhead the
    event compartment sits above the wall, so it can flood only up to its own ceiling.
    """
    n = 1 if view.split is None else 2
    fig = _figure(10, 2.6 + 2.3 * n, left=0.07, right=0.75, top=0.9, bottom=0.1, hspace=0.35)
    axes = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0]
    frame, total = view.frame, view.total
    rounds = frame.index
    single = axes[0]
    t, e = frame[view.SINGLE_TRACKING], frame[view.SINGLE_EVENT]
    single.stackplot(rounds, t, e, colors=[TRACKING, EVENT], labels=["tracking slots", "event slots"])
    single.set_title(f"one shared pool of {total}: the slow events take the tracking flow's slots")
    if view.split is not None:
        bulk, wall = axes[1], view.split
        bulk.fill_between(
            rounds, 0, frame["tracking pool"], color=TRACKING, step="post", label="tracking slots"
        )
        bulk.fill_between(
            rounds, wall, wall + frame["event pool"], color=EVENT, step="post", label="event slots"
        )
        bulk.axhline(wall, color=LIMIT, linewidth=2, label=f"the wall: {split_label(wall, total)}")
        bulk.set_title(f"bulkhead {split_label(wall, total)}: the event compartment floods up to its ceiling")
    for ax in axes:
        ax.axhline(total, color=LIMIT, linestyle="--", linewidth=1, label=f"all {total} slots")
        ax.axvline(view.start, color=FAILURE, linewidth=1.5, label="failure starts")
        ax.set_ylabel("busy slots")
        ax.set_ylim(0, total + 2)
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
    axes[-1].set_xlabel("round (100 rounds = 1 s); busy slots counted at each round's start")
    fig.suptitle("Who holds the slots around the failure (slowdown day)")
    return fig


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


def compartment_figure(view: CompartmentView, columns: int = 4) -> Figure:
    """Each pool drawn as a compartment of slots, filled from the bottom: tracking's slots, then events'."""
    fig = _figure(7.5, 4.6, left=0.01, right=0.99, top=0.9, bottom=0.01)
    ax = fig.subplots()
    patches: list[Rectangle] = []
    colors: list[str] = []
    x0 = 0.0
    gap = 1.5
    bulkhead_x = 0.0
    for pool, row in view.frame.iterrows():
        slots, tracking, event = int(row["slots"]), int(row["tracking"]), int(row["event"])
        busy = tracking + event
        for i in range(slots):
            col, level = i % columns, i // columns
            patches.append(Rectangle((x0 + col, level), 0.9, 0.9))
            colors.append(TRACKING if i < tracking else EVENT if i < busy else "white")
        ax.add_patch(Polygon(_outline(x0, slots, columns), closed=True, fill=False, linewidth=2))
        full = " FULL" if busy >= slots else ""
        who = f"{tracking} tracking + {event} event" if str(pool).startswith("single") else f"{busy} busy"
        ax.text(x0 + columns / 2, -0.5, f"{pool}\n{who}{full}", ha="center", va="top")
        height = math.ceil(slots / columns)
        if str(pool).startswith("single"):
            ax.text(x0 + columns / 2, height + 0.4, "one shared pool", ha="center", weight="bold")
            x0 += gap  # keep the two layouts apart
            bulkhead_x = x0 + columns + gap
        elif str(pool).startswith("tracking"):
            ax.text(
                bulkhead_x + columns + gap / 2,
                TOTAL / columns - 0.6,
                f"bulkhead {view.frame.loc[pool, 'layout']}",
                ha="center",
                weight="bold",
            )
        x0 += columns + gap
    ax.add_collection(PatchCollection(patches, facecolors=colors, edgecolors="0.5", linewidths=0.5))
    ax.set_xlim(-0.5, x0 - gap + 0.5)
    ax.set_ylim(-2.4, TOTAL / columns + 1)
    ax.set_aspect("equal")
    ax.axis("off")
    phase = (
        f"{view.round - view.start} rounds into the failure"
        if view.failing
        else f"{view.start - view.round} rounds before the failure"
    )
    ax.set_title(
        f"round {view.round} ({phase}); blue: tracking, orange: events, white: free",
        color=FAILURE if view.failing else LIMIT,
    )
    return fig
