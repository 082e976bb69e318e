"""Notebook 04's figures: each request's life by stream, and the calls each dependency held at once.

Plain :class:`~matplotlib.figure.Figure` objects (never pyplot), drawn from one
:class:`~bulkhead_lab.live.load.OrdersRun`.
"""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from ...live.load import OrdersRun
from ..style import EVENT, LIMIT, REFUSED, TRACKING
from .views import run_label

# Payment is the dependency that slows (the event role), Inventory the healthy neighbour.
OUTCOME_COLORS = {"served": EVENT, "refused": REFUSED, "failed": LIMIT, "no answer": LIMIT}
STOCK_COLOR = TRACKING
DEPENDENCY_COLORS = {"payment": EVENT, "inventory": TRACKING}


def _timeline_axes(ax: Any, r: OrdersRun) -> None:
    top = 1
    for name, points in r.timelines.items():
        if not points:
            continue
        t = [p[0] for p in points] + [r.duration]
        n = [p[1] for p in points] + [points[-1][1]]
        ax.step(t, n, where="post", color=DEPENDENCY_COLORS.get(name, "gray"), label=f"{name} open calls")
        top = max(top, max(n))
    s = r.settings
    if s is not None:
        limit = s.pool if s.variant == "shared" else s.limit
        ax.axhline(limit, color="0.4", linestyle="--", linewidth=1, label=f"pool limit {limit}")
        top = max(top, limit)
    ax.set_ylim(0, top + 1.5)
    ax.set_ylabel("calls at once")
    ax.set_xlabel("seconds since the orders were sent")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")


def _requests_axes(ax: Any, r: OrdersRun) -> None:
    ticks: list[float] = []
    labels: list[str] = []
    y = 0.0
    for kind in ("stock", "order"):
        for x in sorted(r.of(kind), key=lambda x: x.index):
            color = STOCK_COLOR if kind == "stock" and x.outcome == "served" else OUTCOME_COLORS[x.outcome]
            ax.plot([x.start, x.end], [y, y], color=color, linewidth=2.2, solid_capstyle="butt")
            ax.plot([x.end], [y], marker="x" if x.outcome == "refused" else "|", color=color, markersize=5)
            y += 1
        ticks.append(y - len(r.of(kind)) / 2 - 0.5)
        labels.append("stock checks" if kind == "stock" else "orders")
        y += 1.5
    ax.set_yticks(ticks, labels)
    ax.invert_yaxis()
    ax.grid(axis="x", alpha=0.3)
    handles = [
        ax.plot([], [], color=OUTCOME_COLORS["served"], linewidth=3, label="order served")[0],
        ax.plot([], [], color=OUTCOME_COLORS["refused"], linewidth=3, label="order refused (503)")[0],
        ax.plot([], [], color=STOCK_COLOR, linewidth=3, label="stock check")[0],
    ]
    ax.legend(handles=handles, fontsize=8, loc="lower right", bbox_to_anchor=(1, 1), ncol=3, frameon=False)
    ax.set_title("each request, from sent to answered", fontsize=10, loc="left")


def orders_figure(r: OrdersRun) -> Figure:
    """Above: each request's life by stream. Below: the calls Payment and Inventory held at once."""
    fig = Figure(figsize=(10, 5.6))
    fig.subplots_adjust(left=0.12, right=0.98, top=0.88, bottom=0.09, hspace=0.3)
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[3, 2])
    _requests_axes(top, r)
    _timeline_axes(bottom, r)
    slow = f"Payment slow ({r.slow_latency:g} s)" if r.slow else "Payment healthy"
    fig.suptitle(f"{run_label(r)}, {slow}")
    return fig


def concurrency_figure(r: OrdersRun) -> Figure:
    """Only the concurrency each dependency saw over time."""
    fig = Figure(figsize=(10, 2.8))
    fig.subplots_adjust(left=0.12, right=0.98, top=0.86, bottom=0.18)
    _timeline_axes(fig.subplots(), r)
    fig.suptitle(f"{run_label(r)}: calls each dependency held at once")
    return fig
