"""Matplotlib figures of the slider views: one function per view, numbers in, figure out.

Figures are built on :class:`matplotlib.figure.Figure` directly, never through pyplot's
global list, so a slider callback leaks nothing and the notebook's inline backend
shows exactly the figure it is handed.
"""

from __future__ import annotations

import math

from matplotlib.collections import PatchCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from .model import TOTAL
from .views import (
    LESSON_SPLITS,
    SENSITIVITY_SPLIT,
    CompartmentView,
    IdleView,
    LayoutView,
    LittleView,
    OccupancyView,
    TradeoffView,
    split_label,
)

TRACKING_COLOR = "tab:blue"
EVENT_COLOR = "tab:orange"
SINGLE_COLOR = "tab:gray"
FAILURE_COLOR = "tab:red"
DAYS = ("healthy", "slowdown")


def _pool_color(pool: str) -> str:
    if pool.startswith("tracking"):
        return TRACKING_COLOR
    if pool.startswith("event"):
        return EVENT_COLOR
    return SINGLE_COLOR


def tradeoff_figure(view: TradeoffView) -> Figure:
    """Dropped requests per flow against split, healthy and slowdown days side by side."""
    fig = Figure(figsize=(10, 4.6), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    sweep = view.sweep
    splits = list(sweep.index)
    focus = [s for s in splits if s >= 16]
    top_values = [sweep.loc[focus].filter(like="dropped").to_numpy().max()]
    top_values.append(view.single.filter(like="dropped").max())
    if view.split is not None:
        top_values.append(sweep.loc[view.split].filter(like="dropped").max())
    top = 1.12 * max(float(v) for v in top_values) + 1
    for ax, day in zip(axes, DAYS, strict=True):
        for flow, color in (("tracking", TRACKING_COLOR), ("event", EVENT_COLOR)):
            col = f"{day} {flow} dropped"
            ax.plot(splits, sweep[col], color=color, marker=".", label=f"{flow} dropped (bulkhead)")
            ax.axhline(
                view.single[col],
                color=color,
                linestyle="--",
                linewidth=1,
                label=f"{flow} dropped (single pool)",
            )
        for s in (*LESSON_SPLITS, SENSITIVITY_SPLIT):
            ax.axvline(s, color="0.6", linestyle=":", linewidth=1)
            ax.text(
                s, top * 0.99, split_label(s), rotation=90, ha="right", va="top", fontsize=8, color="0.35"
            )
        if view.split is not None:
            ax.axvline(view.split, color="black", linewidth=2, alpha=0.35)
            for flow, color in (("tracking", TRACKING_COLOR), ("event", EVENT_COLOR)):
                ax.plot(view.split, sweep.loc[view.split, f"{day} {flow} dropped"], "o", color=color, ms=9)
        ax.set_title(f"{day} day")
        ax.set_xlabel(f"split: tracking slots (event pool = {TOTAL} - split)")
        ax.set_xlim(0.5, TOTAL - 0.5)
        ax.set_ylim(0, top)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("dropped requests in the 40 s run")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=8)
    marked = "" if view.split is None else f" (marked: {split_label(view.split)})"
    fig.suptitle(f"Bulkhead size trades the two days against each other{marked}")
    return fig


def layout_figure(view: LayoutView) -> Figure:
    """Dropped requests per flow, single pool against the chosen layout, on both days."""
    fig = Figure(figsize=(8, 3.8), layout="constrained")
    ax = fig.subplots()
    frame = view.frame
    labels = [f"{layout}\n{day}" for layout, day in frame.index]
    x = range(len(labels))
    ax.bar(
        [i - 0.2 for i in x], frame["tracking dropped"], 0.4, color=TRACKING_COLOR, label="tracking dropped"
    )
    ax.bar([i + 0.2 for i in x], frame["event dropped"], 0.4, color=EVENT_COLOR, label="event dropped")
    for i, (t, e) in enumerate(zip(frame["tracking dropped"], frame["event dropped"], strict=True)):
        ax.text(i - 0.2, t, str(t), ha="center", va="bottom", fontsize=8)
        ax.text(i + 0.2, e, str(e), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(list(x), labels)
    ax.set_ylabel("dropped requests in the 40 s run")
    ax.set_title(f"Single pool ({TOTAL}) against {view.label}: drops per flow")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return fig


def occupancy_figure(view: OccupancyView) -> Figure:
    """Busy slots per pool round by round around the failure: the flooding compartment."""
    fig = Figure(figsize=(10, 5), layout="constrained")
    n = 1 if view.split is None else 2
    axes = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0]
    rounds = view.frame.index
    pools = list(view.capacity)
    groups = [pools[:1]] + ([pools[1:]] if n == 2 else [])
    titles = ["one shared pool: the slow event flow takes every slot"]
    if n == 2:
        titles.append(f"bulkhead {split_label(view.split)}: the event compartment floods, tracking stays dry")
    for ax, group, title in zip(axes, groups, titles, strict=True):
        for pool in group:
            color = _pool_color(pool)
            ax.plot(rounds, view.frame[pool], color=color, linewidth=1, label=f"{pool} busy")
            ax.axhline(view.capacity[pool], color=color, linestyle="--", linewidth=1, label=f"{pool} slots")
        ax.axvline(view.start, color=FAILURE_COLOR, linewidth=1.5, label="failure starts (event hold slows)")
        ax.set_ylabel("busy slots")
        ax.set_ylim(0, TOTAL + 2)
        ax.set_title(title, fontsize=10)
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8)
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("round (100 rounds = 1 s)")
    fig.suptitle("Busy slots per pool around the failure (slowdown day)")
    return fig


def idle_figure(view: IdleView) -> Figure:
    """Rejections, beside the idle slots the other pool held at those moments."""
    fig = Figure(figsize=(8, 3.8), layout="constrained")
    ax = fig.subplots()
    frame = view.frame
    labels = [f"{layout}\n{day}" for layout, day in frame.index]
    x = list(range(len(labels)))
    rej = frame["rejections"]
    idle = frame["idle slots at rejections"]
    ax.bar([i - 0.2 for i in x], rej, 0.4, color="tab:red", label="rejections (dropped requests)")
    ax.bar(
        [i + 0.2 for i in x], idle, 0.4, color="tab:green", label="idle slots next door at those rejections"
    )
    for i, (r, d) in enumerate(zip(rej, idle, strict=True)):
        ax.text(i - 0.2, r, str(r), ha="center", va="bottom", fontsize=8)
        ax.text(i + 0.2, d, str(d), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x, labels)
    ax.set_ylabel("count in the 40 s run")
    ax.set_title("Rejected while a slot sat idle in the other pool (lost sharing)")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return fig


def compartment_figure(view: CompartmentView, columns: int = 4) -> Figure:
    """Each pool drawn as a compartment of slots, busy slots filled from the bottom."""
    fig = Figure(figsize=(7, 4.2), layout="constrained")
    ax = fig.subplots()
    patches: list[Rectangle] = []
    colors: list[str] = []
    x0 = 0.0
    gap = 1.5
    bulkhead_x = 0.0
    for pool, row in view.frame.iterrows():
        slots, busy = int(row["slots"]), int(row["busy"])
        color = _pool_color(str(pool))
        for i in range(slots):
            col, level = i % columns, i // columns
            patches.append(Rectangle((x0 + col, level), 0.9, 0.9))
            colors.append(color if i < busy else "white")
        height = math.ceil(slots / columns)
        ax.add_patch(Rectangle((x0 - 0.1, -0.1), columns + 0.1, height + 0.1, fill=False, linewidth=2))
        full = " FULL" if busy >= slots else ""
        ax.text(
            x0 + columns / 2, -0.5, f"{pool}\n{busy}/{slots} busy{full}", ha="center", va="top", fontsize=9
        )
        if str(pool).startswith("single"):
            ax.text(
                x0 + columns / 2, height + 0.4, "one shared pool", ha="center", fontsize=10, weight="bold"
            )
            x0 += gap  # keep the two layouts apart
            bulkhead_x = x0 + columns + gap
        elif str(pool).startswith("tracking"):
            ax.text(
                bulkhead_x + columns + gap / 2,
                TOTAL / columns - 0.6,
                f"bulkhead {view.frame.loc[pool, 'layout']}",
                ha="center",
                fontsize=10,
                weight="bold",
            )
        x0 += columns + gap
    ax.add_collection(PatchCollection(patches, facecolors=colors, edgecolors="0.5", linewidths=0.5))
    ax.set_xlim(-0.5, x0 - gap + 0.5)
    ax.set_ylim(-2.2, TOTAL / columns + 1)
    ax.set_aspect("equal")
    ax.axis("off")
    phase = (
        f"{view.round - view.start} rounds into the failure"
        if view.failing
        else f"{view.start - view.round} rounds before the failure"
    )
    ax.set_title(f"round {view.round} ({phase})", color=FAILURE_COLOR if view.failing else "black")
    return fig


def blocking_figure(view: LittleView) -> Figure:
    """Blocking against pool size: Erlang-B curves and the seeded model's measured drop rate."""
    fig = Figure(figsize=(8, 4.2), layout="constrained")
    ax = fig.subplots()
    curve = view.curve
    ax.plot(curve.index, curve["Erlang-B"], color="tab:purple", label="Erlang-B (rate x hold)")
    ax.plot(
        curve.index,
        curve["Erlang-B, hold - 1/2 round"],
        color="tab:purple",
        linestyle=":",
        label="Erlang-B with the hold shortened by 1/2 round",
    )
    ax.plot(
        curve.index, curve["seeded model"], "o", color="black", ms=5, label="seeded model (one flow, 40 s)"
    )
    ax.axvline(view.slots, color="0.5", linestyle="--", linewidth=1)
    ax.plot(view.slots, view.simulated, "o", color="tab:red", ms=10, label=f"pool of {view.slots}")
    ax.axvline(view.in_flight, color="tab:green", linewidth=1, label=f"in flight = {view.in_flight:.2f}")
    ax.set_xlabel("pool size (slots)")
    ax.set_ylabel("share of arrivals refused")
    ax.set_ylim(0, 1)
    ax.set_title(
        f"{view.arrival_rate:g} calls/s x {view.hold:g} s ({view.hold_rounds} rounds): "
        f"blocking against pool size"
    )
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig
