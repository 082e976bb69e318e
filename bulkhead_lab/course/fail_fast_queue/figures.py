"""Notebook 04's figures: each request's wait and run apart, and the calls running and waiting over time,
drawn from the rows of :mod:`bulkhead_lab.live.orders.reading.burst`; one ``xmax`` puts the three variants'
runs on one time axis."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from bulkhead_lab.course.fail_fast_queue.views import RULE_WORDS, VARIANT_WORDS
from bulkhead_lab.course.ui.style import EVENT, IDLE, LIMIT, NEUTRAL, REFUSED, TRACKING, figure
from bulkhead_lab.live.orders.load import OrdersRun
from bulkhead_lab.live.orders.reading.burst import (
    Step,
    bars,
    counters,
    nice_end,
    payment_state,
    run_label,
    wave_ends,
)
from bulkhead_lab.live.orders.service import KEEPALIVE_TIMEOUT

RUN_COLOR = {"order": EVENT, "stock": TRACKING}  # a call running: Payment's, Inventory's
BAR = 0.72  # a request's bar height, in rows
GAP = 1.5  # rows between the orders and the stock checks


def _rows(r: OrdersRun) -> dict[tuple[str, int], float]:
    rows, y = {}, 0.0
    for kind in ("order", "stock"):
        for x in sorted(r.of(kind), key=lambda x: x.index):
            rows[(kind, x.index)] = y
            y += 1
        y += GAP
    return rows


def requests_axes(ax: Any, r: OrdersRun, xmax: float, *, legend: bool = True, ticks: bool = True) -> None:
    """Each request as a bar: sky blue while it waited for a connection, then its call (orange: Payment,
    blue: Inventory); a refusal is a vermillion cross where it was answered."""
    rows, everything = _rows(r), bars(r)
    kept = [b for b in everything if b.outcome != "refused"]
    ys = [rows[(b.kind, b.index)] for b in kept]
    ax.barh(ys, [b.waited for b in kept], left=[b.sent for b in kept], height=BAR, color=IDLE)
    widths = [max(b.ended - b.started, xmax / 150) for b in kept]  # a 20-ms call stays visible
    colors = [RUN_COLOR[b.kind] if b.outcome == "served" else LIMIT for b in kept]
    ax.barh(ys, widths, left=[b.started for b in kept], height=BAR, color=colors)
    refused = [b for b in everything if b.outcome == "refused"]
    if refused:
        ys = [rows[(b.kind, b.index)] for b in refused]
        ax.plot([b.ended for b in refused], ys, "X", color=REFUSED, markersize=7, linestyle="none")
        ax.annotate(
            f"{len(refused)} orders refused at once: HTTP 503 'busy, try again'",
            xy=(max(b.ended for b in refused), min(ys)),
            xytext=(xmax * 0.06, (min(ys) + max(ys)) / 2),
            color=REFUSED,
            va="center",
            arrowprops={"arrowstyle": "->", "color": REFUSED},
        )
    for t in wave_ends(r):
        if t <= xmax:
            ax.axvline(t, color=NEUTRAL, linestyle=":", linewidth=1.2, zorder=0)
    if ticks:
        picks = [("order", 1), ("order", len(r.orders)), ("stock", 1), ("stock", len(r.stock_checks))]
        picks = [p for p in picks if p in rows]
        ax.set_yticks([rows[p] for p in picks], [f"{k.replace('stock', 'check')} {i}" for k, i in picks])
    ax.set(ylim=(max(rows.values(), default=0) + 1, -1.6), xlim=(0, xmax))
    ax.grid(axis="y", visible=False)
    if legend:
        handles = [
            Patch(color=IDLE, label="waiting for a connection\n(bulkhead queue, pool)"),
            Patch(color=EVENT, label="Payment call running"),
            Patch(color=TRACKING, label="Inventory call running"),
            Line2D([], [], marker="X", color=REFUSED, linestyle="none", label="refused (503)"),
            Line2D([], [], color=NEUTRAL, linestyle=":", label="a slow wave ends"),
        ]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9)


def _step(ax: Any, points: Step, xmax: float, fill: bool = False, **kw: Any) -> None:
    """A count over time, held to ``xmax``; ``fill``: a waiting count, sky blue and filled."""
    ts = [t for t, _ in points] + [xmax]
    ns = [n for _, n in points] + [points[-1][1] if points else 0]
    if fill:
        ax.fill_between(ts, ns, step="post", color=IDLE, alpha=0.45, linewidth=0)
        kw |= {"color": IDLE, "linewidth": 2}
    ax.step(ts, ns, where="post", **kw)


def counters_axes(payment: Any, inventory: Any, r: OrdersRun, xmax: float) -> None:
    """Over time, Payment's side (calls running, orders waiting, refusals so far, its places) and
    Inventory's (calls running, stock checks waiting)."""
    c = counters(r)
    _step(payment, c.orders_waiting, xmax, fill=True, label="orders waiting")
    _step(payment, c.payment_running, xmax, color=EVENT, linewidth=2.2, label="Payment calls running")
    if r.bulkhead_timeline:
        _step(payment, c.refused, xmax, color=REFUSED, linewidth=2, label="refused so far (rejected)")
    if c.limit:
        payment.axhline(c.limit, color=LIMIT, ls="--", lw=1, label=f"Payment's places: {c.limit}")
    payment.set_ylim(0, max(len(r.orders), c.limit) + 1)
    payment.set_title(f"Payment's side over time, from {c.source}", fontsize=10, loc="left")
    _step(inventory, c.stock_waiting, xmax, fill=True, label="stock checks waiting")
    _step(inventory, c.inventory_running, xmax, color=TRACKING, linewidth=2, label="Inventory calls running")
    inventory.set_ylim(0, len(r.stock_checks) + 1)
    shared = r.settings is not None and r.settings.variant == "shared"
    inventory.set_title("Inventory's side over time" + (" (the same shared pool)" if shared else ""),
                        fontsize=10, loc="left")  # fmt: skip
    inventory.set_xlabel("seconds since the orders were sent")
    for ax in (payment, inventory):
        ax.set(xlim=(0, xmax), ylabel="requests")
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.05), fontsize=9)


def title(r: OrdersRun) -> str:
    s = r.settings
    words = VARIANT_WORDS.get(r.variant, r.variant)
    rule = f", {RULE_WORDS[s.pool_rule]}" if s is not None and s.variant == "shared" else ""
    return f"{words}{rule}: {run_label(r)}, {payment_state(r)}"


def orders_figure(r: OrdersRun, xmax: float | None = None) -> Figure:
    """The lesson's 20 orders and 10 stock checks on one time axis: above, each request as a bar, its wait
    for a connection and then its call, a refused order a cross; below, Payment's calls running, orders
    waiting and refusals over time, and Inventory's calls running and stock checks waiting.

    ``xmax``: the time axis' end (s), one value for runs that compare by eye; by default past this run's."""
    end = xmax if xmax is not None else nice_end(r.duration)
    fig = figure(10, 7.6, left=0.1, right=0.74, top=0.92, bottom=0.07, hspace=0.45)
    top, payment, inventory = fig.subplots(3, 1, height_ratios=[3, 1.6, 1.1], sharex=True)
    requests_axes(top, r, end)
    top.set_title("each request: its wait for a connection, then its call", fontsize=10, loc="left")
    counters_axes(payment, inventory, r, end)
    for ax in (top, payment):
        ax.tick_params(labelbottom=True)
    fig.suptitle(title(r))
    return fig


def keepalive_figure(baseline: OrdersRun, aiohttp: OrdersRun, node: OrdersRun) -> Figure:
    """Payment healthy, one shared pool of 10, three runs side by side on one time axis: no keep-alive
    (the baseline), keep-alive on aiohttp's pool, keep-alive on the Node-like pool."""
    runs = [("no keep-alive (baseline)", baseline), ("keep-alive, aiohttp's pool", aiohttp),
            ("keep-alive, Node-like pool", node)]  # fmt: skip
    end = nice_end(max(r.duration for _, r in runs))
    fig = figure(10, 4.4, left=0.1, right=0.98, top=0.78, bottom=0.14, wspace=0.08)
    axes = fig.subplots(1, 3, sharey=True)
    for k, (ax, (name, r)) in enumerate(zip(axes, runs, strict=True)):
        requests_axes(ax, r, end, legend=False, ticks=k == 0)
        if r.settings is not None and r.settings.keepalive:
            answered = max(x.end for x in r.orders)
            ax.axvspan(answered, answered + KEEPALIVE_TIMEOUT, color=NEUTRAL, alpha=0.15, lw=0, zorder=0)
            note = f"Payment's sockets idle,\nkept alive {KEEPALIVE_TIMEOUT:g} s"
            ax.text(answered + 0.15, len(r.orders) * 0.75, note, fontsize=8, color="0.3", va="center")
        slowest = r.slowest("stock")
        took = f"{slowest * 1000:.0f} ms" if slowest < 1 else f"{slowest:.2f} s"
        ax.text(0.97, 0.97, f"slowest stock check:\n{took}", transform=ax.transAxes, ha="right", va="top",
                fontsize=9, color=TRACKING)  # fmt: skip
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("seconds since the orders were sent")
    handles = [
        Patch(color=IDLE, label="waiting for a connection"),
        Patch(color=EVENT, label="Payment call"),
        Patch(color=TRACKING, label="Inventory call"),
        Patch(color=NEUTRAL, alpha=0.3, label="Payment's idle kept-alive sockets"),
    ]
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.54, 0.93), ncol=4, fontsize=9)
    fig.suptitle("Payment healthy, one shared pool of 10: 20 orders, 10 stock checks 100 ms later", y=0.99)
    return fig
