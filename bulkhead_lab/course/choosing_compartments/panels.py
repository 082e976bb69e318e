"""Notebook 08's panels: the target (section 1), the fleet (section 2), the breaker (section 4), and the
live isolations' progress (section 3).

Each panel keeps one figure of :mod:`.figures` and redraws it in place on every move; each
view is kept by :mod:`.views` or the model's own memos, so a slider moved back and forth
replays nothing. CSS classes: ``bl-panel-<name>``, ``bl-slider-<slider>``.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w
import pandas as pd

from bulkhead_lab.compartments import breaker, isolation_cost, shuffle
from bulkhead_lab.compartments.breaker import BreakerSettings
from bulkhead_lab.course.choosing_compartments import figures, views
from bulkhead_lab.course.ui.panel import LiveProgress, SliderView, choice, slider
from bulkhead_lab.live.isolation import ISOLATIONS, IsolationRun, IsolationSettings
from bulkhead_lab.live.watched import WatchedRun, WatchSettings


def cost_panel(target: float = isolation_cost.TARGET) -> SliderView:
    """The target blocking: the slots apart and together, and the seeded model at those sizes."""
    options = [(f"{t:.1%}", t) for t in isolation_cost.TARGETS]
    controls = {"target": choice("target", "target blocking", options, target)}
    figure = figures.CostFigure()

    def render(target: float) -> Any:
        view = views.cost_view(target)
        return view, [figure.update(view)], [view.table(), view.model_table()]

    return SliderView("cost", controls, render)


def shard_panel(workers: int = shuffle.WORKERS, size: int = shuffle.SIZE) -> SliderView:
    """Workers and shard size: shuffle against plain sharding, by the formula and by a seeded deal."""
    controls = {
        "workers": slider(w.IntSlider, "workers", "workers", min=4, max=32, value=workers),
        "size": slider(w.IntSlider, "shard-size", "shard size (workers)", min=1, max=4, value=size),
    }
    figure = figures.ShardFigure()

    def render(workers: int, size: int) -> Any:
        if size >= workers:
            raise ValueError(f"size must be smaller than workers, {workers} (got {size})")
        view = views.shard_view(workers, size)
        return view, [figure.update(view)], [view.table()]

    return SliderView("shards", controls, render)


def breaker_panel(ratio: float = 0.5, window: int = 10, slow_call: int = 10, slow: int = 22) -> SliderView:
    """The breaker's ratio, window and slow-call threshold, and how slow the slowdown is."""
    controls = {
        "ratio": slider(
            w.FloatSlider,
            "ratio",
            "opens at failed share",
            min=0.1,
            max=1.0,
            step=0.1,
            value=ratio,
            readout_format=".1f",
        ),
        "window": slider(w.IntSlider, "window", "window (calls)", min=2, max=50, value=window),
        "slow_call": slider(w.IntSlider, "slow-call", "slow call (rounds)", min=2, max=40, value=slow_call),
        "slow": slider(w.IntSlider, "slowdown-hold", "slowdown hold (rounds)", min=7, max=40, value=slow),
    }
    figure = figures.BreakerFigure()

    def render(ratio: float, window: int, slow_call: int, slow: int) -> Any:
        settings = BreakerSettings(ratio=round(ratio, 2), window=window, slow_call=slow_call)
        runs, judged = breaker.day_runs(settings, slow), breaker.judged(settings, slow)
        judges = pd.DataFrame({"what the breaker judges": judged})  # names the threshold: every move shows
        return runs, [figure.update(runs)], [views.breaker_table(runs), judges]

    return SliderView("breaker", controls, render)


SHOWN = "Run this cell to run it live (a bar counts the steps)."  # a saved notebook's bar


def run_isolation(settings: IsolationSettings = views.ISOLATION) -> tuple[IsolationRun, ...]:
    """Section 3's three variants, live, under a bar (about 5 s); Kernel > Interrupt stops them cleanly."""
    with LiveProgress("isolation", "variants run", len(ISOLATIONS)).shown(SHOWN) as progress:
        runs = views.isolation_runs(settings, progress)
    progress.on_progress(len(runs), len(ISOLATIONS))
    progress.done(f"done: {', '.join(r.isolation for r in runs)}")
    return runs


def run_watched(settings: WatchSettings = views.WATCHED) -> WatchedRun:
    """Section 5's live bulkhead: a steady stretch, then a burst (about 3 s)."""
    with LiveProgress("watched", "stretches run", 2).shown(SHOWN) as progress:
        run = views.watched_run(settings)
    progress.on_progress(2, 2)
    progress.done(f"done: {run.steady.calls + run.burst.calls} calls")
    return run
