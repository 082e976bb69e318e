"""Notebook 05's section 6 on real sockets: the live panel runs one steady load a move, counts its orders,
says whose figure it shows, and an interrupted run leaves nothing listening."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time

import pytest
from loopback import listening_ports

from bulkhead_lab.course.adaptive_limits import panels, views
from bulkhead_lab.course.ui.panel import PREVIOUS_RUN

pytestmark = pytest.mark.live


def test_the_live_panel_runs_gradient2_through_the_slowdown_and_every_checked_fact_holds() -> None:
    panel = panels.live_panel()
    view = panel.result
    assert view.algorithm == "Gradient2" and view.orders == views.planned(3) == 120
    lines = view.checked().splitlines()
    assert all(line.endswith(": True") for line in lines[1:]), lines
    assert view.facts.limit_before == 20  # a healthy Payment never fills half the limit: left alone
    frame = views.live_table(view)
    assert frame["orders sent"].sum() == 120 and frame["orders refused"].sum() == view.refused
    assert panel.progress is not None
    bar = panel.progress.bar
    assert bar.value == bar.max == 120 and "bl-progress-live" in bar._dom_classes
    assert panel.progress.status.value.startswith("done: ")
    assert "bl-view-live" in panel.output._dom_classes and "bl-panel-live" in panel.widget._dom_classes
    classes = {c for control in panel.controls.values() for c in control._dom_classes}
    assert {"bl-slider-live-algorithm", "bl-slider-live-slow-for"} <= classes
    assert [next(iter(o["data"])) for o in panel.output.outputs] == ["image/png", "text/html"]


def test_each_move_is_one_run_and_the_previous_figure_is_marked_while_it_is_in_flight() -> None:
    panel = panels.live_panel(slow_for=1)
    seen: list[str] = []

    def note(_: object) -> None:  # what the output area says each time the bar moves
        seen.extend(o.get("text", "") for o in panel.output.outputs if o["output_type"] == "stream")

    assert panel.progress is not None
    panel.progress.bar.observe(note, names="value")
    view = panel.set(algorithm="Vegas")
    assert view.algorithm == "Vegas" and view.orders == 80 and not view.breaches
    assert PREVIOUS_RUN in seen  # while the Vegas run was in flight, the Gradient2 figure said so
    assert all(o["output_type"] != "stream" for o in panel.output.outputs)  # and not once it ended
    with pytest.raises(ValueError, match="slider must be one of"):
        panel.set(bogus=1)


@pytest.mark.usefixtures("kernel_sigint")
def test_an_interrupted_live_run_leaves_nothing_listening() -> None:
    """Jupyter's stop button raises KeyboardInterrupt in the kernel's thread while its loop runs."""
    before = listening_ports()
    timer = threading.Timer(0.6, os.kill, (os.getpid(), signal.SIGINT))  # a real Ctrl-C

    async def cell() -> None:
        timer.start()
        views.live_run(slow_for=5)  # blocks the running loop, as a notebook cell does

    loop = asyncio.new_event_loop()
    try:
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            loop.run_until_complete(cell())
        assert time.monotonic() - started < 5.0  # stopped long before the load's 8 s
        assert listening_ports() == before
    finally:
        timer.cancel()
        loop.close()
