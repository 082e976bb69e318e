"""Notebook 04's course package: a live run from a cell, its views, figures and live panel.

Its runs side by side (panels.lesson_runs: in_turn under one bar) are the notebook's first cell, whose
facts nbval compares run by run (cells 4 to 57); a panel moved by a slider is its cell 57, and the browser
tests move its queue and variant (tests/e2e/test_notebooks_in_browser.py, MOVES["04_fail_fast_queue.ipynb"]:
the refusals, Payment's peak and which sliders show)."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time

import pytest
from loopback import listening_ports

from bulkhead_lab.course.fail_fast_queue import figures, panels, views
from bulkhead_lab.live.net.side_by_side import in_turn
from bulkhead_lab.live.orders.load import LOAD_GAP, orders_experiments, orders_setup
from bulkhead_lab.live.orders.reading import burst
from bulkhead_lab.live.sync import run_sync

pytestmark = pytest.mark.live


@pytest.mark.usefixtures("kernel_sigint")
def test_an_interrupted_cell_of_runs_side_by_side_stops_every_run_and_leaves_nothing_listening() -> None:
    before = listening_ports()
    timer = threading.Timer(0.8, os.kill, (os.getpid(), signal.SIGINT))  # a real Ctrl-C
    seen: list[tuple[int, int]] = []
    slow = {name: orders_setup(v, slow_latency=30.0) for name, v in (("a", "separate"), ("b", "limited"))}

    async def cell() -> None:
        timer.start()
        runs = orders_experiments({}, slow, on_progress=lambda done, total: seen.append((done, total)))
        run_sync(in_turn(runs, LOAD_GAP, listen_first=True))

    loop = asyncio.new_event_loop()
    try:
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            loop.run_until_complete(cell())
        assert time.monotonic() - started < 30.0  # both stopped before Payment's first slow answer
        assert listening_ports() == before  # every service of both runs closed
    finally:
        timer.cancel()
        loop.close()


def test_the_views_tables_figure_and_counters_draw_a_limited_run() -> None:
    """Its facts, refusal and check.js's verdicts are notebook 04's outputs, which nbval compares."""
    limited = views.run("limited", slow_latency=0.2)
    row = views.summary_table([limited]).iloc[0]
    assert (row["orders served"], row["orders refused"], row["Payment peak"], row["rejected (bulkhead)"]) == (
        10,
        10,
        5,
        10,
    )
    requests = views.requests_table(limited)
    assert len(requests) == 30 and set(requests["status"]) == {200, 503}
    assert {"waited (ms)", "ran (ms)"} <= set(requests.columns)
    counters = burst.counters(limited)  # the bulkhead's own timeline: its queue and its refusals
    assert max(n for _, n in counters.orders_waiting) == 5 and counters.refused[-1][1] == 10
    fig = figures.orders_figure(limited, xmax=burst.time_axis(0.2))
    assert len(fig.axes) == 3 and fig.axes[0].get_xlim() == (0.0, burst.time_axis(0.2))


def test_the_panel_opens_on_a_run_made_at_its_first_values_and_runs_live_otherwise() -> None:
    class Yours(panels.Bulkhead):
        """A learner's own class: the opening run, built from the package's, still counts."""

    opening = views.measure(*orders_setup("limited", limit=3, queue=2, slow_latency=0.2))
    same = panels.orders_panel(
        variant="limited", limit=3, queue=2, slow_latency=0.2, bulkhead=Yours, opening=opening
    )
    assert same.result is opening
    assert same.set(queue=1).settings.bulkhead is Yours  # the next figure is a live run of the learner's
    assert same.set(queue=2) is not opening  # drawn once: back at its settings, it runs again
    other = panels.orders_panel(variant="limited", limit=3, queue=2, slow_latency=0.3, opening=opening)
    assert other.result is not opening and other.result.slow_latency == 0.3
