"""Notebook 01's figure: blocking against pool size, Erlang-B beside the seeded model."""

from __future__ import annotations

from matplotlib.figure import Figure

from ..style import figure as _figure
from .views import LittleView


def blocking_figure(view: LittleView) -> Figure:
    """Blocking against pool size: Erlang-B curves and the seeded model's measured drop rate."""
    fig = _figure(8, 4.2, left=0.09, right=0.98, top=0.9, bottom=0.12)
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
