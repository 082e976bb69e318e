"""Notebook 06's slider panels over the split slider and the callers' sliders (every run kept, one
figure redrawn in place), and section 7's live clients under a progress bar (``bl-progress-clients``).
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w
import pandas as pd

from bulkhead_lab.course.retries_and_budgets import figures, views
from bulkhead_lab.course.ui import controls
from bulkhead_lab.course.ui.panel import LiveProgress, SliderView, choice, slider
from bulkhead_lab.live.net.server import Progress
from bulkhead_lab.live.orders import retrying
from bulkhead_lab.live.orders.load import OrdersRun
from bulkhead_lab.live.orders.reading.retries import queued_waits, retry_checks, retry_facts
from bulkhead_lab.live.sync import run_sync
from bulkhead_lab.pool.params import LESSON_SPLIT, ROUNDS, START
from bulkhead_lab.retries.budgets import AWS_QUOTA, SRE_BUDGET
from bulkhead_lab.retries.drain import STORM_STOP
from bulkhead_lab.retries.experiments import worst_case_load
from bulkhead_lab.retries.policy import BASE_ROUNDS, SRE_MAX_ATTEMPTS
from bulkhead_lab.retries.seeded import LESSON_POLICY, STORM_AFTER, run
from bulkhead_lab.retries.storm import RetrySetup

STOP_STEP = 100  # the slowdown's end moves in steps of 1 s


def _callers(attempts: int, jitter: str, budget: str) -> dict[str, w.ValueWidget]:
    return {
        "attempts": slider(w.IntSlider, "attempts", "attempts per request", min=1, max=6, value=attempts),
        "jitter": choice("jitter", "jitter", list(views.JITTERS), jitter),
        "budget": choice("budget", "retry budget", list(views.BUDGETS), budget),
    }


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
    bases = [(f"{b} rounds ({b * 10} ms)", b) for b in views.BASES]
    controls_ = {
        "split": controls.split_slider(split),
        "attempts": callers["attempts"],
        "jitter": callers["jitter"],
        "base": choice("backoff-base", "backoff base", bases, base),
        "budget": callers["budget"],
        "scope": choice("budget-scope", "budget kept for", list(views.SCOPES), scope),
    }
    figure = figures.RetryFigure()  # kept, and redrawn in place on every move

    def render(split: int | None, scope: str, **callers: Any) -> Any:
        view = views.retry_view(split, views.setup_of(scope=scope, **callers))
        unused = f"budget kept for {scope}: no retry budget is set, so whose calls it counts changes nothing"
        return (
            view,
            [figure.update(view.load)],
            [view.frame, *([unused] if callers["budget"] == "none" else [])],
        )

    return controls.SplitPanel("retries", controls_, render)


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
            max=ROUNDS - STORM_AFTER,
            step=STOP_STEP,
            value=stop,
        ),
    }
    figure = figures.StormFigure()

    def render(split: int | None, stop: int, **callers: Any) -> Any:
        view = views.storm_view(split, views.setup_of(**callers), stop)
        return view, [figure.update(view.load)], [view.frame]

    return controls.SplitPanel("storm", controls_, render)


# --- 7. live: retrying clients against lesson 004's Order Service ------------------------------

LAYERS = {
    "client sent": "client sent",
    "order service received": "Order Service received",
    "payment counted": "Payment counted",
}


def live_frame(runs: tuple[OrdersRun, ...]) -> pd.DataFrame:
    """Per kind of client: orders served and refused and the retries the budget denied; calls per
    order at each layer; and the longest an order served from the queue waited there."""
    rows = []
    for r in runs:
        f, per = retry_facts(r), r.calls_per_order()
        waited = round(max(queued_waits(r), default=0.0), 2)
        rows.append([f.served, f.refused, f.gave_up_budget, *(f"{per[k]:.2f}" for k in LAYERS), waited])
    columns = pd.MultiIndex.from_tuples(
        [("orders", c) for c in ("served", "refused", "retries denied")]
        + [(figures.PER_ORDER, name) for name in LAYERS.values()]
        + [("the queue", "longest wait (s)")]
    )
    clients = pd.Index([c.name for c in retrying.CLIENTS], name="clients")
    return pd.DataFrame(rows, columns=columns, index=clients)


def live_facts(runs: tuple[OrdersRun, ...]) -> str:
    """The side-by-side runs' facts that hold on any machine (nbval compares them)."""
    head = (
        f"{retrying.ORDERS} orders at once against lesson 004's bulkhead ({retrying.LIMIT} running, "
        f"{retrying.QUEUE} waiting), Payment slow ({retrying.SLOW:g} s a call); {len(runs)} kinds of client"
    )
    return "\n".join([head, *(f"{says}: {held}" for says, held in retry_checks(runs))])


def live_runs(on_progress: Progress | None = None) -> tuple[OrdersRun, ...]:
    """Section 7's four kinds of client side by side (:func:`.retrying.side_by_side`); an
    interrupted cell stops them and their services."""
    return run_sync(retrying.side_by_side(on_progress))


def live_beside(runs: tuple[OrdersRun, ...]) -> views.Table:
    """Calls per request without a budget, with the SRE 10% and with the AWS quota: the SRE book's
    worst case, section 2's, lesson 000's 24/8 event flow (section 4), and the live runs."""
    live = dict(zip((c.budget for c in retrying.CLIENTS[1:]), runs[1:], strict=True))
    rows = {}
    for name, budget in (("no budget", None), ("SRE 10%", SRE_BUDGET), ("AWS quota", AWS_QUOTA)):
        per = live[budget].calls_per_order()
        seeded = run(LESSON_SPLIT, "slowdown", RetrySetup(LESSON_POLICY, budget)).event.load
        worst = worst_case_load(LESSON_POLICY, budget).load
        book = views.WORST_CASES.get(name, (None, "(no figure)"))[1]
        rows[name] = (book, f"{worst:.3f}", f"{seeded:.3f}", *(f"{per[k]:.2f}" for k in list(LAYERS)[1:]))
    columns = ["the sources", "section 2", "section 4: 24/8 events", "live: Order Service", "live: Payment"]
    return views.Table.from_dict(rows, orient="index", columns=columns).rename_axis("budget (3 attempts)")


def live_progress() -> tuple[OrdersRun, ...]:
    """Section 7's four kinds of client side by side (:func:`live_runs`), under a progress bar that
    counts the orders answered; it says done, or where an interrupt stopped them."""
    progress = LiveProgress("clients", unit="orders answered", total=retrying.ORDERS * len(retrying.CLIENTS))
    with progress.shown("Run this cell to run the live clients (a bar counts the orders answered)."):
        runs = live_runs(progress.on_progress)
    progress.done(f"done: {sum(len(r.orders) for r in runs)} orders, {max(r.duration for r in runs):.1f} s")
    return runs
