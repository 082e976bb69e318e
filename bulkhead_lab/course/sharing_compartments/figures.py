"""Notebook 09's figures: each flow's drops along a slider on both days (kept, redrawn in place), and the
design task's day as calls in flight."""

from __future__ import annotations

from matplotlib.artist import Artist
from matplotlib.figure import Figure

from bulkhead_lab.compartments import design
from bulkhead_lab.compartments.partition_sweep import Curves, drops, lesson_layouts
from bulkhead_lab.course.ui.blit import KeptFigure, spines
from bulkhead_lab.course.ui.style import EVENT, EXTRA, LIMIT, NEUTRAL, TRACKING
from bulkhead_lab.course.ui.style import figure as _figure

FLOWS = (("tracking dropped", TRACKING), ("event dropped", EVENT))
CAP = 60.0  # the day figure's scale, in calls in flight: reports' hung calls run off it


class StopsFigure(KeptFigure):
    """Drops per flow at every stop of a slider, healthy day left, slowdown day right; lesson 000's 24/8
    dashed for each flow; the stop chosen marked. The curves are drawn once: a move moves the mark."""

    def __init__(self, curves: Curves, xlabel: str, ticks: list[str]) -> None:
        super().__init__(10, 3.8, left=0.07, right=0.99, top=0.8, bottom=0.17, wspace=0.18)
        _, split = lesson_layouts()
        self._axes = self.figure.subplots(1, 2)
        self._marks = []
        for ax, day in zip(self._axes, ("healthy", "slowdown"), strict=True):
            for name, color in FLOWS:
                ax.plot(curves.xs, curves.drops[day][name], "o-", ms=3, color=color, label=name)
                ax.axhline(drops(split[day])[name], color=color, linestyle="--", linewidth=1)
            ax.set_title(f"{day} day (dashed: 24/8)")
            ax.set_xticks(curves.xs, ticks)
            ax.set_xlabel(xlabel)
            self._marks.append(ax.axvline(curves.chosen, color=LIMIT, linewidth=6, alpha=0.15))
        self._axes[0].set_ylabel("dropped calls in the 40 s run")
        self._axes[0].legend(loc="upper left")
        self._title = self.figure.suptitle("")

    def update(self, curves: Curves) -> StopsFigure:
        at = curves.at()
        for mark in self._marks:
            mark.set_xdata([curves.chosen] * 2)
        healthy, slow = at["healthy"], at["slowdown"]
        self._title.set_text(
            f"{curves.label}: healthy {healthy['tracking dropped']} + {healthy['event dropped']}, "
            f"slowdown {slow['tracking dropped']} + {slow['event dropped']} (tracking + events dropped)"
        )
        return self

    def moving(self) -> list[Artist]:
        return [*self._marks, *spines(*self._axes), self._title]


def day_figure() -> Figure:
    """The design task's day: each flow's calls in flight by Little's Law (rate x latency), stacked,
    against the service's slots; what runs off the scale is written on it."""
    fig = _figure(10, 3.4, left=0.07, right=0.8, top=0.86, bottom=0.16)
    ax = fig.subplots()
    times = [t / 2 for t in range(int(2 * design.DURATION) + 1)]
    below = [0.0] * len(times)
    for flow, color in zip(design.DAY, (TRACKING, EXTRA[0], EVENT), strict=True):
        load = [flow.at(t)[0] * flow.at(t)[1] for t in times]
        top = [b + x for b, x in zip(below, load, strict=True)]
        ax.fill_between(times, below, top, color=color, alpha=0.6, linewidth=0, label=flow.name)
        below = top
        peak = max(load)
        if peak > CAP:
            t = times[load.index(peak)]
            ax.annotate(
                f"{flow.name}: {peak:g} in flight",
                (t, CAP),
                xytext=(t - 200, CAP * 0.85),
                arrowprops={"arrowstyle": "->"},
            )
    ax.axhline(design.SLOTS, color=NEUTRAL, linestyle="--", label=f"the service's {design.SLOTS} slots")
    ax.set_ylim(0, CAP)
    ax.set_xlim(0, design.DURATION)
    ax.set_xlabel("seconds into the ten minutes")
    ax.set_ylabel("calls in flight (rate x latency)")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.set_title(
        "The day you design for: a search surge, then reports' dependency hangs and its callers retry"
    )
    return fig
