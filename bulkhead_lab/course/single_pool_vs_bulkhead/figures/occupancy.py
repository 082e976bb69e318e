"""The occupancy figure: who holds the slots, round by round, around the failure."""

from __future__ import annotations

from typing import Any

from matplotlib.artist import Artist
from matplotlib.figure import Figure

from bulkhead_lab.course.single_pool_vs_bulkhead.views import OccupancyView
from bulkhead_lab.course.ui.blit import KeptFigure, moving_title, spines
from bulkhead_lab.course.ui.style import EVENT, FAILURE, LIMIT, TRACKING
from bulkhead_lab.pool.params import split_label


class OccupancyFigure(KeptFigure):
    """Busy slots by flow, round by round around the failure: the single pool above, the bulkhead below.

    Both share one scale, the 32 slots: in the single pool the two flows' slots are stacked
    (whose slots the slow events take is what the picture shows); under the bulkhead the
    event compartment sits above the wall, so it can flood only up to its own ceiling.
    Kept by the occupancy panel: the areas, the wall and the bulkhead's title move; the
    frame is drawn again when the failure round moves the window of rounds shown.
    """

    def __init__(self) -> None:
        super().__init__(10, 7.2, left=0.07, right=0.75, top=0.9, bottom=0.1, hspace=0.35)
        self._split_shown: bool | None = None
        self._areas: list[Any] = []

    def _layout(self, split: bool, total: int) -> None:
        self._split_shown = split
        n = 2 if split else 1
        self._size = (10, 2.6 + 2.3 * n)
        fig = self.rebuild()
        axes = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0]
        self._axes = tuple(axes)
        self._areas = []
        single = axes[0]
        for color, label in ((TRACKING, "tracking slots"), (EVENT, "event slots")):
            single.fill_between([], [], color=color, label=label)  # legend entries; areas come in update
        single.set_title(f"one shared pool of {total}: the slow events take the tracking flow's slots")
        self._wall = None
        if split:
            bulk = axes[1]
            for color, label in ((TRACKING, "tracking slots"), (EVENT, "event slots")):
                bulk.fill_between([], [], color=color, label=label)
            (self._wall,) = bulk.plot([], [], color=LIMIT, linewidth=2, label="the wall (split)")
            self._bulk_title = moving_title(bulk, fontsize="large")
        self._failures = []
        for ax in axes:
            ax.axhline(total, color=LIMIT, linestyle="--", linewidth=1, label=f"all {total} slots")
            self._failures.append(ax.axvline(0, color=FAILURE, linewidth=1.5, label="failure starts"))
            ax.set_ylabel("busy slots")
            ax.set_ylim(0, total + 2)
            ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
        axes[-1].set_xlabel("round (100 rounds = 1 s); busy slots counted at each round's start")
        fig.suptitle("Who holds the slots around the failure (slowdown day)")

    def update(self, view: OccupancyView) -> OccupancyFigure:
        """Show ``view``: each flow's slots in both layouts, the wall, the failure round."""
        if self._split_shown != (view.split is not None):
            self._layout(view.split is not None, view.total)
        for area in self._areas:
            area.remove()
        frame = view.frame
        rounds = list(frame.index)
        t, e = list(frame[view.SINGLE_TRACKING]), list(frame[view.SINGLE_EVENT])
        self._areas = list(
            self._axes[0].stackplot(rounds, t, e, colors=[TRACKING, EVENT], labels=["tracking", "event"])
        )
        if view.split is not None and self._wall is not None:
            bulk, wall = self._axes[1], view.split
            top = [wall + v for v in frame["event pool"]]
            self._areas.append(
                bulk.fill_between(rounds, 0, list(frame["tracking pool"]), color=TRACKING, step="post")
            )
            self._areas.append(bulk.fill_between(rounds, wall, top, color=EVENT, step="post"))
            self._wall.set_data([rounds[0], rounds[-1]], [wall, wall])
            self._bulk_title.set_text(
                f"bulkhead {split_label(wall, view.total)}: the event compartment floods up to its ceiling"
            )
        for line in self._failures:
            line.set_xdata([view.start] * 2)
        for ax in self._axes:
            ax.set_xlim(rounds[0], rounds[-1])
        return self

    def frame_key(self) -> object:
        return self._axes[0].get_xlim(), tuple(line.get_xdata()[0] for line in self._failures)

    def moving(self) -> list[Artist]:
        extra = [self._wall, self._bulk_title] if self._wall is not None else []
        return [*self._areas, *spines(*self._axes), *extra]


def occupancy_figure(view: OccupancyView) -> Figure:
    """Busy slots by flow around the failure (an :class:`OccupancyFigure` drawn once)."""
    return OccupancyFigure().update(view).figure
