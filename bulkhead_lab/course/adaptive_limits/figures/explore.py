"""The explore panel's figure: each flow's limit and in-flight calls through the run, and the drops."""

from __future__ import annotations

from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from bulkhead_lab.course.adaptive_limits.figures.bars import bar_pairs, set_pairs
from bulkhead_lab.course.adaptive_limits.views import BIN, ExploreView
from bulkhead_lab.course.ui.blit import KeptFigure, nice_ceiling, spines
from bulkhead_lab.course.ui.style import EVENT, FAILURE, LIMIT, NEUTRAL, TRACKING
from bulkhead_lab.pool.params import LESSON_SPLIT

GROUPS = ("one pool", "24/8", "adaptive")


class ExploreFigure(KeptFigure):
    """Left: the tracking and the event flow, each its limit (black) and its calls in flight, through
    the slowdown day, the fixed wall dashed and the slowdown's start and end marked. Right: dropped
    requests per flow for one pool, 24/8 and the algorithm, on each day.

    Kept by the explore panel: the limits, the in-flight curves, the slowdown's end, the bars and
    the title move (the bars' numbers are the table's, under the figure); the bars' scales move
    in steps (a new step draws the frame).
    """

    def __init__(self, total: int = 32, rounds: int = 4000, start: int = 1000) -> None:
        super().__init__(10, 6.2, left=0.07, right=0.99, top=0.84, bottom=0.1, hspace=0.32, wspace=0.3)
        fig = self.figure
        grid = fig.add_gridspec(2, 2, width_ratios=[2.3, 1])
        flows = fig.add_subplot(grid[0, 0])
        events = fig.add_subplot(grid[1, 0], sharex=flows)
        healthy, slowdown = fig.add_subplot(grid[0, 1]), fig.add_subplot(grid[1, 1])
        self._lines: list[Line2D] = []
        self._ends: list[Line2D] = []
        walls = (LESSON_SPLIT, total - LESSON_SPLIT)
        for ax, flow, color, wall in (
            (flows, "tracking", TRACKING, walls[0]),
            (events, "event", EVENT, walls[1]),
        ):
            (inflight,) = ax.plot(
                [], [], color=color, linewidth=1, label=f"in flight, {flow} (mean of {BIN} rounds)"
            )
            (limit,) = ax.plot(
                [], [], color=LIMIT, linewidth=1.4, drawstyle="steps-post", label="adaptive limit"
            )
            ax.axhline(wall, color=NEUTRAL, linestyle="--", linewidth=1.2, label="24/8's fixed wall")
            ax.axvline(start, color=FAILURE, linewidth=1.5, label="slowdown starts")
            self._ends.append(
                ax.axvline(rounds, color=FAILURE, linewidth=1.5, linestyle=":", label="slowdown ends")
            )
            self._lines += [inflight, limit]
            ax.set_ylim(0, total + 2)
            ax.set_xlim(0, rounds)
            ax.set_ylabel(f"{flow}: slots")
        events.set_xlabel("round (100 rounds = 1 s), slowdown day")
        flows.tick_params(labelbottom=False)
        self._bars = []
        for ax, day in ((healthy, "healthy"), (slowdown, "slowdown")):
            self._bars.append(bar_pairs(ax, len(GROUPS), numbers=False))
            ax.set_xticks(range(len(GROUPS)), GROUPS)
            ax.set_title(f"{day} day: dropped", fontsize="medium")
            ax.set_ylabel("requests")
            ax.grid(axis="x", visible=False)
        handles, labels = [], []
        for ax in (flows, events):
            for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
                if label not in labels:
                    handles.append(handle)
                    labels.append(label)
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.935), ncol=3, fontsize=8)
        self._axes = (flows, events, healthy, slowdown)
        self._title = fig.suptitle("")

    def update(self, view: ExploreView) -> ExploreFigure:
        """Show ``view``: its limits and in-flight curves, the slowdown's end, the drops and the title."""
        rounds = range(len(view.event_limit))
        bins = list(view.bins)
        series = (
            (bins, view.tracking_inflight),
            (rounds, view.tracking_limit),
            (bins, view.event_inflight),
            (rounds, view.event_limit),
        )
        for line, (x, y) in zip(self._lines, series, strict=True):
            line.set_data(list(x), list(y))
        lasts = view.stop >= len(view.event_limit)
        for end in self._ends:
            end.set_xdata([view.stop] * 2)
            end.set_visible(not lasts)
        frame = view.frame
        for (tracking, event, numbers), day, ax in zip(
            self._bars, ("healthy", "slowdown"), self._axes[2:], strict=True
        ):
            values = [
                (int(t), int(e))
                for t, e in zip(frame[f"{day} tracking dropped"], frame[f"{day} event dropped"], strict=True)
            ]
            set_pairs(tracking, event, numbers, values)
            ax.set_ylim(0, nice_ceiling(1.2 * max(max(v) for v in values)))
        length = "to the end of the run" if lasts else f"for {view.length} rounds"
        self._title.set_text(
            f"{view.label}: slowdown of {view.slow}-round calls {length}; "
            f"event limit {view.event_before} -> lowest {view.event_lowest}"
        )
        return self

    def frame_key(self) -> object:
        return tuple(ax.get_ylim() for ax in self._axes[2:])

    def moving(self) -> list[Artist]:
        bars = [artist for tracking, event, numbers in self._bars for artist in (*tracking, *event)]
        return [*self._lines, *self._ends, *bars, *spines(*self._axes), self._title]


def explore_figure(view: ExploreView) -> Figure:
    """One algorithm through the slowdown day (an :class:`ExploreFigure` drawn once)."""
    return ExploreFigure().update(view).figure
