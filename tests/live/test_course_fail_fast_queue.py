"""Notebook 04's course package on real sockets: a cell's runs side by side interrupted, and the live panel's
opening run.

Its runs side by side (panels.lesson_runs: in_turn under one bar) are the notebook's first cell, whose
facts nbval compares run by run (cells 4 to 57; the limited run's served, refused and peak are the claims
table's, cell c66); tests/course draws the tables and figures from runs written down; a panel moved by a
slider is its cell 57, and the browser tests move its queue and variant (tests/e2e's MOVES for
04_fail_fast_queue.ipynb: the refusals, Payment's peak and which sliders show)."""

from __future__ import annotations

import pytest
from loopback import interrupted_after, listening_ports

from bulkhead_lab.course.fail_fast_queue import panels, views
from bulkhead_lab.live.net.side_by_side import in_turn
from bulkhead_lab.live.orders.load import LOAD_GAP, orders_experiments, orders_setup
from bulkhead_lab.live.sync import run_sync

pytestmark = pytest.mark.live


@pytest.mark.usefixtures("kernel_sigint")
def test_an_interrupted_cell_of_runs_side_by_side_stops_every_run_and_leaves_nothing_listening() -> None:
    before = listening_ports()
    slow = {name: orders_setup(v, slow_latency=30.0) for name, v in (("a", "separate"), ("b", "limited"))}
    runs = orders_experiments({}, slow, on_progress=lambda done, total: None)
    stop, took = interrupted_after(0.8, lambda: run_sync(in_turn(runs, LOAD_GAP, listen_first=True)))
    assert isinstance(stop, KeyboardInterrupt), stop
    assert took < 30.0  # both stopped before Payment's first slow answer
    assert listening_ports() == before  # every service of both runs closed


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
