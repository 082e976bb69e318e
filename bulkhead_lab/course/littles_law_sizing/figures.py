"""Notebook 01's figures: a slow flow flooding a shared pool, and blocking against pool size."""

from __future__ import annotations

from matplotlib.artist import Artist
from matplotlib.figure import Figure

from bulkhead_lab.course.littles_law_sizing.views import LittleView
from bulkhead_lab.course.ui.blit import KeptFigure, spines
from bulkhead_lab.course.ui.style import EVENT, EXTRA, FAILURE, LIMIT, NEUTRAL, REFUSED, THEORY, TRACKING
from bulkhead_lab.course.ui.style import figure as _figure
from bulkhead_lab.pool.params import Params
from bulkhead_lab.pool.rounds import occupancy

SUGGESTED = EXTRA[0]  # the rule of thumb's limit: its own colour, next to the pool's


def flood_figure() -> Figure:
    """Lesson 000's one pool on its slowdown day: each flow's busy slots, round by round, near the failure."""
    params, before, after = Params(mode="slowdown"), 100, 300
    occ = occupancy(params)
    lo, start, hi = params.start - before, params.start, params.start + after
    tracking, event = occ.tracking[lo:hi], occ.event[lo:hi]
    fig = _figure(10, 3.6, left=0.07, right=0.76, top=0.86, bottom=0.16)
    ax = fig.subplots()
    ax.stackplot(range(lo, hi), tracking, event, colors=[TRACKING, EVENT], labels=["tracking", "events"])
    ax.axhline(params.total, color=LIMIT, linestyle="--", linewidth=1, label=f"all {params.total} slots")
    ax.axvline(start, color=FAILURE, linewidth=1.5, label="events' dependency slows")
    ax.set(xlim=(lo, hi - 1), ylim=(0, params.total + 2), ylabel="busy slots")
    ax.set_xlabel("round (100 rounds = 1 s)")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
    mean_before, mean_after = sum(event[:before]) / before, sum(event[before:]) / after
    ax.set_title(
        f"One pool of {params.total}: events hold {mean_before:.1f} slots on average before the "
        f"slowdown, {mean_after:.1f} after"
    )
    return fig


class BlockingFigure(KeptFigure):
    """Blocking against pool size, Erlang-B beside the seeded model, with the pool, the load in flight
    and the suggested limit; kept by the panel, its frame drawn again only when the pool sizes shown
    change. Both titles are anchored at the figure's left edge, so a long one runs right, never off it.
    """

    def __init__(self) -> None:
        super().__init__(10, 4.4, left=0.07, right=0.68, top=0.84, bottom=0.13)
        ax = self._ax = self.figure.subplots()
        (self._erlang,) = ax.plot([], [], color=THEORY, label="Erlang-B (rate x hold)")
        (self._half,) = ax.plot([], [], color=THEORY, linestyle=":", label="Erlang-B, hold - 1/2 round")
        (self._model,) = ax.plot([], [], "o", color=LIMIT, ms=4, label="seeded model (one flow, 40 s)")
        self._load = ax.axvline(1, color=NEUTRAL, linewidth=1.5, label="in flight (Little's Law)")
        self._limit = ax.axvline(
            1, color=SUGGESTED, linewidth=2, linestyle="--", label="suggested limit (target headroom)"
        )
        self._pool = ax.axvline(1, color=REFUSED, linewidth=1, linestyle="--")
        (self._mark,) = ax.plot([1], [0], "o", color=REFUSED, ms=10, label="your pool")
        ax.set(xlabel="pool size (slots)", ylabel="share of arrivals refused", ylim=(0, 1))
        ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5))  # beside the axes, off the data
        self._title = self.figure.text(0.01, 0.985, "", ha="left", va="top", fontsize="large")
        self._subtitle = self.figure.text(0.01, 0.925, "", ha="left", va="top")

    def update(self, view: LittleView) -> BlockingFigure:
        curve = view.curve
        sizes = list(curve.index)
        self._erlang.set_data(sizes, list(curve["Erlang-B"]))
        self._half.set_data(sizes, list(curve["Erlang-B, hold - 1/2 round"]))
        self._model.set_data(sizes, list(curve["seeded model"]))
        self._load.set_xdata([view.in_flight] * 2)
        self._limit.set_xdata([view.suggested_limit] * 2)
        self._pool.set_xdata([view.slots] * 2)
        self._mark.set_data([view.slots], [view.simulated])
        self._ax.set_xlim(0.5, len(curve) + 0.5)
        self._title.set_text(
            f"{view.arrival_rate:g} calls/s x {view.hold:g} s = {view.in_flight:.2f} in flight; "
            f"a pool of {view.slots} refuses {view.erlang_b:.1%} (Erlang-B), {view.simulated:.1%} (model)"
        )
        self._subtitle.set_text(
            f"this pool's headroom {view.pool_headroom:.2f}x; suggested limit {view.suggested_limit} "
            f"(headroom {view.target_headroom:g}x); hold {view.hold_rounds} rounds in the model"
        )
        return self

    def frame_key(self) -> object:
        return self._ax.get_xlim()

    def moving(self) -> list[Artist]:
        lines = [self._erlang, self._half, self._model, self._load, self._limit, self._pool, self._mark]
        return [*lines, *spines(self._ax), self._title, self._subtitle]


def blocking_figure(view: LittleView) -> Figure:
    """Blocking against pool size for ``view`` (a :class:`BlockingFigure` drawn once)."""
    return BlockingFigure().update(view).figure
