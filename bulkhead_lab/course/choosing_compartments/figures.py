"""Notebook 08's figures: the wall's cost by target, shuffle against plain shards, the breaker beside the
wall, the live isolations' timings, and a day of production."""

from __future__ import annotations

from typing import Any

from matplotlib.artist import Artist
from matplotlib.figure import Figure

from bulkhead_lab.compartments import isolation_cost, shuffle
from bulkhead_lab.compartments.breaker import BreakerRun
from bulkhead_lab.compartments.production import Hour
from bulkhead_lab.course.choosing_compartments.views import CostView, ShardView
from bulkhead_lab.course.ui.blit import KeptFigure, KeptLayouts, moving_title, spines
from bulkhead_lab.course.ui.style import (
    EVENT,
    EXTRA,
    FAILURE,
    IDLE,
    LIMIT,
    NEUTRAL,
    REFUSED,
    THEORY,
    TRACKING,
)
from bulkhead_lab.course.ui.style import figure as _figure
from bulkhead_lab.live.isolation import IsolationRun
from bulkhead_lab.pool.params import START


class CostFigure(KeptFigure):
    """Slots needed apart (tracking, event stacked) and together, at the chosen target and every looser one;
    the stricter targets show once the slider reaches them (exercise 1 asks for one of them first)."""

    def __init__(self) -> None:
        super().__init__(10, 4.0, left=0.08, right=0.74, top=0.86, bottom=0.14)
        ax = self.figure.subplots()
        targets = isolation_cost.TARGETS
        x = list(range(len(targets)))
        costs = [isolation_cost.equal_blocking(t) for t in targets]
        tracking = [c.apart[0] for c in costs]
        bars = (  # offset, heights, bottoms, colour, label: the split's two pools stacked, then the one
            (-0.2, tracking, 0, TRACKING, "tracking pool, apart"),
            (-0.2, [c.apart[1] for c in costs], tracking, EVENT, "event pool, apart"),
            (0.2, [c.together for c in costs], 0, NEUTRAL, "one pool, together"),
        )
        self._bars = [
            list(ax.bar([i + dx for i in x], heights, 0.4, bottom=bottom, color=color, label=label))
            for dx, heights, bottom, color, label in bars
        ]
        self._unseen = [ax.text(i, 1, "?", ha="center", va="bottom", color=NEUTRAL) for i in x]
        self._numbers = [ax.text(0, 0, "", ha="center", va="bottom", fontweight="bold") for _ in range(2)]
        ax.set_xticks(x, [f"{t:.1%}" for t in targets])
        ax.set_xlabel("target blocking (share of calls a pool may refuse)")
        ax.set_ylabel("slots needed (Erlang-B)")
        ax.set_ylim(0, max(c.split_total for c in costs) * 1.18)
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
        ax.grid(axis="x", visible=False)
        self._mark = ax.axvspan(-0.45, 0.45, color=LIMIT, alpha=0.08)
        self._ax = ax
        self._title = moving_title(ax, fontsize="large")

    def update(self, view: CostView) -> CostFigure:
        c = view.cost
        i = isolation_cost.TARGETS.index(c.target)
        for row in self._bars:
            for j, bar in enumerate(row):
                bar.set_visible(j >= i)  # the stricter targets stay hidden until the slider reaches them
        for j, mark in enumerate(self._unseen):
            mark.set_visible(j < i)
        self._mark.set_x(i - 0.45)
        for text, dx, slots in zip(self._numbers, (-0.2, 0.2), (c.split_total, c.together), strict=True):
            text.set_position((i + dx, slots + 0.5))
            text.set_text(str(slots))
        self._title.set_text(view.sentence().split(": ")[0] + f": +{c.extra} slots")
        return self

    def moving(self) -> list[Artist]:
        bars = [bar for row in self._bars for bar in row]
        return [self._mark, *bars, *self._unseen, *self._numbers, *spines(self._ax), self._title]


class ShardFigure(KeptLayouts):
    """The share of other tenants sharing 0 .. every worker with the poison tenant: bars and deal dots.

    One kept figure per shard size (the number of bars changes with it), so moving the size back and
    forth redraws no frame.
    """

    def __init__(self) -> None:
        super().__init__(lambda view: view.fleet.size, lambda view: _ShardBars(view.fleet.size))


class _ShardBars(KeptFigure):
    def __init__(self, size: int) -> None:
        super().__init__(10, 4.0, left=0.08, right=0.74, top=0.86, bottom=0.14)
        ax = self.figure.subplots()
        x = list(range(size + 1))
        self._bars = [
            list(ax.bar([i + dx for i in x], [0] * len(x), 0.38, color=color, label=f"{name} (formula)"))
            for name, dx, color in (("shuffle", -0.2, EXTRA[0]), ("plain", 0.2, NEUTRAL))
        ]
        (self._dots,) = ax.plot([], [], "o", color=LIMIT, ms=5, label="seeded deal")
        self._numbers = [ax.text(0, 0, "", ha="center", va="bottom") for _ in range(2 * len(x))]
        ax.set_xticks(x, [f"{o}" + (" (every one)" if o == size else "") for o in x])
        ax.set_xlabel("workers shared with the poison tenant's shard")
        ax.set_ylabel("share of the other tenants")
        ax.set_ylim(0, 1.12)
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
        ax.grid(axis="x", visible=False)
        self._ax = ax
        self._title = moving_title(ax, fontsize="large")

    def update(self, view: ShardView) -> _ShardBars:
        xs, ys = [], []
        for bars, deal in zip(self._bars, view.deals, strict=True):
            for o, (bar, share) in enumerate(zip(bars, shuffle.overlap_shares(deal.fleet), strict=True)):
                bar.set_height(share)
                xs.append(bar.get_x() + bar.get_width() / 2)
                ys.append(deal.overlap[o])
        for text, x, y in zip(self._numbers, xs, ys, strict=True):
            text.set_position((x, y + 0.01))
            text.set_text(f"{y:.1%}")
        self._dots.set_data(xs, ys)
        f = view.fleet
        self._title.set_text(
            f"{f.workers} workers, shards of {f.size}: {view.deals[0].fleet.shards} shuffle shards, "
            f"{view.deals[1].fleet.shards} plain; every worker lost: {view.deals[0].lose_every_worker:.2%} "
            f"against {view.deals[1].lose_every_worker:.2%}"
        )
        return self

    def moving(self) -> list[Artist]:
        bars = [b for row in self._bars for b in row]
        return [*bars, self._dots, *self._numbers, *spines(self._ax), self._title]


WINDOW = (START - 50, START + 400)  # the rounds the breaker figure shows


class BreakerFigure(KeptFigure):
    """The event flow's busy slots around the failure: the single pool (left) and 24/8 (right), each
    without and with the breaker; the rounds the breaker was open shaded."""

    def __init__(self) -> None:
        super().__init__(10, 3.8, left=0.07, right=0.99, top=0.8, bottom=0.16, wspace=0.12)
        axes = self.figure.subplots(1, 2, sharey=True)
        rounds = list(range(*WINDOW))
        self._lines = []
        for ax, title in zip(axes, ("single pool (32)", "bulkhead 24/8"), strict=True):
            (alone,) = ax.plot(rounds, [0] * len(rounds), color=EVENT, label="no breaker")
            (with_,) = ax.plot(rounds, [0] * len(rounds), color=EXTRA[0], label="with the breaker")
            self._lines.append((alone, with_))
            ax.axvline(START, color=FAILURE, linestyle="--", linewidth=1)
            ax.set_title(title)
            ax.set_xlabel("round")
            ax.set_xlim(*WINDOW)
        axes[0].set_ylabel("event slots busy")
        axes[0].set_ylim(0, 34)
        axes[1].axhline(8, color=LIMIT, linestyle=":", linewidth=1)
        axes[0].legend(loc="upper right")
        self._shades: list[Any] = []
        self._axes = axes
        self._title = self.figure.suptitle("")

    def update(self, runs: tuple[BreakerRun, ...]) -> BreakerFigure:
        lo, hi = WINDOW
        for shade in self._shades:
            shade.remove()
        self._shades = []
        for ax, (alone, with_), pair in zip(self._axes, self._lines, (runs[:2], runs[2:]), strict=True):
            alone.set_ydata(pair[0].event_busy[lo:hi])
            with_.set_ydata(pair[1].event_busy[lo:hi])
            shut = [t for t in pair[1].shut if lo <= t < hi]
            for start, end in _spans(shut):
                self._shades.append(ax.axvspan(start, end + 1, color=IDLE, alpha=0.3, linewidth=0))
        single, split = runs[1], runs[3]
        self._title.set_text(
            "shaded: the breaker is open.  Until it opened: "
            f"{single.before_open} event slot-rounds in the single pool, {split.before_open} behind the wall"
        )
        return self

    def moving(self) -> list[Artist]:
        lines = [line for pair in self._lines for line in pair]
        return [*self._shades, *lines, *spines(*self._axes), self._title]


def _spans(rounds: list[int]) -> list[tuple[int, int]]:
    """Runs of consecutive rounds as (first, last)."""
    spans: list[tuple[int, int]] = []
    for t in rounds:
        if spans and spans[-1][1] == t - 1:
            spans[-1] = (spans[-1][0], t)
        else:
            spans.append((t, t))
    return spans


def isolation_figure(runs: tuple[IsolationRun, ...]) -> Figure:
    """Per isolation: how long its callers waited, its slots stayed held, and its dependency was busy."""
    fig = _figure(10, 3.2, left=0.13, right=0.98, top=0.86, bottom=0.17)
    ax = fig.subplots()
    ys = range(len(runs) - 1, -1, -1)  # the first run on top
    bars = (
        (0.25, "closed_after", EVENT, "dependency still calling"),
        (0, "freed_after", REFUSED, "threads or permits held"),
        (-0.25, "answered_after", IDLE, "callers waiting for an answer"),
    )
    for dy, seconds, color, label in bars:
        ax.barh([y + dy for y in ys], [getattr(r, seconds) for r in runs], 0.22, color=color, label=label)
    s = runs[0].settings
    ax.axvline(s.timeout, color=THEORY, linestyle="--", linewidth=1, label="the callers' timeout")
    ax.set_yticks(ys, [r.isolation for r in runs])
    ax.set_xlabel("seconds after the calls were sent")
    ax.legend(loc="lower right", fontsize="small")
    ax.set_title(
        f"{s.calls} calls, {s.slots} slots, a dependency taking {s.latency:g} s, "
        f"callers giving up after {s.timeout:g} s"
    )
    return fig


def day_figure(trace: tuple[Hour, ...]) -> Figure:
    """A day of production: each flow's calls/s by the hour (bars) and in each hour's busiest minute
    (marks), and its p50, mean and p99 latency (lines)."""
    fig = _figure(10, 3.6, left=0.07, right=0.93, top=0.86, bottom=0.15, wspace=0.35)
    for ax, flow, color in zip(fig.subplots(1, 2), ("tracking", "event"), (TRACKING, EVENT), strict=True):
        hours = [h for h in trace if h.flow == flow]
        x = [h.hour for h in hours]
        ax.bar(x, [h.rate for h in hours], color=color, alpha=0.45, label="the hour's mean")
        ax.plot(x, [h.peak_rate for h in hours], "_", color=color, ms=9, mew=2, label="its busiest minute")
        ax.set_ylim(0, 1.6 * max(h.peak_rate for h in hours))  # room above for the legends
        ax.legend(loc="upper left", fontsize="small")
        ax.set_xlabel("hour of the day")
        ax.set_ylabel("calls/s")
        ax.set_title(flow)
        right = ax.twinx()
        for name, style in (("p50", ":"), ("mean", "-"), ("p99", "--")):
            right.plot(x, [1000 * getattr(h, name) for h in hours], style, color=LIMIT, label=name)
        right.set_ylabel("latency (ms)")
        right.set_ylim(0, 1.9 * max(1000 * h.p99 for h in hours))
        right.grid(False)
        right.legend(loc="upper right", fontsize="small")
    fig.suptitle("The day production shows: rates by the hour and minute, latencies by percentile")
    return fig
