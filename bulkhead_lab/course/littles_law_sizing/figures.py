"""Notebook 01's figures: blocking against pool size, and what too small and too big cost."""

from __future__ import annotations

from matplotlib.figure import Figure

from ..style import EVENT, EXTRA, LIMIT, NEUTRAL, REFUSED, THEORY, TRACKING
from ..style import figure as _figure
from .views import LittleView, PoolSizeCost

SUGGESTED = EXTRA[0]  # the rule of thumb's limit: its own colour, next to the pool's


def blocking_figure(view: LittleView) -> Figure:
    """Blocking against pool size: Erlang-B beside the seeded model, with the pool, the load in flight
    and the suggested limit drawn on the same axis.

    The chosen pool's two blocking numbers are written in the title, where the eye lands.
    """
    fig = _figure(10, 4.4, left=0.07, right=0.68, top=0.86, bottom=0.13)
    ax = fig.subplots()
    curve = view.curve
    ax.plot(curve.index, curve["Erlang-B"], color=THEORY, label="Erlang-B (rate x hold)")
    ax.plot(
        curve.index,
        curve["Erlang-B, hold - 1/2 round"],
        color=THEORY,
        linestyle=":",
        label="Erlang-B, hold shortened by 1/2 round",
    )
    ax.plot(curve.index, curve["seeded model"], "o", color=LIMIT, ms=4, label="seeded model (one flow, 40 s)")
    ax.axvline(view.in_flight, color=NEUTRAL, linewidth=1.5, label=f"in flight = {view.in_flight:.2f}")
    ax.axvline(
        view.suggested_limit,
        color=SUGGESTED,
        linewidth=2,
        linestyle="--",
        label=f"suggested limit {view.suggested_limit} (headroom {view.target_headroom:g}x)",
    )
    ax.axvline(view.slots, color=REFUSED, linewidth=1, linestyle="--")
    ax.plot(view.slots, view.simulated, "o", color=REFUSED, ms=10, label=f"your pool of {view.slots}")
    ax.set_xlabel("pool size (slots)")
    ax.set_ylabel("share of arrivals refused")
    ax.set_ylim(0, 1)
    ax.set_xlim(0.5, len(curve) + 0.5)
    ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5))  # beside the axes, never over the data
    fig.suptitle(
        f"{view.arrival_rate:g} calls/s x {view.hold:g} s = {view.in_flight:.2f} in flight; "
        f"a pool of {view.slots} refuses {view.erlang_b:.1%} (Erlang-B), {view.simulated:.1%} (model)"
    )
    ax.set_title(
        f"hold {view.hold_rounds} rounds in the model; headroom of this pool {view.pool_headroom:.2f}x"
    )
    return fig


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
