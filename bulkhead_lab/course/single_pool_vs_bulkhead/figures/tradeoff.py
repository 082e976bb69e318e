"""The trade-off figure: dropped requests per flow against every split, on both days."""

from __future__ import annotations

from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from bulkhead_lab.course.single_pool_vs_bulkhead.views import LESSON_SPLITS, SENSITIVITY_SPLIT, TradeoffView
from bulkhead_lab.course.ui.blit import KeptFigure, nice_ceiling, spines
from bulkhead_lab.course.ui.style import EVENT, LIMIT, NEUTRAL, TRACKING
from bulkhead_lab.pool.params import TOTAL, split_label

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
    return nice_ceiling(1.12 * max(float(v) for v in top_values) + 1)


class TradeoffFigure(KeptFigure):
    """The trade-off figure, kept by a panel and redrawn in place on every slider move.

    A move changes the curves, the single pool's levels, the marked split and the title;
    the y scale moves in steps (a new step draws the frame again). The frame (axes, day
    titles, legend, the lesson's splits) never changes otherwise. So the frame is rendered
    once and kept as pixels, and :meth:`png` paints only what moved on top of it (see
    :class:`~bulkhead_lab.course.ui.blit.KeptFigure`): a redraw costs a title and a few lines
    instead of the whole figure's ~40 text labels.
    """

    def __init__(self) -> None:
        super().__init__(10, 4.6, left=0.085, right=0.98, top=0.86, bottom=0.22, wspace=0.05)
        fig = self.figure
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

    def frame_key(self) -> object:
        return self._axes[0].get_ylim()  # the y scale moves in steps; its axis is part of the frame

    def moving(self) -> list[Artist]:
        # In drawing order: the lines, the axes' edges over them, the title last.
        return [
            *self._levels.values(),
            *self._curves.values(),
            *self._marks,
            *self._markers.values(),
            *spines(*self._axes),
            self._title,
        ]
