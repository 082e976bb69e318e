"""Notebook 10's runs of seconds, as a learner meets them: the capstone's bar counts every request,
Kernel > Interrupt stops the capstone (its cell, or exercise 3's Check) with one line and nothing left
listening (cancelled at random points: test_interrupts). What the throttle's runs print, nbval compares in
notebook 10."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from loopback import interrupted_after, listening_ports
from test_stack import RIGHT

from bulkhead_lab.course.ui.panel import LiveProgress
from bulkhead_lab.course.your_own_stack import exercises, views
from bulkhead_lab.live.stack import capstone
from bulkhead_lab.live.sync import Interrupted

pytestmark = pytest.mark.live


class _Kept(LiveProgress):
    made: list[LiveProgress] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _Kept.made.append(self)


def test_the_capstones_bar_counts_every_request_to_the_end() -> None:
    seen: list[tuple[int, int]] = []
    run = asyncio.run(capstone.run_stack(RIGHT, lambda done, total: seen.append((done, total))))
    assert seen[-1] == (capstone.REQUESTS, capstone.REQUESTS) == (200, 200)
    ended = [d for d, _ in seen]
    assert ended == sorted(ended) and len(seen) < 100  # every 0.1 s, not per request
    assert 0 < run.seconds < capstone.CUTOFF


@pytest.mark.usefixtures("kernel_sigint")
def test_an_interrupted_capstone_cell_is_one_line_and_leaves_nothing_listening(monkeypatch) -> None:
    monkeypatch.setattr(views, "LiveProgress", _Kept)
    before = listening_ports()
    stop, took = interrupted_after(1.5, lambda: views.capstone_live(RIGHT))  # Payment slow since 0.5 s
    assert isinstance(stop, Interrupted), stop
    assert stop._render_traceback_() == [
        "interrupted: the live run was stopped and every service it started is closed"
    ]
    assert took < 3.0  # well before the run's own end (about 4 s)
    assert listening_ports() == before
    status = _Kept.made[-1].status.value
    assert status.startswith("interrupted at ") and "/200 requests ended: the live run was stopped" in status


@pytest.mark.usefixtures("kernel_sigint")
def test_an_interrupted_check_says_so_in_its_box_and_on_its_bar(monkeypatch) -> None:
    ex = exercises.LiveExercise(**{**vars(exercises.exercise_3), "_state": {}})
    monkeypatch.setattr(exercises, "exercise_3", ex)
    ex.widget()  # the answer box with its bar, as the cell shows it
    before = listening_ports()
    said, took = interrupted_after(1.5, lambda: ex.check(RIGHT))
    assert took < 3.0 and listening_ports() == before
    assert said.ok is None and said.message == (
        "Interrupted: the live run was stopped and every service it started is closed. "
        "Press Check to run it again."
    )
    assert ex._state["bar"].status.value.startswith("interrupted at ")
