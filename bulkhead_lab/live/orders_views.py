"""Notebook 04's tables, figures and live panel for lesson 004's Order Service.

Everything here reads :class:`~.orders.OrdersRun` objects that :func:`run` measured on
real sockets in this session: pandas tables like the lesson's, a figure of each request's
life by stream above the concurrency Payment and Inventory saw, the invariant facts of a
run as plain lines (for nbval to compare), and :func:`orders_panel`, sliders over the
variant's sizes and Payment's slowdown with a progress bar while a live run is in flight.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Sequence
from typing import Any

import ipywidgets as w
import pandas as pd
from matplotlib.figure import Figure

from ..plots import to_png
from ..widgets import LiveProgress, SliderView, slider
from . import orders
from .orders import OrdersRun, check_orders, keepalive_facts, run_orders
from .runner import run_sync

OUTCOME_COLORS = {"served": "tab:blue", "refused": "tab:red", "failed": "black", "no answer": "black"}
STOCK_COLOR = "tab:green"
DEPENDENCY_COLORS = {"payment": "tab:blue", "inventory": "tab:green"}

__all__ = [
    "checks_table",
    "concurrency_figure",
    "facts",
    "keepalive_facts_text",
    "keepalive_table",
    "orders_figure",
    "orders_panel",
    "requests_table",
    "run",
    "summary_table",
]


def run(variant: str = "limited", **kwargs: Any) -> OrdersRun:
    """:func:`~.orders.run_orders` from plain (or notebook) code: start, drive once, stop.

    An interrupted cell (Ctrl-C, the kernel's stop button) cancels the live run and waits
    until its services are closed before the interrupt goes on (``run_sync`` does that),
    so nothing is left listening.
    """
    return run_sync(run_orders(variant, **kwargs))


# --- tables ---------------------------------------------------------------------------------


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _span(values: Sequence[float]) -> str:
    if not values:
        return "-"
    lo, hi = _ms(min(values)), _ms(max(values))
    return f"{lo} ms" if lo == hi else f"{lo} - {hi} ms"


def _label(r: OrdersRun) -> str:
    s = r.settings
    if s is None:
        return r.variant
    size = f"pool {s.pool}" if s.variant == "shared" else f"pools {s.limit}+{s.limit}"
    if s.variant == "limited":
        size += f", bulkhead {s.limit}+{s.queue}"
    return f"{s.variant} ({size})"


def summary_table(runs: Iterable[OrdersRun]) -> pd.DataFrame:
    """One row per run, as the lesson reports them: stock checks, orders served and refused, peaks."""
    rows = {}
    for r in runs:
        slow = f"slow {r.slow_latency:g} s" if r.slow and r.slow_latency else "healthy"
        rows[f"{_label(r)}, Payment {slow}"] = {
            "stock checks": _span([x.latency for x in r.stock_checks]),
            "orders served": r.served,
            "orders refused": r.refused,
            "slowest order": f"{r.slowest('order'):.2f} s",
            "slowest refusal": f"{_ms(r.slowest('order', 'refused'))} ms" if r.refused else "-",
            "Payment peak": r.payment.get("peak", "?"),
            "Inventory peak": r.inventory.get("peak", "?"),
        }
    frame = pd.DataFrame(rows).T
    frame.index.name = "Order Service"
    return frame


def requests_table(r: OrdersRun) -> pd.DataFrame:
    """Every request: stream, status, outcome, and its start, end and latency in ms."""
    frame = pd.DataFrame(
        [
            {
                "stream": x.kind,
                "#": x.index,
                "status": x.status,
                "outcome": x.outcome,
                "start (ms)": _ms(x.start),
                "end (ms)": _ms(x.end),
                "latency (ms)": _ms(x.latency),
            }
            for x in r.requests
        ]
    )
    return frame.set_index(["stream", "#"])


def checks_table(r: OrdersRun) -> pd.DataFrame:
    """check.js's four checks against one run: passed or not, and what was measured."""
    return pd.DataFrame(check_orders(r)).set_index("check")


def keepalive_table(r: OrdersRun) -> pd.DataFrame:
    """The keep-alive experiment: sockets the shared pool opened and kept against its limit."""
    f = keepalive_facts(r)
    return pd.DataFrame(
        {
            "value": {
                "shared pool limit": f.pool_limit,
                "Payment connections opened": f.payment_opened,
                "Payment connections reused": f.payment_reused,
                "Inventory connections opened": f.inventory_opened,
                "sockets open at once (none idled out)": f.kept_open,
                "slowest order": f"{_ms(f.slowest_order)} ms",
                "slowest stock check": f"{_ms(f.slowest_stock)} ms",
            }
        }
    )


# --- facts nbval compares -------------------------------------------------------------------


def facts(r: OrdersRun) -> str:
    """The run's invariant facts, one per line: counts, peaks, who was refused, rounds."""
    s = r.settings
    state = f"slow ({r.slow_latency:g} s)" if r.slow and r.slow_latency else "slow" if r.slow else "healthy"
    lines = [f"{_label(r)}, Payment {state}"]
    lines.append(
        f"orders: {r.served} served, {r.refused} refused, {r.count('failed') + r.count('no answer')} failed"
    )
    lines.append(f"every order answered 200 or 503: {all(x.status in (200, 503) for x in r.orders)}")
    if r.refused:
        who = r.refused_arrivals()
        consecutive = who == list(range(who[0], who[-1] + 1))
        lines.append(
            f"refused: orders {who[0]} to {who[-1]} in order of arrival"
            if consecutive
            else f"refused, by order of arrival: {who}"
        )
        lines.append(f"every refusal under 200 ms: {r.slowest('order', 'refused') < 0.2}")
    rounds = r.served_rounds()
    if rounds:
        lines.append(
            "served per round of Payment's latency: "
            + ", ".join(f"{n} after {k} x {r.slow_latency:g} s" for k, n in rounds.items())
        )
    pool = None if s is None else (s.pool if s.variant == "shared" else s.limit)
    peak = r.payment.get("peak")
    lines.append(
        f"Payment's peak: {peak}"
        + (" (the whole shared pool)" if s and s.variant == "shared" and peak == pool else "")
    )
    if s is not None and s.variant != "shared":
        lines.append(
            f"Inventory's peak within its own pool of {s.limit}: {r.inventory.get('peak', 99) <= s.limit}"
        )
    stock = r.slowest("stock")
    lines.append(f"every stock check under 300 ms: {stock < 0.3}")
    if r.slow and r.slow_latency and stock >= 0.3:
        waited = stock >= r.slow_latency / 2  # no Inventory call takes that long on its own
        lines.append(f"stock checks waited for a slow Payment call to free a connection: {waited}")
    if r.bulkhead_busy is not None:
        b = r.bulkhead_busy
        lines.append(f"bulkhead while busy: {b['running']} running, {b['queueSlots']} free waiting places")
    return "\n".join(lines)


def checks_text(r: OrdersRun) -> str:
    """check.js's verdicts only (no timings), one line each."""
    return "\n".join(f"{'PASS' if c.passed else 'FAIL'}  {c.check}" for c in check_orders(r))


def keepalive_facts_text(r: OrdersRun) -> str:
    """The keep-alive experiment's invariant facts."""
    f = keepalive_facts(r)
    return "\n".join(
        [
            f"shared pool limit: {f.pool_limit}",
            f"Payment: {f.payment_opened} connections opened, {f.payment_reused} reused (kept alive)",
            f"sockets open at once: {f.kept_open} (more than the limit: {f.kept_open > f.pool_limit})",
            f"every stock check under 300 ms: {f.slowest_stock < 0.3}",
            f"idle kept-alive connections counted against the limit: {f.idle_counted}",
        ]
    )


def limit_rule_source() -> str:
    """The installed aiohttp's own code that decides whether a pool has a free connection."""
    from aiohttp.connector import BaseConnector

    return inspect.getsource(BaseConnector._available_connections)


# --- figures --------------------------------------------------------------------------------


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
    ticks, labels = [], []
    y = 0
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
    fig.suptitle(f"{_label(r)}, {slow}")
    return fig


def concurrency_figure(r: OrdersRun) -> Figure:
    """Only the concurrency each dependency saw over time."""
    fig = Figure(figsize=(10, 2.8))
    fig.subplots_adjust(left=0.12, right=0.98, top=0.86, bottom=0.18)
    _timeline_axes(fig.subplots(), r)
    fig.suptitle(f"{_label(r)}: calls each dependency held at once")
    return fig


def show(r: OrdersRun) -> None:
    """Display the run's figure and its summary table (a notebook cell's whole output)."""
    from IPython.display import Image, display

    display(Image(data=to_png(orders_figure(r)), format="png"))
    display(summary_table([r]))


# --- the live panel -------------------------------------------------------------------------


def orders_panel(
    variant: str = "limited", pool: int = 10, limit: int = 5, queue: int = 5, slow_latency: float = 0.3
) -> SliderView:
    """Variant, pool size, limit, queue and Payment's slowdown; each change runs the lesson's
    load live (20 orders, 10 stock checks) and redraws the figure and the summary table.

    A progress bar counts the answers while the run is in flight. ``panel.set(...)`` moves
    several controls, runs once and returns the :class:`~.orders.OrdersRun`.
    """
    controls = {
        "variant": w.ToggleButtons(options=list(orders.VARIANTS), value=variant, description="variant"),
        "pool": slider(w.IntSlider, "pool", "shared pool size", min=1, max=30, value=pool),
        "limit": slider(w.IntSlider, "limit", "limit per pool", min=1, max=20, value=limit),
        "queue": slider(w.IntSlider, "queue", "bulkhead queue", min=0, max=20, value=queue),
        "slow_latency": slider(
            w.FloatSlider, "slowdown", "Payment slow (s)", min=0.1, max=3.0, step=0.1, value=slow_latency
        ),
    }
    controls["variant"].add_class("bl-toggle-variant")
    progress = LiveProgress("orders", unit="answered", total=30)

    def render(**values: Any):
        progress.running()
        r = run(on_progress=progress.on_progress, **values)
        progress.done(f"done: {r.duration:.2f} s, {len(r.requests)} answers")
        return r, [orders_figure(r)], [summary_table([r])]

    panel = SliderView("orders", controls, render, extra=(progress.widget,))
    panel.progress = progress
    return panel
