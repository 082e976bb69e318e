"""Notebook 01's figures: blocking against pool size, and what too small and too big cost."""

from __future__ import annotations

from matplotlib.artist import Artist
from matplotlib.figure import Figure

from bulkhead_lab.course.littles_law_sizing.views import LittleView, PoolSizeCost
from bulkhead_lab.course.ui.blit import KeptFigure, moving_title, spines
from bulkhead_lab.course.ui.style import EVENT, EXTRA, LIMIT, NEUTRAL, REFUSED, THEORY, TRACKING
from bulkhead_lab.course.ui.style import figure as _figure

SUGGESTED = EXTRA[0]  # the rule of thumb's limit: its own colour, next to the pool's


class BlockingFigure(KeptFigure):
    """Blocking against pool size, kept by the panel and redrawn in place on every slider move.

    Erlang-B beside the seeded model, with the pool, the load in flight and the suggested
    limit drawn on the same axis; the pool's two blocking numbers are in the title, where
    the eye lands. The frame (axes, labels, legend) is kept; a move redraws the curves, the
    three marks and the titles, and the frame again only when the range of pool sizes shown
    changes.
    """

    def __init__(self) -> None:
        super().__init__(10, 4.4, left=0.07, right=0.68, top=0.86, bottom=0.13)
        ax = self.figure.subplots()
        self._ax = ax
        (self._erlang,) = ax.plot([], [], color=THEORY, label="Erlang-B (rate x hold)")
        (self._half,) = ax.plot(
            [], [], color=THEORY, linestyle=":", label="Erlang-B, hold shortened by 1/2 round"
        )
        (self._model,) = ax.plot([], [], "o", color=LIMIT, ms=4, label="seeded model (one flow, 40 s)")
        self._load = ax.axvline(1, color=NEUTRAL, linewidth=1.5, label="in flight (Little's Law)")
        self._limit = ax.axvline(
            1, color=SUGGESTED, linewidth=2, linestyle="--", label="suggested limit (target headroom)"
        )
        self._pool = ax.axvline(1, color=REFUSED, linewidth=1, linestyle="--")
        (self._mark,) = ax.plot([1], [0], "o", color=REFUSED, ms=10, label="your pool")
        ax.set_xlabel("pool size (slots)")
        ax.set_ylabel("share of arrivals refused")
        ax.set_ylim(0, 1)
        self._legend = ax.legend(
            loc="center left", bbox_to_anchor=(1.02, 0.5)
        )  # beside the axes, off the data
        self._title = self.figure.suptitle("")
        self._subtitle = moving_title(ax, fontsize="large")

    def update(self, view: LittleView) -> BlockingFigure:
        """Show ``view``: its curves, its pool, load and suggested limit, and its numbers."""
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
            f"suggested limit {view.suggested_limit} (headroom {view.target_headroom:g}x); "
            f"this pool's headroom {view.pool_headroom:.2f}x; hold {view.hold_rounds} rounds in the model"
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


def pool_size_figure(cost: PoolSizeCost) -> Figure:
    """Left: too small, the event flow's own healthy-day drops. Right: too big, what the slowdown takes."""
    fig = _figure(10, 4.4, left=0.07, right=0.98, top=0.84, bottom=0.27, wspace=0.28)
    small, big = fig.subplots(1, 2)
    frame = cost.frame
    labels = list(frame.index)
    x = list(range(len(labels)))
    small.bar(x, frame["healthy event drop %"], color=EVENT)
    for i, v in enumerate(frame["healthy event drop %"]):
        small.text(i, v, f"{v:g}", ha="center", va="bottom")
    small.set_ylabel("events dropped on a healthy day (%)")
    small.set_title("too small: the event pool refuses its own usual load")
    held = list(frame["slowdown: slots slow events hold"])
    rest = [cost.total - h for h in held]
    big.bar(x, held, color=EVENT, label="slots the slow events hold")
    big.bar(x, rest, bottom=held, color=TRACKING, alpha=0.35, label="slots left to tracking")
    for i, v in enumerate(frame["tracking dropped, slowdown day"]):
        big.text(i, cost.total + 0.5, f"{v}", ha="center", va="bottom", color=TRACKING)
    big.set_ylim(0, cost.total * 1.22)
    big.set_ylabel("slots (mean after the failure starts)")
    big.set_title("too big: the slowdown fills what it is given\n(blue figures: tracking dropped)")
    big.legend(loc="upper left", ncol=2)
    for ax in (small, big):
        ax.set_xticks(x, labels, rotation=30)
        ax.set_xlabel("layout (tracking / event slots)")
    fig.suptitle(f"Sizing the event pool out of {cost.total} slots")
    return fig
