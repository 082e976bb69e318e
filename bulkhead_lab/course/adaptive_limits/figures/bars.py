"""Drops per flow as grouped bars: the comparison table's figure, and the explore panel's bars."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from matplotlib.figure import Figure

from bulkhead_lab.course.adaptive_limits.views import ComparisonView
from bulkhead_lab.course.ui.style import EVENT, TRACKING
from bulkhead_lab.course.ui.style import figure as _figure

DAYS = ("healthy", "slowdown")
FLOWS = (("tracking", TRACKING, -0.2), ("event", EVENT, 0.2))


def bar_pairs(ax: Any, groups: int, numbers: bool = True) -> tuple[list[Any], list[Any], list[Any]]:
    """Two bars per group (tracking left, event right) of height 0, and (if asked) a number over each."""
    bars: list[list[Any]] = []
    for flow, color, dx in FLOWS:
        bars.append(
            list(
                ax.bar(
                    [i + dx for i in range(groups)], [0] * groups, 0.4, color=color, label=f"{flow} dropped"
                )
            )
        )
    texts = [
        ax.text(b.get_x() + b.get_width() / 2, 0, "", ha="center", va="bottom", fontsize=8)
        for b in bars[0] + bars[1]
        if numbers
    ]
    return bars[0], bars[1], texts


def set_pairs(
    tracking: list[Any], event: list[Any], numbers: list[Any], values: Sequence[tuple[int, int]]
) -> None:
    """Heights and numbers of :func:`bar_pairs`' bars: ``values`` is (tracking, event) per group."""
    heights = [v[0] for v in values] + [v[1] for v in values]
    for bar, height in zip(tracking + event, heights, strict=True):
        bar.set_height(height)
    for text, height in zip(numbers, heights, strict=False):  # no numbers: nothing to set
        text.set_y(height)
        text.set_text(str(height))


def comparison_figure(view: ComparisonView, flows: str = "both") -> Figure:
    """Dropped requests per flow, each layout of the comparison table, on the healthy and the slowdown day."""
    rows = getattr(view, flows)
    fig = _figure(10, 4.4, left=0.08, right=0.99, top=0.8, bottom=0.16, wspace=0.12)
    axes = fig.subplots(1, 2, sharey=True)
    names = [row.name.replace(" (", "\n(") for row in rows]
    top = 0
    for ax, day in zip(axes, DAYS, strict=True):
        tracking, event, numbers = bar_pairs(ax, len(rows))
        counters = [getattr(row, day) for row in rows]
        values = [(c.tracking_dropped, c.event_dropped) for c in counters]
        set_pairs(tracking, event, numbers, values)
        top = max(top, *(max(v) for v in values))
        ax.set_xticks(range(len(rows)), names)
        ax.set_title(f"{day} day")
        ax.grid(axis="x", visible=False)
    axes[0].set_ylim(0, 500 * math.ceil(1.1 * top / 500))
    axes[0].set_ylabel("dropped requests in the 40 s run")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.91), ncol=2)
    who = "each flow its own limiter" if flows == "both" else "a limiter on the event flow only"
    fig.suptitle(f"Same traffic, same 32 slots: fixed walls against adaptive limits ({who})")
    return fig
