"""Notebook 04's course package: a live run from a cell, its views, figures and live panel."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time

import pytest
from loopback import listening_ports

from bulkhead_lab.course.fail_fast_queue import figures, panels, views

pytestmark = pytest.mark.live


def test_an_interrupted_notebook_run_leaves_nothing_listening() -> None:
    """Jupyter's stop button raises KeyboardInterrupt in the kernel's thread while its loop runs."""
    before = listening_ports()
    timer = threading.Timer(0.6, os.kill, (os.getpid(), signal.SIGINT))  # a real Ctrl-C

    async def cell() -> None:
        timer.start()
        views.run("separate", slow_latency=30.0)  # blocks the running loop, as a notebook cell does

    loop = asyncio.new_event_loop()
    try:
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            loop.run_until_complete(cell())
        assert time.monotonic() - started < 30.0  # stopped before Payment's first slow answer was due
        assert listening_ports() == before
    finally:
        timer.cancel()
        loop.close()


def test_the_views_show_the_runs_numbers() -> None:
    limited = views.run("limited", slow_latency=0.2)
    facts = views.facts(limited).splitlines()
    assert facts[0] == "limited (pools 5+5, bulkhead 5+5), Payment slow (0.2 s)"
    assert "orders: 10 served, 10 refused, 0 failed" in facts
    assert "refused: orders 11 to 20 in order of arrival" in facts
    assert "served per round of Payment's latency: 5 after 1 x 0.2 s, 5 after 2 x 0.2 s" in facts
    assert "bulkhead while busy: 5 running, 0 free waiting places" in facts
    assert views.checks_text(limited).count("PASS") == 4
    table = views.summary_table([limited])
    row = table.iloc[0]
    assert (row["orders served"], row["orders refused"], row["Payment peak"]) == (10, 10, 5)
    requests = views.requests_table(limited)
    assert len(requests) == 30 and set(requests["status"]) == {200, 503}
    assert list(views.checks_table(limited)["passed"]) == [True] * 4
    fig = figures.orders_figure(limited)
    assert len(fig.axes) == 2 and fig.axes[1].get_ylabel() == "calls at once"


def test_the_live_panel_runs_the_load_and_counts_its_answers() -> None:
    panel = panels.orders_panel(variant="limited", limit=3, queue=2, slow_latency=0.2)
    assert panel.result.served == 5 and panel.result.refused == 15
    progress = panel.widget.children[0].children[0]
    assert "bl-progress-orders" in progress._dom_classes and progress.value == progress.max == 30
    for name in ("pool", "limit", "queue", "slowdown"):
        assert any(f"bl-slider-{name}" in c._dom_classes for c in panel.controls.values())
    assert "bl-view-orders" in panel.output._dom_classes
    run = panel.set(variant="separate", limit=4)
    assert run.settings.variant == "separate" and run.payment["peak"] == 4 and run.refused == 0
    html = [o["data"]["text/html"] for o in panel.output.outputs if "text/html" in o.get("data", {})]
    assert html and "separate (pools 4+4)" in html[0]
    with pytest.raises(ValueError, match="slider must be one of"):
        panel.set(bogus=1)
