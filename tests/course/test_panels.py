"""The slider panels: one redraw per set(), bursts of moves drawn once at their end, a live run's figure
marked while it is in flight or interrupted (the browser test moves the sliders in Chromium, and
tests/course/test_every_slider_moves.py every seeded slider)."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time

import ipywidgets as w
import pandas as pd
import pytest

from bulkhead_lab.adaptive.compare import explore
from bulkhead_lab.compartments import partition_sweep
from bulkhead_lab.course.adaptive_limits import views as views05
from bulkhead_lab.course.littles_law_sizing.views import littles_law_view
from bulkhead_lab.course.single_pool_vs_bulkhead import exercises as exercises02
from bulkhead_lab.course.single_pool_vs_bulkhead import panels as panels02
from bulkhead_lab.course.single_pool_vs_bulkhead import views
from bulkhead_lab.course.ui import controls
from bulkhead_lab.course.ui import panel as panel_module
from bulkhead_lab.course.ui.panel import BURST_S, PENDING, SliderView
from bulkhead_lab.pool.month import break_even, month_drops
from bulkhead_lab.pool.params import Params


def test_the_split_slider_offers_the_single_pool_and_every_split() -> None:
    slider = controls.split_slider()
    labels = [label for label, _ in slider.options]
    assert labels[0] == "single pool" and labels[1] == "1/31" and labels[-1] == "31/1"
    assert slider.value == 24


def test_set_redraws_once_however_many_sliders_move(monkeypatch) -> None:
    panel = panels02.tradeoff_panel()
    calls = []
    original = panel.redraw
    monkeypatch.setattr(panel, "redraw", lambda: (calls.append(1), original())[1])
    panel.set(split=20, hold_tracking=5, slow=30, start=1500)
    assert calls == [1]
    assert panel.result.sweep.equals(
        views.tradeoff_view(Params(split=20, hold_tracking=5, slow=30, start=1500)).sweep
    )


def test_the_step_through_plays_the_rounds_through_the_round_slider() -> None:
    """Play moves the round slider (through the kernel: tests/course/test_single_pool_vs_bulkhead_panels.py
    checks that the slider and the caption move together)."""
    panel = panels02.step_through()
    assert isinstance(panel.play, w.Play)
    assert (panel.play.min, panel.play.max) == (panel.controls["round"].min, panel.controls["round"].max)
    panel.play.value = 1100
    assert panel.controls["round"].value == 1100
    assert panel.result.frame.equals(views.compartment_view(1100, Params(split=24)).frame)


def test_an_unknown_slider_is_a_one_line_error() -> None:
    with pytest.raises(ValueError, match=r"^slider must be one of split, "):
        panels02.tradeoff_panel().set(splitt=3)


def test_a_view_error_shows_one_line_not_a_traceback() -> None:
    def render(**_values):
        raise ValueError("split must be an integer in 1..31 (got 40)")

    panel = SliderView("broken", {"split": w.IntSlider(value=1)}, render)
    (line,) = panel.output.outputs
    assert line["text"] == "cannot draw this view: split must be an integer in 1..31 (got 40)\n"


@pytest.mark.parametrize(
    ("call", "line"),
    (
        (
            lambda: littles_law_view(0.0, 0.1, 5),
            "arrival_rate must be a number > 0 and <= 1000 (got 0.0)",
        ),
        (lambda: littles_law_view(20.0, 0.0, 5), "hold must be a number > 0 and <= 60 (got 0.0)"),
        (lambda: littles_law_view(20.0, 0.1, 0), "slots must be an integer in 1..64 (got 0)"),
        (lambda: month_drops(24, failures=-2), "failures must be an integer in 0..10000 (got -2)"),
        (lambda: exercises02.smallest_event_pool(0.0), "target must be a number > 0 and <= 1 (got 0.0)"),
        (
            lambda: break_even(flow="retries"),
            "flow must be one of tracking, event, total (got 'retries')",
        ),
        (lambda: views.compartment_view(4000), "round must be an integer in 0..3999 (got 4000)"),
        (lambda: explore("BBR"), "algorithm must be one of AIMD, Vegas, Gradient2, Envoy (got 'BBR')"),
        (lambda: views05.ramp_frame(0), "initial must be an integer in 1..32 (got 0)"),
        (lambda: partition_sweep.soft_view(0.3), "share must be one of 0, 1/8, ..., 1 (got 0.3)"),
        (lambda: partition_sweep.shed_view(17), "keep must be an integer in 0..16 (got 17)"),
    ),
)
def test_a_bad_value_a_slider_or_a_cell_passes_a_view_is_one_line_naming_it(call, line) -> None:
    """The line the panel shows (above); a bad split, hold or start is Params' own (test_validation)."""
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value) == line


def test_a_redraw_prints_nothing_into_the_cell_that_moved_the_slider(capsys) -> None:
    panel = panels02.tradeoff_panel()
    panel.set(split=13)
    assert capsys.readouterr().out == ""
    assert "13/19" in panel.output.outputs[1]["data"]["text/html"]


def test_a_burst_of_moves_draws_the_first_at_once_and_the_latest_once_at_its_end() -> None:
    drawn: list[int] = []

    def render(**values):
        drawn.append(values["n"])
        return values["n"], [], []

    async def learner_holds_the_arrow_key() -> None:
        slider = w.IntSlider(value=0, max=100)
        panel = SliderView("burst", {"n": slider}, render, draw=False)
        for n in range(1, 8):  # seven moves faster than a redraw window
            slider.value = n
        await asyncio.sleep(BURST_S * 3)
        assert panel.result == 7

    asyncio.run(learner_holds_the_arrow_key())
    assert drawn == [1, 7]  # no queue of stale redraws, and the last value is never lost


def test_the_output_area_says_a_redraw_is_due_from_the_bursts_first_held_move_until_its_end() -> None:
    seen: list[tuple[int, bool]] = []  # (value drawn, the output area's pending mark while drawing it)
    slider = w.IntSlider(value=0, max=100)

    def render(**values):
        seen.append((values["n"], PENDING in panel.output._dom_classes))
        return values["n"], [], []

    async def learner_holds_the_arrow_key() -> None:
        slider.value = 1  # drawn at once: nothing due
        assert PENDING not in panel.output._dom_classes
        slider.value = 2  # within the burst: a trailing redraw is due, and the output area says so
        assert PENDING in panel.output._dom_classes
        await asyncio.sleep(BURST_S * 3)

    panel = SliderView("burst", {"n": slider}, render, draw=False)
    asyncio.run(learner_holds_the_arrow_key())
    assert seen == [(1, False), (2, True)]
    assert PENDING not in panel.output._dom_classes  # the browser's wait for a settled view can end


def test_a_single_move_outside_a_burst_redraws_at_once() -> None:
    drawn: list[int] = []
    slider = w.IntSlider(value=0)

    def render(**values):
        drawn.append(values["n"])
        return values["n"], [], []

    SliderView("single", {"n": slider}, render)
    slider.value = 3
    assert drawn == [0, 3]


def test_a_burst_of_moves_on_a_live_panel_is_one_run_at_its_last_value_once_the_moves_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The rest stretched to 0.5 s: on a loaded machine a 30-ms sleep may wake over 0.15 s late, and
    # that gap would be a rest of its own. The panel reads the rest when a move comes.
    monkeypatch.setattr(panel_module, "LIVE_REST_S", 0.5)
    runs: list[int] = []

    def render(n):
        runs.append(n)
        return n, [], []

    async def learner_presses_the_arrow_key_three_times() -> None:
        panel, slider = _live_panel(render)
        for n in (1, 2, 3):  # three presses, 30 ms apart: each would have started a run of seconds
            slider.value = n
            assert PENDING in panel.output._dom_classes  # the run is due, and the output area says so
            await asyncio.sleep(0.03)
        assert runs == []  # nothing runs while the moves go on
        await asyncio.sleep(panel_module.LIVE_REST_S * 3)
        assert panel.result == 3 and PENDING not in panel.output._dom_classes

    asyncio.run(learner_presses_the_arrow_key_three_times())
    assert runs == [3]


class _Progress:
    """Stands in for a live panel's progress bar: only its presence matters to the panel."""


def _live_panel(render):
    slider = w.IntSlider(value=0)
    panel = SliderView("live", {"n": slider}, render, draw=False)
    panel.progress = _Progress()  # type: ignore[assignment]
    return panel, slider


def test_a_live_panel_marks_the_figure_it_shows_as_the_previous_runs_while_a_run_is_in_flight() -> None:
    seen: list[tuple] = []

    def render(n):
        seen.append(tuple(o.get("text", o["output_type"]) for o in panel.output.outputs))
        return n, [], [pd.DataFrame({"n": [n]})]

    panel, slider = _live_panel(render)
    panel.set(n=1)
    panel.set(n=2)
    assert seen[0] == ()  # nothing drawn yet: nothing to mark
    assert seen[1][0].startswith("a live run is in flight: the figure below is the previous run's")
    assert [o["output_type"] for o in panel.output.outputs] == ["display_data"]  # the mark is gone after


def test_an_interrupted_live_run_says_so_above_the_previous_figure_and_a_slider_move_swallows_it() -> None:
    def render(n):
        if n == 3:
            raise KeyboardInterrupt
        return n, [], [pd.DataFrame({"n": [n]})]

    panel, slider = _live_panel(render)
    panel.set(n=1)
    with pytest.raises(KeyboardInterrupt):
        panel.set(n=3)  # from a cell, the interrupt stops the cell
    note, table = panel.output.outputs
    assert note["text"].startswith("interrupted: the figure below is the previous run's")
    assert "1" in table["data"]["text/plain"]
    slider.value = 1
    slider.value = 3  # from a slider, it ends in the panel: no error escapes the callback
    assert panel.output.outputs[0]["text"].startswith("interrupted:")


def test_kernel_interrupt_stops_a_live_run_started_by_a_bursts_trailing_redraw() -> None:
    """Between messages ipykernel ignores SIGINT; the trailing redraw runs there, from a timer."""
    started = threading.Event()

    def render(n):
        if n == 2:  # the burst's latest value: a live run that takes 20 s unless interrupted
            started.set()
            deadline = time.monotonic() + 20.0
            while time.monotonic() < deadline:
                time.sleep(0.01)
        return n, [], [pd.DataFrame({"n": [n]})]

    def press_stop() -> None:
        if started.wait(10.0):
            os.kill(os.getpid(), signal.SIGINT)  # what Kernel > Interrupt sends

    async def learner() -> float:
        panel, slider = _live_panel(render)
        panel.set(n=1)  # a cell's run: drawn at once
        slider.value = 5
        slider.value = 2  # the burst's last move: drawn from the loop's timer once the moves rest
        began = time.monotonic()
        while panel._trailing is not None or not panel.output.outputs[0].get("text"):
            await asyncio.sleep(0.01)
            assert time.monotonic() - began < 15.0, "the trailing run was not interrupted"
        assert panel.output.outputs[0]["text"].startswith(
            "interrupted: the figure below is the previous run's"
        )
        return time.monotonic() - began

    idle = signal.signal(signal.SIGINT, signal.SIG_IGN)  # the kernel between messages
    stop = threading.Thread(target=press_stop)
    stop.start()
    try:
        asyncio.run(learner())
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # given back as it was
    finally:
        stop.join()
        signal.signal(signal.SIGINT, idle)
