"""A queueing run pauses the cyclic collector while it runs and leaves it as it found it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from bulkhead_lab.collector import collector_paused
from bulkhead_lab.queues.rounds import run
from bulkhead_lab.queues.settings import Setup


@pytest.fixture
def collector_on() -> Iterator[None]:
    was_on = gc.isenabled()
    gc.enable()
    yield
    if not was_on:
        gc.disable()


def test_a_queue_run_makes_no_collector_pass_while_it_runs(collector_on: None) -> None:
    passes: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            passes.append(info["generation"])

    gc.callbacks.append(count)
    try:
        trace = run(Setup()).trace
    finally:
        gc.callbacks.remove(count)
    assert trace.total("offered") > 10 * gc.get_threshold()[0]  # calls enough to cross a threshold often
    assert passes == []
    assert gc.isenabled()


def test_the_collector_is_off_inside_and_on_again_after(collector_on: None) -> None:
    inside = collector_paused(gc.isenabled)
    assert inside() is False
    assert gc.isenabled()


def test_a_collector_switched_off_before_stays_off(collector_on: None) -> None:
    gc.disable()
    collector_paused(run)(Setup(trigger=None))
    assert not gc.isenabled()


def test_the_collector_is_on_again_after_a_run_that_raises(collector_on: None) -> None:
    def fails() -> None:
        raise ValueError("rounds: 0, allowed 1 .. 10^6")

    with pytest.raises(ValueError, match="rounds"):
        collector_paused(fails)()
    assert gc.isenabled()
