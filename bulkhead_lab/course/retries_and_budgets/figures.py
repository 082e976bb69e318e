"""Notebook 06's figures; the two slider panels keep theirs and redraw it in place
(:class:`~bulkhead_lab.course.ui.blit.KeptFigure`), in the palette's colours (:mod:`.ui.style`)."""

from __future__ import annotations

from typing import Any

import pandas as pd
from matplotlib.artist import Artist
from matplotlib.figure import Figure

from bulkhead_lab.course.retries_and_budgets.views import FLOWS, Contention
from bulkhead_lab.course.ui.blit import KeptFigure, moving_title, nice_ceiling, spines
from bulkhead_lab.course.ui.style import EVENT, EXTRA, FAILURE, LIMIT, NEUTRAL, REFUSED, TRACKING, figure
from bulkhead_lab.pool.params import split_label
from bulkhead_lab.retries.seeded import LESSON, RetryLoad, StormLoad

FLOW_COLOURS = {0: TRACKING, 1: EVENT}
PER_ORDER = "calls per order"  # the live table's middle group of columns

# Brooker's strategies: the two without jitter in the guides' grey and black, the jitters in the
# further series' colours (none of them is a flow, a refusal or a limit).
STRATEGY_STYLES: dict[str, dict[str, Any]] = {
    "no backoff": {"color": NEUTRAL, "linestyle": "--", "marker": "x"},
    "exponential, no jitter": {"color": LIMIT, "linestyle": "-", "marker": "s"},
    "full jitter": {"color": EXTRA[0], "linestyle": "-", "marker": "o"},
    "equal jitter": {"color": EXTRA[1], "linestyle": "-", "marker": "^", "markeredgecolor": "#7a7000"},
    "decorrelated jitter": {"color": EXTRA[2], "linestyle": "-", "marker": "D"},
}


def contention_figure(view: Contention) -> Figure:
    """Calls made and the step of the last success against the number of contending clients."""
    fig = figure(10, 4.0, left=0.07, right=0.76, top=0.85, bottom=0.14, wspace=0.3)
    calls, done = fig.subplots(1, 2)
    for ax, column, ylabel, title in (
        (calls, "calls", "calls made (all clients)", "work: every call made"),
        (done, "completion", "step of the last success", "time: until every client succeeded (log)"),
    ):
        for strategy in view.frame.index.get_level_values("strategy").unique():
            part = view.frame.xs(strategy, level="strategy")
            style = {"linewidth": 2, "markersize": 5, **STRATEGY_STYLES.get(strategy, {})}
            ax.plot(list(part.index), list(part[column]), label=strategy, **style)
        ax.set(xlabel="contending clients", ylabel=ylabel, title=title)
    done.set_yscale("log")
    done.legend(loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.suptitle(
        f"Clients contending for one resource, backoff with and without jitter (mean of {view.runs} seeds)"
    )
    return fig


RETRY_LINES: dict[str, dict[str, Any]] = {  # the retry figure's lines, in the flow's colour unless given
    "requests": {"color": NEUTRAL, "linestyle": ":", "linewidth": 1.5, "label": "requests"},
    "healthy": {"linewidth": 1, "alpha": 0.6, "label": "calls, healthy day"},
    "slowdown": {"linewidth": 2, "label": "calls, slowdown day"},
    "gave up": {"color": REFUSED, "linewidth": 1.5, "label": "gave up, slowdown day"},
}


class RetryFigure(KeptFigure):
    """Calls offered per second over the run, per flow (rows) and layout (columns), on both days,
    with the requests underneath (what no retry would offer) and the requests given up.

    Kept by the retry panel: lines, titles and the summary move; the frame is drawn again when a
    row's scale steps (:func:`~bulkhead_lab.course.ui.blit.nice_ceiling`) or the layouts change.
    """

    def __init__(self) -> None:
        super().__init__(10, 6.2, left=0.08, right=0.76, top=0.87, bottom=0.09, hspace=0.3, wspace=0.1)
        self._columns = 0
        self._lines: dict[tuple[int, int, str], Any] = {}

    def _layout(self, columns: int, start_s: float) -> None:
        self._columns = columns
        fig = self.rebuild()
        grid = fig.subplots(2, columns, sharex=True, sharey="row", squeeze=False)
        self._axes = [list(row) for row in grid]
        self._lines = {}
        for r, (flow, name) in enumerate(FLOWS):
            colour = FLOW_COLOURS[flow]
            for c, ax in enumerate(self._axes[r]):
                for key, style in RETRY_LINES.items():
                    self._lines[(r, c, key)] = ax.plot([], [], **{"color": colour, **style})[0]
                ax.axvline(start_s, color=FAILURE, linestyle="--", linewidth=1, label="slowdown starts")
                ax.set_xlim(0, None)
            self._axes[r][0].set_ylabel(f"{name} calls/s")
            self._axes[r][-1].legend(loc="center left", bbox_to_anchor=(1.03, 0.5), title=f"{name} flow")
        for ax in self._axes[-1]:
            ax.set_xlabel("time (s)")
        self._titles = [moving_title(ax, fontsize="large") for ax in self._axes[0]]
        self._summary = fig.text(0.42, 0.97, "", ha="center", va="top", fontsize="large")
        self._start = start_s

    def update(self, view: RetryLoad) -> RetryFigure:
        """Show ``view``: both days of each layout, per flow, and what the slowdown cost each."""
        start_s, time = view.start / LESSON.cycle, view.time
        if self._columns != len(view.layouts) or self._start != start_s:
            self._layout(len(view.layouts), start_s)
            for ax in self._axes[0]:
                ax.set_xlim(0, time[-1] + (time[1] - time[0]))
        for r, (flow, _) in enumerate(FLOWS):
            top = 0.0
            for c, split in enumerate(view.layouts):
                for key, values in view.rates[(split, flow)].items():
                    self._lines[(r, c, key)].set_data(time, values)
                    top = max(top, *values)
            self._axes[r][0].set_ylim(0, nice_ceiling(top * 1.05))
        for c, split in enumerate(view.layouts):
            self._titles[c].set_text(split_label(split))
        self._summary.set_text(view.setup.label)  # the numbers are in the table under the figure
        return self

    def frame_key(self) -> object:
        return tuple(row[0].get_ylim() for row in self._axes)

    def moving(self) -> list[Artist]:
        axes = [ax for row in self._axes for ax in row]
        return [*self._lines.values(), *spines(*axes), *self._titles, self._summary]


class StormFigure(KeptFigure):
    """Calls offered above the healthy day's, per flow, around the end of a slowdown, per layout;
    the round the load is back marked. Kept by the storm panel: the frame is drawn again when the
    end of the slowdown moves the window or the scale steps."""

    def __init__(self) -> None:
        super().__init__(10, 3.8, left=0.08, right=0.76, top=0.8, bottom=0.15, wspace=0.18)
        self._columns = 0

    def _layout(self, columns: int) -> None:
        self._columns = columns
        fig = self.rebuild()
        self._axes = list(fig.subplots(1, columns, sharey=True, squeeze=False)[0])
        self._lines: list[Any] = []
        self._stops: list[Any] = []
        self._backs: list[Any] = []
        self._bands: list[Any] = []
        for ax in self._axes:
            for flow, name in FLOWS:
                self._lines += ax.plot([], [], color=FLOW_COLOURS[flow], linewidth=2, label=f"{name} calls")
            ax.axhline(0, color=LIMIT, linewidth=0.8)
            for flow, name in FLOWS:
                band = f"{name}: 10% of requests"
                self._bands.append(
                    ax.axhline(0, color=FLOW_COLOURS[flow], linestyle=":", linewidth=1.5, label=band)
                )
            self._stops.append(ax.axvline(0, color=LIMIT, linestyle="--", linewidth=1, label="slowdown ends"))
            self._backs.append(ax.axvline(0, color=NEUTRAL, linewidth=2, label="every flow back"))
            ax.set_xlabel("round (100 rounds = 1 s)")
        self._axes[0].set_ylabel("calls/s above the healthy day")
        self._axes[-1].legend(loc="center left", bbox_to_anchor=(1.03, 0.5))
        self._titles = [moving_title(ax) for ax in self._axes]
        self._summary = fig.text(0.42, 0.97, "", ha="center", va="top", fontsize="large")

    def update(self, view: StormLoad) -> StormFigure:
        """Show ``view``: each layout's excess load around the slowdown's end, and when it is back."""
        if self._columns != len(view.layouts):
            self._layout(len(view.layouts))
        width = view.rounds[1] - view.rounds[0]
        low, high = 0.0, max(view.thresholds.values())
        for c, split in enumerate(view.layouts):
            ax = self._axes[c]
            for f, (flow, _) in enumerate(FLOWS):
                values = view.excess[(split, flow)]
                self._lines[2 * c + f].set_data(view.rounds, values)
                self._bands[2 * c + f].set_ydata([view.thresholds[flow]] * 2)
                low, high = min(low, *values), max(high, *values)
            ax.set_xlim(view.rounds[0], view.rounds[-1] + width)
            self._stops[c].set_xdata([view.stop] * 2)
            back = view.back(split)
            self._backs[c].set_visible(back is not None)
            self._backs[c].set_xdata([view.stop + (back or 0)] * 2)
            when = "not back in the run" if back is None else f"back after {back} rounds"
            self._titles[c].set_text(f"{split_label(split)}: {when}")
        self._axes[0].set_ylim(-nice_ceiling(-low * 1.1) if low < 0 else 0, nice_ceiling(high * 1.1))
        self._summary.set_text(f"{view.setup.label}; the slowdown ends at round {view.stop}")
        return self

    def frame_key(self) -> object:
        return self._axes[0].get_xlim(), self._axes[0].get_ylim(), self._stops[0].get_xdata()[0]

    def moving(self) -> list[Artist]:
        return [*self._lines, *self._backs, *spines(*self._axes), *self._titles, self._summary]


# Section 7's layers, each in its own colour: the clients in the guides' grey, the Order Service in
# the further series' green, Payment (the dependency that slows) orange.
LAYER_COLOURS = (NEUTRAL, EXTRA[0], EVENT)


def live_figure(frame: pd.DataFrame) -> Figure:
    """Calls per order at each layer, per kind of client: sent by the clients, received by the Order
    Service, counted by Payment (:func:`.panels.live_frame`'s table)."""
    fig = figure(10, 3.8, left=0.07, right=0.78, top=0.86, bottom=0.2)
    ax = fig.subplots()
    per_order = frame[PER_ORDER]
    width = 0.8 / len(per_order.columns)
    top = 1.0
    for k, (column, colour) in enumerate(zip(per_order.columns, LAYER_COLOURS, strict=True)):
        values = [float(v) for v in per_order[column]]
        xs = [i + (k - (len(per_order.columns) - 1) / 2) * width for i in range(len(values))]
        bars = ax.bar(xs, values, width * 0.92, color=colour, label=column)
        ax.bar_label(bars, [f"{v:.2f}" for v in values], padding=2, fontsize=8)
        top = max(top, *values)
    ax.axhline(1.0, color=LIMIT, linestyle="--", linewidth=1, label="one call per order")
    ax.set_xticks(range(len(frame)), [name.replace(", ", ",\n") for name in frame.index])
    ax.set(ylim=(0, top * 1.2), ylabel="calls per order")
    ax.grid(axis="x", visible=False)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.suptitle("Retrying clients against lesson 004's bulkhead: which layer the retries reach")
    return fig
