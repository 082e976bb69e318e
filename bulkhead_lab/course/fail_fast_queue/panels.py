"""Notebook 04's widgets: a progress bar for the lesson's runs (:func:`lesson_runs`: every run the
notebook shows, the ones that must run alone first, then the rest at once), and the "try it" panel.

:func:`orders_panel` shows only the sizes that mean something for the chosen variant; a burst of
moves runs the lesson's load once, at the last values (:class:`~bulkhead_lab.course.ui.panel.SliderView`).

CSS classes for the browser test: ``bl-slider-<name>`` on each control (the toggles too),
``bl-progress-orders``, ``bl-status-orders``, ``bl-view-orders``, ``bl-panel-orders``; the
lesson runs' bar ``bl-progress-run`` and its text ``bl-status-run``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import ipywidgets as w

from bulkhead_lab.course.fail_fast_queue import figures, views
from bulkhead_lab.course.ui.panel import LiveProgress, SliderView, show_only, slider, toggle
from bulkhead_lab.live.bulkhead import Bulkhead
from bulkhead_lab.live.net.side_by_side import in_turn
from bulkhead_lab.live.orders.load import LOAD_GAP, OrdersLoad, OrdersRun, orders_experiments
from bulkhead_lab.live.orders.reading.burst import time_axis
from bulkhead_lab.live.orders.service import VARIANTS, OrderSettings, Variant
from bulkhead_lab.live.orders.socket_pools import PoolRule
from bulkhead_lab.live.sync import run_sync

PER_RUN = 30  # answers in one run: 20 orders and 10 stock checks
LABEL_WIDTH = "17em"  # room for 'Payment latency when slow (s)' in full
# The pressed button of a toggle, coloured so it reads as chosen (JupyterLab's own shade is faint).
TOGGLE_CSS = """<style>
.bl-panel-orders .bl-toggle .widget-toggle-button.mod-active {
  background: var(--jp-brand-color1, #1976d2); color: white; font-weight: bold;
  box-shadow: inset 0 0 0 2px var(--jp-brand-color0, #0d47a1);
}
</style>"""


def run(variant: Variant = "limited", **values: Any) -> OrdersRun:
    """One live run (:func:`.views.run`: ``values`` by name, ``bulkhead=`` the class) under a bar."""
    progress = LiveProgress("run", unit="answered", total=PER_RUN)
    with progress.shown("Run this cell to run it live (a bar counts the answers)."):
        r = views.run(variant, on_progress=progress.on_progress, **values)
    progress.done(f"done: {len(r.requests)} answered")
    return r


def lesson_runs() -> dict[str, OrdersRun]:
    """Every live run the notebook shows (:data:`.views.LESSON_RUNS`), each on its own services and free
    ports, under one bar counting the answers of all of them: those that must run by themselves first, one
    after another, then the others at once, their loads :data:`~bulkhead_lab.live.orders.load.LOAD_GAP`
    apart once all of them listen, longest first (:func:`~bulkhead_lab.live.net.side_by_side.in_turn`), so
    Run All waits about as long as the longest run (a pool per dependency's four waves of 3 s), not the
    sum. The runs with a bulkhead run the package's copy of section 4's class
    (:mod:`bulkhead_lab.live.bulkhead`)."""
    alone = {name: p.setup() for name, p in views.LESSON_RUNS.items() if p.alone}
    together = {name: p.setup() for name, p in views.LESSON_RUNS.items() if not p.alone}
    total = sum(load.requests for _, load in [*alone.values(), *together.values()])
    progress = LiveProgress("run", unit="answered", total=total)
    experiments = orders_experiments(alone, together, progress.on_progress)
    with progress.shown(
        "Run this cell to run them live (a bar counts the answers).",
        f"{len(alone)} runs alone, then {len(together)} at once, live on 127.0.0.1 ...",
    ):
        ran = run_sync(in_turn(experiments, LOAD_GAP, listen_first=True))
    runs = dict(zip([*alone, *together], ran, strict=True))
    progress.done(f"done: {len(runs)} runs, {sum(len(r.requests) for r in runs.values())} answered")
    return runs


VARIANT_OPTIONS = tuple((views.VARIANT_WORDS[v], v) for v in VARIANTS)
RULE_OPTIONS = (("connections in use (aiohttp)", "aiohttp"), ("every socket, idle too (Node)", "node"))
SIZES = ("pool", "pool_rule", "limit", "queue")  # the controls a variant may show or hide
APPLIES = {"shared": ("pool", "pool_rule"), "separate": ("limit",), "limited": ("limit", "queue")}
LIMIT_WORDS = {"separate": "connections per pool", "limited": "running places (limit)"}


def orders_controls(
    variant: Variant = "limited", pool: int = 10, limit: int = 5, queue: int = 5,
    pool_rule: PoolRule = "aiohttp", slow_latency: float = 1.0,
) -> dict[str, Any]:  # fmt: skip
    """The variant, the sizes each variant has (only those shown), and Payment's latency when slow."""
    controls = {
        "variant": toggle("variant", "Order Service", VARIANT_OPTIONS, variant, label_width=LABEL_WIDTH),
        "pool": slider(w.IntSlider, "pool", "shared pool (connections)", min=1, max=30, value=pool),
        "pool_rule": toggle("pool-rule", "the pool's limit counts", RULE_OPTIONS, pool_rule,
                            label_width=LABEL_WIDTH),
        "limit": slider(w.IntSlider, "limit", LIMIT_WORDS["limited"], min=1, max=20, value=limit),
        "queue": slider(w.IntSlider, "queue", "waiting places", min=0, max=20, value=queue),
        "slow_latency": slider(w.FloatSlider, "slowdown", "Payment latency when slow (s)", min=0.1, max=3.0,
                               step=0.1, value=slow_latency, readout_format=".1f"),
    }  # fmt: skip
    controls["variant"].add_class("bl-toggle-variant")
    for name in ("pool", "limit", "queue", "slow_latency"):
        controls[name].style.description_width = LABEL_WIDTH
        controls[name].layout = w.Layout(width="42em")
    show_only(controls, "variant", APPLIES)  # only the sizes that mean something for the variant

    def name_the_limit(variant: str) -> None:
        controls["limit"].description = LIMIT_WORDS.get(variant, controls["limit"].description)

    controls["variant"].observe(lambda change: name_the_limit(change["new"]), names="value")
    name_the_limit(variant)
    return controls


def orders_panel(
    *, draw: bool = True, bulkhead: type[Bulkhead] = Bulkhead, opening: OrdersRun | None = None, **values: Any
) -> SliderView:
    """The "try it" panel: the lesson's load run live at the controls' values (``bulkhead``: the class
    the bulkhead is built from). ``panel.set(...)`` moves several controls, runs once and returns the
    :class:`~bulkhead_lab.live.orders.load.OrdersRun`; ``draw=False`` builds it without a first run.
    ``opening``: a run already made at the controls' first values (any bulkhead class), drawn first
    instead of running them again; a run at other settings is not used."""
    controls = orders_controls(**values)
    progress = LiveProgress("orders", unit="answered", total=PER_RUN)
    unused = [opening]  # the opening run, until the first figure is drawn

    def render(variant: Variant, pool: int, pool_rule: PoolRule, limit: int, queue: int, slow_latency: float):
        rule: PoolRule = pool_rule if variant == "shared" else "aiohttp"
        with progress.redrawing("load"):
            settings = OrderSettings(variant, pool, limit, queue, pool_rule=rule, bulkhead=bulkhead)
            load = OrdersLoad(slow_latency=round(slow_latency, 3))
            first = unused.pop() if unused else None  # drawn once at most: later figures run live
            if first is not None and _made_at(first, settings, load):
                r = first
            else:
                r = views.measure(settings, load, on_progress=progress.on_progress)
        progress.done(f"done: {len(r.requests)} answered in {r.duration:.2f} s")
        axis = time_axis(slow_latency, pool, limit, queue)
        return r, [figures.orders_figure(r, xmax=axis)], [views.summary_table([r], "run", "this run: ")]

    style = w.HTML(TOGGLE_CSS, layout=w.Layout(display="none"))
    return SliderView("orders", controls, render, extra=(style,), draw=draw, progress=progress)


def _made_at(run: OrdersRun, settings: OrderSettings, load: OrdersLoad) -> bool:
    """Whether ``run`` drove ``load`` against these settings, whatever class its bulkhead was built from
    (read off what the run records: its settings, Payment's latency, its requests)."""
    return (
        run.settings is not None
        and replace(run.settings, bulkhead=settings.bulkhead) == settings
        and (run.slow, run.slow_latency, run.stock_delay) == (load.slow, load.slowdown, load.stock_delay)
        and (len(run.orders), len(run.of("stock"))) == (load.orders, load.stock_checks)
    )
