"""Notebook 03's figures, of one batch: each request's latency by stream, and the concurrency each
dependency saw."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from bulkhead_lab.course.pool_placement.views import describe
from bulkhead_lab.course.ui.style import EVENT, NEUTRAL, REFUSED, TRACKING, figure
from bulkhead_lab.live.placement.batch import PlacementResult

NOTIFICATION_COLOR = EVENT  # the slow dependency
CATALOG_COLOR = TRACKING  # the healthy neighbour


def latency_axes(ax: Any, result: PlacementResult) -> None:
    """Each request's time from the batch's start to its answer, by stream."""
    notif, k = result.latencies_ms["notification"], result.skip
    ax.scatter(range(result.n), result.latencies_ms["catalog"], s=12, color=CATALOG_COLOR, label="catalog")
    ax.scatter(range(k, result.n), notif[k:], s=12, color=NOTIFICATION_COLOR, label="notification")
    if k:
        ax.scatter(range(k), notif[:k], s=28, marker="x", color=REFUSED, label="skipped call site")
    first = min(notif) if notif else 0.0
    ax.axhline(first, color=NEUTRAL, lw=1.0, ls=":", label="first notification answer")
    ax.set(xlabel="request", ylabel="latency, ms", title="each request's latency")
    _legend_below(ax)


def concurrency_axes(ax: Any, result: PlacementResult) -> None:
    """Open requests each dependency saw over time, with the pool limits as dashed lines."""
    for stream, color in (("notification", NOTIFICATION_COLOR), ("catalog", CATALOG_COLOR)):
        points = result.timelines.get(stream) or [(0.0, 0)]
        ax.step(
            [t * 1000 for t, _ in points], [o for _, o in points], where="post", color=color, label=stream
        )
    if result.placement == "single":
        ax.axhline(result.notif + result.cat, color=NEUTRAL, ls="--", lw=1.0, label="shared pool limit")
    else:
        ax.axhline(result.notif, color=NOTIFICATION_COLOR, ls="--", lw=0.9, label="notification pool")
        ax.axhline(result.cat, color=CATALOG_COLOR, ls="--", lw=0.9, label="catalog pool")
    ax.set(
        xlabel="time since the batch started, ms",
        ylabel="open requests",
        title="concurrency each dependency saw",
    )
    _legend_below(ax)


def _legend_below(ax: Any) -> None:
    """The legend under the axes, off the data, in two columns."""
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=9)


def placement_figure(result: PlacementResult) -> Figure:
    """Latency by stream (left) and the concurrency each dependency saw (right) for one batch."""
    fig = figure(10, 4.2, left=0.07, right=0.98, bottom=0.3, top=0.86, wspace=0.22)
    left, right = fig.subplots(1, 2)
    latency_axes(left, result)
    concurrency_axes(right, result)
    fig.suptitle(describe(result), fontsize=10)
    return fig
