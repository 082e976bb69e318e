"""Notebook 10's figure: what the dependency held, second by second, under a rate limit and under a
concurrency limit, with the dependency slow."""

from __future__ import annotations

from matplotlib.figure import Figure

from bulkhead_lab.course.ui import style
from bulkhead_lab.live.stack import rate


def rate_figure(runs: list[rate.RateRun]) -> Figure:
    """Calls in flight at the dependency over time under a 40/s token bucket and under a concurrency limit
    of 10, with the dependency slowed to 500 ms."""
    fig = Figure(figsize=(8, 3.6))
    ax = fig.add_subplot()
    colours = {"rate": style.EVENT, "concurrency": style.TRACKING}
    for r in runs:
        if r.latency != rate.SLOW:
            continue
        xs = [t for t, _ in r.timeline]
        ys = [n for _, n in r.timeline]
        label = "token bucket, 40 calls/s" if r.limiter == "rate" else f"concurrency limit {rate.LIMIT}"
        ax.step(xs, ys, where="post", color=colours[r.limiter], label=label)
    ax.axhline(rate.RATE * rate.SLOW, color=style.THEORY, linestyle="--",
               label=f"Little's Law: 40/s x {rate.SLOW:g} s = {rate.RATE * rate.SLOW:g}")  # fmt: skip
    ax.set_xlabel("time since the first call (s)")
    ax.set_ylabel("calls in flight at the dependency")
    ax.set_title(
        "The dependency slows to 500 ms: a rate limit lets in-flight grow, a concurrency limit does not"
    )
    ax.legend(loc="upper right", fontsize=9)
    ax.set_ylim(bottom=0)
    return fig
