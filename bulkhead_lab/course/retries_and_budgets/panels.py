"""Notebook 06's slider panels: how the callers retry in, calls and requests given up over time out.

Both panels are :class:`~bulkhead_lab.course.ui.panel.SliderView` panels over the model's split slider
(:mod:`bulkhead_lab.course.ui.controls`: "single pool", then 1/31 .. 31/1) and the callers' sliders:
attempts, jitter (or "at once"), backoff base, retry budget and whose books it keeps. Every run
comes from :func:`bulkhead_lab.retries.storm.retry_run`, so a slider moved back and forth replays nothing;
each panel keeps one figure and redraws it in place.

:func:`live_runs` runs section 8's live clients under a progress bar (``bl-progress-clients``,
``bl-status-clients``) that counts the orders answered.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from bulkhead_lab.course.retries_and_budgets import figures, views
from bulkhead_lab.course.ui import controls
from bulkhead_lab.course.ui.panel import LiveProgress, SliderView, display_widget, slider
from bulkhead_lab.course.ui.runner import Interrupted
from bulkhead_lab.live.orders.load import OrdersRun
from bulkhead_lab.pool.params import LESSON_SPLIT, ROUNDS, START
from bulkhead_lab.retries.drain import STORM_STOP
from bulkhead_lab.retries.policy import BASE_ROUNDS, SRE_MAX_ATTEMPTS

STOP_STEP = 100  # the slowdown's end moves in steps of 1 s


def _callers(attempts: int, jitter: str, budget: str) -> dict[str, w.ValueWidget]:
    return {
        "attempts": slider(w.IntSlider, "attempts", "attempts per request", min=1, max=6, value=attempts),
        "jitter": slider(w.SelectionSlider, "jitter", "jitter", options=list(views.JITTERS), value=jitter),
        "budget": slider(
            w.SelectionSlider, "budget", "retry budget", options=list(views.BUDGETS), value=budget
        ),
    }


def _panel(name: str, controls_: dict[str, w.ValueWidget], render: Any) -> SliderView:
    return SliderView(name, controls_, render, to_model=controls.to_model, to_controls=controls.to_controls)


def retry_panel(
    split: int | None = LESSON_SPLIT,
    attempts: int = SRE_MAX_ATTEMPTS,
    jitter: str = "full",
    base: int = int(BASE_ROUNDS),
    budget: str = "none",
    scope: str = views.SCOPES[0],
) -> SliderView:
    """Calls offered and requests given up over the run, one pool against a split, on both days."""
    callers = _callers(attempts, jitter, budget)
    controls_ = {
        "split": controls.split_slider(split),
        "attempts": callers["attempts"],
        "jitter": callers["jitter"],
        "base": slider(
            w.SelectionSlider,
            "backoff-base",
            "backoff base",
            options=[(f"{b} rounds ({b * 10} ms)", b) for b in views.BASES],
            value=base,
        ),
        "budget": callers["budget"],
        "scope": slider(
            w.SelectionSlider, "budget-scope", "budget kept for", options=list(views.SCOPES), value=scope
        ),
    }
    figure = figures.RetryFigure()  # kept, and redrawn in place on every move

    def render(split: int | None, scope: str, **callers: Any) -> Any:
        view = views.retry_view(split, views.setup_of(scope=scope, **callers))
        return view, [figure.update(view)], [view.frame]

    return _panel("retries", controls_, render)


def storm_panel(
    split: int | None = LESSON_SPLIT,
    attempts: int = SRE_MAX_ATTEMPTS,
    jitter: str = "full",
    budget: str = "none",
    stop: int = STORM_STOP,
) -> SliderView:
    """The load around the end of a slowdown, and how many rounds the retries keep it up."""
    controls_ = {
        "split": controls.split_slider(split),
        **_callers(attempts, jitter, budget),
        "stop": slider(
            w.IntSlider,
            "slowdown-ends",
            "slowdown ends (round)",
            min=START + STOP_STEP,
            max=ROUNDS - views.STORM_AFTER,
            step=STOP_STEP,
            value=stop,
        ),
    }
    figure = figures.StormFigure()

    def render(split: int | None, stop: int, **callers: Any) -> Any:
        view = views.storm_view(split, views.setup_of(**callers), stop)
        return view, [figure.update(view)], [view.frame]

    return _panel("storm", controls_, render)


def live_runs() -> tuple[OrdersRun, ...]:
    """Section 8's four kinds of client side by side (:func:`.views.live_runs`), under a progress bar
    that counts the orders answered; it says done, or where an interrupt stopped them."""
    progress = LiveProgress("clients", unit="orders answered", total=views.ORDERS * len(views.CLIENTS))
    display_widget(
        progress.widget, "Run this cell to run the live clients (a bar counts the orders answered)."
    )
    progress.running()
    try:
        runs = views.live_runs(progress.on_progress)
    except Interrupted as stop:
        progress.interrupted(stop.why)
        raise
    progress.done(f"done: {sum(len(r.orders) for r in runs)} orders, {max(r.duration for r in runs):.1f} s")
    return runs
