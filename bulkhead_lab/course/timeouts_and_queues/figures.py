"""Notebook 07's figures: the storm over time, the limits at the dependency's knee (numbers from
:mod:`.views`) and the live storm's goodput (from :mod:`.live`), goodput in the further series' green."""

from __future__ import annotations

from typing import Any

from matplotlib.artist import Artist
from matplotlib.figure import Figure

from bulkhead_lab.course.timeouts_and_queues import live
from bulkhead_lab.course.timeouts_and_queues.views import StormView
from bulkhead_lab.course.ui.blit import KeptFigure, moving_title, nice_ceiling, spines
from bulkhead_lab.course.ui.style import EVENT, EXTRA, FAILURE, IDLE, LIMIT, NEUTRAL, REFUSED, figure
from bulkhead_lab.live.orders.reading.metastable import LiveStorm
from bulkhead_lab.pool.params import CYCLE
from bulkhead_lab.queues import knee, timeouts
from bulkhead_lab.queues.rounds import QueueRun
from bulkhead_lab.queues.settings import Dependency, Slowdown

LINES: dict[str, dict[str, Any]] = {
    "requests": {"color": NEUTRAL, "linestyle": ":", "linewidth": 1.5, "label": "new requests"},
    "healthy goodput": {"color": NEUTRAL, "linewidth": 1, "label": "goodput, healthy day"},
    "offered": {"color": EVENT, "linewidth": 2, "label": "offered: requests + retries"},
    "goodput": {"color": EXTRA[0], "linewidth": 2, "label": "goodput: answered in time"},
    "wasted": {"color": REFUSED, "linewidth": 1.5, "label": "wasted: served for no one"},
}


class StormFigure(KeptFigure):
    """Calls/s over the run (top) and the calls waiting in the dependency's queue (bottom), the
    slowdown shaded. Kept by the panel: the lines and the title move; the frame is drawn again when
    a scale steps."""

    def __init__(self) -> None:
        super().__init__(10, 5.4, left=0.08, right=0.74, top=0.9, bottom=0.1, hspace=0.12)
        self._trigger: Slowdown | None = None  # the slowdown shaded

    def _layout(self, view: StormView) -> None:
        fig = self.rebuild()
        self._calls, self._queue = fig.subplots(2, 1, sharex=True, height_ratios=(2, 1))
        self._lines = {k: self._calls.plot([], [], **style)[0] for k, style in LINES.items()}
        capacity = view.storm.run.setup.dependency.capacity * CYCLE
        self._calls.axhline(capacity, color=LIMIT, linestyle="--", linewidth=1, label="what it serves")
        (self._waiting,) = self._queue.plot([], [], color=IDLE, linewidth=2, label="calls in its queue")
        slow = self._trigger = view.storm.trigger
        span = (slow.start / CYCLE, slow.stop / CYCLE)
        for ax, label in ((self._calls, "calls/s"), (self._queue, "calls waiting")):
            ax.axvspan(*span, color=FAILURE, alpha=0.12, linewidth=0, label="the slowdown")
            ax.set_xlim(0, view.time[-1] + view.time[1])
            ax.set_ylabel(label)
            ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5))
        self._queue.set_xlabel("time (s)")
        self._title = moving_title(self._calls, fontsize="large")

    def update(self, view: StormView) -> StormFigure:
        if self._trigger != view.storm.trigger:
            self._layout(view)
        for key, line in self._lines.items():
            line.set_data(view.time, view.series[key])
        self._waiting.set_data(view.time, view.series["queue"])
        top = max(max(view.series["offered"]), view.storm.run.setup.dependency.capacity * CYCLE)
        self._calls.set_ylim(0, nice_ceiling(top * 1.05))
        self._queue.set_ylim(0, nice_ceiling(max(view.series["queue"]) * 1.1))
        self._title.set_text(view.label)
        return self

    def frame_key(self) -> object:
        return self._calls.get_ylim(), self._queue.get_ylim()

    def moving(self) -> list[Artist]:
        return [*self._lines.values(), self._waiting, *spines(self._calls, self._queue), self._title]


def storm_figure(view: StormView) -> Figure:
    """The storm over time (a :class:`StormFigure` drawn once)."""
    return StormFigure().update(view).figure


LIMIT_STYLES: dict[str, dict[str, Any]] = {
    "fixed at the knee (8)": {"color": LIMIT, "linewidth": 1.5},
    "fixed, too high (200)": {"color": NEUTRAL, "linewidth": 1.5, "linestyle": "--"},
    "Vegas": {"color": EXTRA[0], "linewidth": 1.5},
    "Gradient2": {"color": EXTRA[1], "linewidth": 1.5},
}


def knee_figure(runs: dict[str, QueueRun], dependency: Dependency, timeout: int) -> Figure:
    """Left: a call's latency against the calls in flight (the knee at the workers). Right: each
    bulkhead's limit over an overloaded run, beside the knee and the most that still answers in time."""
    fig = figure(10, 4.0, left=0.07, right=0.74, top=0.86, bottom=0.14, wspace=0.28)
    curve, over = fig.subplots(1, 2)
    edge = dependency.workers + timeouts.longest_queue(dependency, timeout)
    flights = list(range(1, 2 * edge + 1))
    curve.plot(flights, [knee.latency_at(dependency, n) for n in flights], color=EVENT, linewidth=2)
    curve.axhline(timeout, color=REFUSED, linestyle=":", linewidth=1.5, label="the callers' timeout")
    curve.axvline(dependency.workers, color=LIMIT, linestyle="--", linewidth=1, label="the knee: its workers")
    curve.set_xlabel("calls in flight at the dependency")
    curve.set_ylabel("latency (rounds)")
    curve.set_title("latency grows past the knee")
    for name, run in runs.items():
        time = [t / CYCLE for t in range(run.trace.rounds)]
        over.plot(time, run.trace.limit, label=name, **LIMIT_STYLES.get(name, {}))
    over.axhline(dependency.workers, color=LIMIT, linestyle="--", linewidth=1)
    over.axhline(edge, color=REFUSED, linestyle=":", linewidth=1.5, label="answered in time up to here")
    over.set_yscale("log")
    over.set_xlabel("time (s)")
    over.set_ylabel("bulkhead limit (log)")
    over.set_title(f"the callers' limit under {knee.OVERLOAD:g} calls/s")
    fig.legend(loc="center left", bbox_to_anchor=(0.75, 0.5))  # both panels' labelled lines
    fig.suptitle("A dependency with a queue: where a limit should sit")
    return fig


def live_figure(storms: tuple[LiveStorm, ...]) -> Figure:
    """Orders answered in time per second, no fix against the fix, on real sockets; Payment's slow
    seconds shaded, the load dotted."""
    fig = figure(10, 3.6, left=0.07, right=0.74, top=0.86, bottom=0.16)
    ax = fig.subplots()
    # Where both runs answer the same (before the slowdown) the lines would lie on one another: the
    # first is drawn wide underneath, the second narrow on top, so both show; 0 sits above the axis.
    for storm, colour, width in zip(storms, (REFUSED, EXTRA[0]), (5, 2), strict=True):
        label = f"goodput, {live.NAMES[storm.fix]}"
        ax.step(*live.series(storm), where="post", color=colour, linewidth=width, label=label)
    load = storms[0].load
    ax.axhline(load.rate, color=NEUTRAL, linestyle=":", linewidth=1.5, label="orders sent (the load)")
    ax.axvspan(load.healthy_for, load.healed, color=FAILURE, alpha=0.12, linewidth=0, label="Payment slow")
    ax.set_xlim(0, load.seconds)
    ax.set_ylim(-load.rate * 0.06, load.rate * 1.6)
    ax.set_yticks([t for t in ax.get_yticks() if 0 <= t <= load.rate * 1.6])
    ax.set_xlabel("time (s)")
    ax.set_ylabel("orders answered in time / s")
    ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.suptitle("Live: lesson 004's Order Service, callers with a 1 s timeout, a queued Payment")
    return fig
