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


def test_runs_side_by_side_count_what_they_count_alone_under_one_progress_count() -> None:
    seen: list[tuple[int, int]] = []
    setups = {
        "limited": orders_setup("limited", slow_latency=0.2),
        "small": orders_setup("limited", limit=2, queue=0, slow=False),
        "shared": orders_setup("shared", pool_rule="node", slow_latency=0.2),
    }
    experiments = orders_experiments({}, setups, on_progress=lambda done, total: seen.append((done, total)))
    runs = dict(zip(setups, run_sync(in_turn(experiments, LOAD_GAP, listen_first=True)), strict=True))
    assert "orders: 10 served, 10 refused, 0 failed" in burst.facts(runs["limited"]).splitlines()
    assert "every stock check under 300 ms: True" in burst.facts(runs["limited"]).splitlines()
    assert runs["limited"].payment.peak == 5 and runs["small"].payment.peak <= 2
    assert runs["shared"].payment.peak == 10  # each run on its own Payment: peaks are not summed
    assert seen[-1] == (90, 90) and {total for _, total in seen} == {90}  # one count: all three runs
    with pytest.raises(ValueError, match="bogus is not a setting of a run"):
        orders_setup("limited", bogus=1)  # refused before anything starts


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


def test_the_live_panel_runs_the_load_and_counts_its_answers() -> None:
    panel = panels.orders_panel(variant="limited", limit=3, queue=2, slow_latency=0.2)
    assert panel.result.served == 5 and panel.result.refused == 15
    assert panel.progress is not None and panel.progress.bar.value == panel.progress.bar.max == 30
    run = panel.set(variant="separate", limit=4)
    assert run.settings.variant == "separate" and run.payment.peak == 4 and run.refused == 0
    assert panel.controls["queue"].layout.display == "none"
    html = [o["data"]["text/html"] for o in panel.output.outputs if "text/html" in o.get("data", {})]
    assert html and "separate (pools 4+4)" in html[0]
    with pytest.raises(ValueError, match="slider must be one of"):
        panel.set(bogus=1)
