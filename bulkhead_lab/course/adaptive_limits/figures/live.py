"""Section 6's figure: an adaptive limit around a live Payment, and Payment's own calls, over time.

Drawn afresh for each live run (a run takes seconds; redrawing in place would save nothing).
Colours are :mod:`bulkhead_lab.course.ui.style`'s: the limit black, Payment (the dependency that
slows) orange, refusals and the slowdown vermillion.
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from bulkhead_lab.course.adaptive_limits.views.live import REFUSAL_BIN, LiveView
from bulkhead_lab.course.ui.style import EVENT, FAILURE, LIMIT, REFUSED, figure


def _steps(points: Sequence[tuple[float, int]], end: float) -> tuple[list[float], list[int]]:
    """A step series' times and values, held to ``end``."""
    if not points:
        return [0.0, end], [0, 0]
    times = [t for t, _ in points] + [max(end, points[-1][0])]
    values = [n for _, n in points] + [points[-1][1]]
    return times, values


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def live_figure(view: LiveView) -> Figure:
    """Above: the bulkhead's limit and the calls Payment held at once, the slowdown shaded. Below:
    the orders refused, per quarter second, by when they were sent."""
    fig = figure(10, 4.8, left=0.08, right=0.76, top=0.88, bottom=0.11, hspace=0.12)
    calls, refusals = fig.subplots(2, 1, sharex=True, height_ratios=[3, 1])
    end = max(view.duration, view.last_slow)
    start, stop = view.window
    for ax in (calls, refusals):
        ax.axvspan(start, stop, color=FAILURE, alpha=0.12, linewidth=0, label="Payment slow")
        ax.axvline(
            view.last_slow, color=FAILURE, linestyle=":", linewidth=1.3, label="its last slow call ends"
        )
    t, n = _steps(view.payment, end)
    calls.step(t, n, where="post", color=EVENT, linewidth=1.6, label="Payment's calls in flight")
    t, n = _steps(view.limit, end)
    calls.step(t, n, where="post", color=LIMIT, linewidth=1.6, label=f"{_possessive(view.algorithm)} limit")
    # Scaled to Payment's calls and the limit it met when it slowed: a limit that climbs far above
    # them while Payment is healthy (AIMD, Envoy) leaves the axis, and a note says how far.
    top = max([c for _, c in view.payment] + [view.facts.limit_before, view.facts.limit_lowest, 10])
    calls.set_ylim(0, top * 1.25)
    if max(n) > top * 1.25:
        calls.text(
            0.99,
            0.97,
            f"limit up to {max(n)}, off the scale",
            transform=calls.transAxes,
            ha="right",
            va="top",
        )
    calls.set_ylabel("calls at once")
    bins = max(1, round(end / REFUSAL_BIN + 0.5))
    counts = [0] * bins
    for sent in view.refusals:
        counts[min(bins - 1, int(sent / REFUSAL_BIN))] += 1
    refusals.bar(
        [(i + 0.5) * REFUSAL_BIN for i in range(bins)],
        counts,
        REFUSAL_BIN * 0.9,
        color=REFUSED,
        label="orders refused (503)",
    )
    refusals.set_ylim(0, max([*counts, 1]) * 1.25)
    refusals.yaxis.set_major_locator(MaxNLocator(3, integer=True))
    refusals.set_ylabel(f"refused /\n{REFUSAL_BIN:g} s")
    refusals.set_xlabel("seconds since the first order")
    refusals.set_xlim(0, end)
    handles, labels = [], []
    for ax in (calls, refusals):
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(0.77, 0.55))
    fig.suptitle(
        f"{view.algorithm} around Payment, live: {view.orders} orders, {view.refused} refused; "
        f"limit {view.facts.limit_before} → {view.facts.limit_lowest} → {view.facts.limit_after}"
    )
    return fig
