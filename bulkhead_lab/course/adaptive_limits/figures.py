"""Notebook 05's figures; each panel keeps its own and redraws it in place, in the palette's colours
(:mod:`bulkhead_lab.course.ui.style`), an algorithm's own estimate green."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from bulkhead_lab.adaptive.compare import Explore
from bulkhead_lab.adaptive.pitfalls import DriftRuns, Ramp
from bulkhead_lab.course.adaptive_limits.views import UPDATES
from bulkhead_lab.course.ui.blit import KeptFigure, moving_title, nice_ceiling, spines
from bulkhead_lab.course.ui.style import EVENT, EXTRA, FAILURE, LIMIT, NEUTRAL, REFUSED, TRACKING
from bulkhead_lab.course.ui.style import figure as _figure
from bulkhead_lab.live.orders.reading.adaptive import LiveView
from bulkhead_lab.pool.params import HOLD_EVENT, LESSON_SPLIT, MODES, ROUNDS, SLOW, START, TOTAL

FLOWS = (("tracking", TRACKING, -0.2), ("event", EVENT, 0.2))


def legend_items(axes: Sequence[Any]) -> tuple[list[Any], list[str]]:
    """The axes' legend handles and labels, each label once (the first axis' handle)."""
    items: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            items.setdefault(label, handle)
    return list(items.values()), list(items)


GROUPS = ("one pool", "24/8", "adaptive")
BIN = 10  # rounds per point of the in-flight curves (their mean): one point per 0.1 s


class ExploreFigure(KeptFigure):
    """Left: the tracking and the event flow, each its limit (black) and its calls in flight, through
    the slowdown day, the fixed wall dashed and the slowdown's start and end marked. Right: dropped
    requests per flow for one pool, 24/8 and the algorithm, on each day.

    Kept by the explore panel. The bars' numbers are the table's, under the figure; their scales move
    in steps, and a new step draws the frame again.
    """

    def __init__(self) -> None:
        super().__init__(10, 6.2, left=0.07, right=0.99, top=0.84, bottom=0.1, hspace=0.32, wspace=0.3)
        fig = self.figure
        grid = fig.add_gridspec(2, 2, width_ratios=[2.3, 1])
        flows = fig.add_subplot(grid[0, 0])
        events = fig.add_subplot(grid[1, 0], sharex=flows)
        healthy, slowdown = fig.add_subplot(grid[0, 1]), fig.add_subplot(grid[1, 1])
        self._lines: list[Line2D] = []
        self._ends: list[Line2D] = []
        walls = (LESSON_SPLIT, TOTAL - LESSON_SPLIT)
        for ax, (flow, color, _), wall in zip((flows, events), FLOWS, walls, strict=True):
            mean, limit = f"in flight, {flow} (mean of {BIN} rounds)", "adaptive limit"
            self._lines += ax.plot([], [], color=color, linewidth=1, label=mean)
            self._lines += ax.plot([], [], color=LIMIT, linewidth=1.4, drawstyle="steps-post", label=limit)
            ax.axhline(wall, color=NEUTRAL, linestyle="--", linewidth=1.2, label="24/8's fixed wall")
            ax.axvline(START, color=FAILURE, linewidth=1.5, label="slowdown starts")
            self._ends.append(
                ax.axvline(ROUNDS, color=FAILURE, linewidth=1.5, linestyle=":", label="slowdown ends")
            )
            ax.set(xlim=(0, ROUNDS), ylim=(0, TOTAL + 2), ylabel=f"{flow}: slots")
        events.set_xlabel("round (100 rounds = 1 s), slowdown day")
        flows.tick_params(labelbottom=False)
        self._bars = []  # per day: the tracking bars, then the event bars
        for ax, day in zip((healthy, slowdown), MODES, strict=True):
            x = range(len(GROUPS))
            self._bars.append(
                [b for f, c, dx in FLOWS for b in ax.bar([i + dx for i in x], [0] * len(x), 0.4, color=c)]
            )
            ax.set_xticks(range(len(GROUPS)), GROUPS)
            ax.set_title(f"{day} day: dropped", fontsize="medium")
            ax.set_ylabel("requests")
            ax.grid(axis="x", visible=False)
        handles, labels = legend_items((flows, events))
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.935), ncol=3, fontsize=8)
        self._axes = (flows, events, healthy, slowdown)
        self._title = fig.suptitle("")

    def update(self, run: Explore, frame: pd.DataFrame, label: str) -> ExploreFigure:
        """Show ``run``: its limits and in-flight curves, the slowdown's end, ``frame``'s drops, the title."""
        trace = run.trace
        rounds = range(len(trace.event_limit))
        bins = [i + BIN / 2 for i in range(0, len(rounds), BIN)]
        series = (
            (bins, _means(trace.tracking_inflight)),
            (rounds, trace.tracking_limit),
            (bins, _means(trace.event_inflight)),
            (rounds, trace.event_limit),
        )
        for line, (x, y) in zip(self._lines, series, strict=True):
            line.set_data(list(x), list(y))
        lasts = run.stop >= len(rounds)
        for end in self._ends:
            end.set_xdata([run.stop] * 2)
            end.set_visible(not lasts)
        for bars, day, ax in zip(self._bars, MODES, self._axes[2:], strict=True):
            heights = [int(v) for f in ("tracking", "event") for v in frame[f"{day} {f} dropped"]]
            for bar, height in zip(bars, heights, strict=True):
                bar.set_height(height)
            ax.set_ylim(0, nice_ceiling(1.2 * max(heights)))
        length = "to the end of the run" if lasts else f"for {run.length} rounds"
        self._title.set_text(
            f"{label}: slowdown of {run.slow}-round calls {length}; "
            f"event limit {run.event_before} -> lowest {run.event_lowest}"
        )
        return self

    def frame_key(self) -> object:
        return tuple(ax.get_ylim() for ax in self._axes[2:])

    def moving(self) -> list[Artist]:
        bars = [bar for day in self._bars for bar in day]
        return [*self._lines, *self._ends, *bars, *spines(*self._axes), self._title]


def _means(values: tuple[int, ...]) -> list[float]:
    return [sum(values[i : i + BIN]) / len(values[i : i + BIN]) for i in range(0, len(values), BIN)]


ALGORITHM = EXTRA[0]  # an algorithm's own estimate (Gradient2's baseline, its layout's drops)
DRIFT_FROM = START - 200  # the drift figure starts 200 rounds before the failure


class DriftFigure(KeptFigure):
    """Gradient2 on the event flow: its limit, its baseline (long average RTT) and what the tracking
    flow drops, through a slowdown of the chosen length. Kept by the drift panel.

    The round the limit is back where it started is marked across the three axes; the tracking
    axis' scale moves in steps (a new step draws the frame again).
    """

    def __init__(self) -> None:
        super().__init__(10, 6.8, left=0.1, right=0.72, top=0.92, bottom=0.09, hspace=0.18)
        limit_ax, base_ax, drop_ax = self.figure.subplots(3, 1, sharex=True)
        limit, before = "event limit (Gradient2)", "its level when the slowdown starts"
        (self._limit,) = limit_ax.plot(
            [], [], color=LIMIT, linewidth=1.4, drawstyle="steps-post", label=limit
        )
        self._before = limit_ax.axhline(0, color=NEUTRAL, linestyle="--", linewidth=1, label=before)
        (self._back,) = limit_ax.plot([], [], "o", color=FAILURE, ms=8, label="back at that level")
        limit_ax.set(ylim=(0, TOTAL + 2), ylabel="event limit (slots)")
        baseline = "baseline: Gradient2's long average RTT"
        (self._baseline,) = base_ax.plot([], [], color=ALGORITHM, linewidth=1.6, label=baseline)
        for hold, style, what in ((SLOW, "--", "a slow call"), (HOLD_EVENT, ":", "a normal call")):
            base_ax.axhline(hold, color=EVENT, linestyle=style, linewidth=1, label=f"{what}: {hold} rounds")
        base_ax.set(ylim=(0, SLOW * 1.15), ylabel="round trip (rounds)")
        self._drops = {
            name: drop_ax.plot([], [], color=color, linewidth=1.6, linestyle=style, label=label)[0]
            for name, color, style, label in (
                ("Gradient2", ALGORITHM, "-", "Gradient2 on events"),
                ("single pool (32)", NEUTRAL, "-", "single pool (32)"),
                ("24/8", LIMIT, "--", "24/8"),
            )
        }
        drop_ax.set(
            xlabel="round (100 rounds = 1 s), slowdown day", ylabel="tracking dropped\nsince the failure"
        )
        self._ends: list[Line2D] = []
        self._backs: list[Line2D] = []
        for ax in (limit_ax, base_ax, drop_ax):
            ax.axvline(START, color=FAILURE, linewidth=1.5, label="slowdown starts")
            self._ends.append(
                ax.axvline(ROUNDS, color=FAILURE, linestyle=":", linewidth=1.5, label="slowdown ends")
            )
            self._backs.append(ax.axvline(ROUNDS, color=FAILURE, linestyle="-", alpha=0.35, linewidth=3))
            ax.set_xlim(DRIFT_FROM, ROUNDS)
            ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
        self._axes = (limit_ax, base_ax, drop_ax)
        self._title = self.figure.suptitle("")

    def update(self, view: DriftRuns) -> DriftFigure:
        """Show ``view``: the limit, the baseline and the tracking drops, the slowdown's end, the return."""
        rounds = list(range(len(view.event_limit)))
        self._limit.set_data(rounds, list(view.event_limit))
        self._baseline.set_data(rounds, list(view.baseline))
        self._before.set_ydata([view.drift.before] * 2)
        for name, line in self._drops.items():
            line.set_data(rounds, list(view.tracking_since[name]))
        lasts = view.stop >= len(view.event_limit)
        for end in self._ends:
            end.set_xdata([view.stop] * 2)
            end.set_visible(not lasts)
        back = view.drift.back_at
        for line in (self._back, *self._backs):
            line.set_visible(back is not None)
        if back is not None:
            for line in self._backs:
                line.set_xdata([back] * 2)
            self._back.set_data([back], [view.event_limit[back]])
            when = f"back at {view.drift.before} in round {back} ({back - view.drift.start} rounds in)"
        else:
            when = f"still down when it ends (lowest {view.drift.lowest})"
        top = max(max(series) for series in view.tracking_since.values())
        self._axes[2].set_ylim(0, nice_ceiling(1.1 * top))
        self._title.set_text(
            f"Gradient2, tolerance {view.tolerance:g}, slowdown {view.drift.slowdown_rounds} rounds: "
            f"event limit {when}"
        )
        return self

    def frame_key(self) -> object:
        return self._axes[2].get_ylim()

    def moving(self) -> list[Artist]:
        lines = [self._limit, self._before, self._baseline, *self._drops.values(), *self._ends, *self._backs]
        return [*lines, self._back, *spines(*self._axes), self._title]


class RampFigure(KeptFigure):
    """Vegas' tracking limit from a low start on the healthy day, rounds on a log scale: the chosen
    ramp, and the same ramp with slow start the other way (dashed). Kept by the slow-start panel."""

    def __init__(self) -> None:
        super().__init__(10, 4.2, left=0.08, right=0.72, top=0.86, bottom=0.15)
        ax = self.figure.subplots()
        chosen, other = "Vegas' limit, as chosen", "the same, slow start the other way"
        (self._chosen,) = ax.plot([], [], color=LIMIT, linewidth=1.6, drawstyle="steps-post", label=chosen)
        (self._other,) = ax.plot([], [], "--", color=NEUTRAL, lw=1.4, drawstyle="steps-post", label=other)
        (self._mark,) = ax.plot([], [], "o", color=TRACKING, ms=8, label=f"reaches {LESSON_SPLIT}")
        wall = f"the lesson's tracking compartment ({LESSON_SPLIT})"
        ax.axhline(LESSON_SPLIT, color=TRACKING, linestyle=":", linewidth=1.2, label=wall)
        ax.set(xscale="log", xlim=(1, ROUNDS), ylim=(0, TOTAL + 2), ylabel="tracking limit (slots)")
        ax.set_xlabel("round, log scale (100 rounds = 1 s), healthy day")
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
        self._ax = ax
        self._title = self.figure.suptitle("")
        self._subtitle = moving_title(ax)

    def update(self, ramps: Sequence[Ramp], initial: int, slow_start: bool, windowed: bool) -> RampFigure:
        """Show the chosen ramp of ``ramps``, its slow-start twin, and when each reaches the compartment."""
        chosen, other = (
            next(r for r in ramps if (r.windowed, r.slow_start) == (windowed, s))
            for s in (slow_start, not slow_start)
        )
        for line, ramp in ((self._chosen, chosen), (self._other, other)):
            line.set_data(range(1, len(ramp.tracking_limit)), ramp.tracking_limit[1:])
        self._mark.set_visible(chosen.reached_at is not None)
        if chosen.reached_at is not None:
            self._mark.set_data([max(1, chosen.reached_at)], [chosen.tracking_limit[chosen.reached_at]])

        def when(at: int | None) -> str:
            return "never in the run" if at is None else f"round {at} ({at / 100:g} s)"

        on, off = ("on", "off") if slow_start else ("off", "on")
        self._title.set_text(f"Vegas from limit {initial}, updated {UPDATES[windowed]}, slow start {on}")
        reached, twin = when(chosen.reached_at), when(other.reached_at)
        self._subtitle.set_text(f"reaches {chosen.target}: {reached}; with slow start {off}: {twin}")
        return self

    def moving(self) -> list[Artist]:
        return [self._other, self._chosen, self._mark, *spines(self._ax), self._title, self._subtitle]


REFUSAL_BIN = 0.25  # seconds per bar of the refusals' plot


def _steps(points: Sequence[tuple[float, int]], end: float) -> tuple[list[float], list[int]]:
    """A step series' times and values, held to ``end``."""
    if not points:
        return [0.0, end], [0, 0]
    times = [t for t, _ in points] + [max(end, points[-1][0])]
    values = [n for _, n in points] + [points[-1][1]]
    return times, values


def live_figure(view: LiveView) -> Figure:
    """Above: the bulkhead's limit and the calls Payment held at once, the slowdown shaded. Below:
    the orders refused, per quarter second, by when they were sent."""
    fig = _figure(10, 4.8, left=0.08, right=0.76, top=0.88, bottom=0.11, hspace=0.12)
    calls, refusals = fig.subplots(2, 1, sharex=True, height_ratios=[3, 1])
    end = max(view.duration, view.last_slow)
    for ax in (calls, refusals):
        ax.axvspan(*view.window, color=FAILURE, alpha=0.12, linewidth=0, label="Payment slow")
        last = "its last slow call ends"
        ax.axvline(view.last_slow, color=FAILURE, linestyle=":", linewidth=1.3, label=last)
    t, n = _steps(view.payment, end)
    calls.step(t, n, where="post", color=EVENT, linewidth=1.6, label="Payment's calls in flight")
    t, n = _steps(view.limit, end)
    whose = f"{view.algorithm}'" if view.algorithm.endswith("s") else f"{view.algorithm}'s"  # Vegas'
    calls.step(t, n, where="post", color=LIMIT, linewidth=1.6, label=f"{whose} limit")
    # Scaled to Payment's calls and the limit it met when it slowed: a limit that climbs far above
    # them while Payment is healthy (AIMD, Envoy) leaves the axis, and a note says how far.
    top = max([c for _, c in view.payment] + [view.facts.limit_before, view.facts.limit_lowest, 10])
    calls.set(ylim=(0, top * 1.25), ylabel="calls at once")
    if max(n) > top * 1.25:
        off = f"limit up to {max(n)}, off the scale"
        calls.text(0.99, 0.97, off, transform=calls.transAxes, ha="right", va="top")
    bins = max(1, round(end / REFUSAL_BIN + 0.5))
    counts = [0] * bins
    for sent in view.refusals:
        counts[min(bins - 1, int(sent / REFUSAL_BIN))] += 1
    middles = [(i + 0.5) * REFUSAL_BIN for i in range(bins)]
    refusals.bar(middles, counts, REFUSAL_BIN * 0.9, color=REFUSED, label="orders refused (503)")
    refusals.set_ylim(0, max([*counts, 1]) * 1.25)
    refusals.yaxis.set_major_locator(MaxNLocator(3, integer=True))
    refusals.set(
        xlim=(0, end), xlabel="seconds since the first order", ylabel=f"refused /\n{REFUSAL_BIN:g} s"
    )
    fig.legend(*legend_items((calls, refusals)), loc="center left", bbox_to_anchor=(0.77, 0.55))
    fig.suptitle(
        f"{view.algorithm} around Payment, live: {view.orders} orders, {view.refused} refused; "
        f"limit {view.facts.limit_before} → {view.facts.limit_lowest} → {view.facts.limit_after}"
    )
    return fig
