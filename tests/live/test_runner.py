"""live.sync.run_sync inside a running loop, as in Jupyter; outside one, it is every exercise's live check
called from a test (test_course_learners_aimd_live's right limiter returns its table through it)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from loopback import interrupted_after

from bulkhead_lab.live.sync import Interrupted, run_sync


async def _answer(x: int) -> int:
    await asyncio.sleep(0.01)
    return x * 2


def test_it_runs_a_coroutine_inside_a_running_loop_like_jupyters() -> None:
    async def inside() -> int:
        return run_sync(_answer(4))

    assert asyncio.run(inside()) == 8


def test_an_error_in_the_coroutine_reaches_the_caller() -> None:
    async def boom() -> None:
        raise ValueError("slots must be an integer >= 1 (got 0)")

    async def inside() -> None:
        run_sync(boom())

    with pytest.raises(ValueError, match="slots must be"):
        asyncio.run(inside())


@pytest.mark.usefixtures("kernel_sigint")
def test_an_interrupt_cancels_the_run_and_waits_for_its_clean_up() -> None:
    cleaned = threading.Event()

    async def long_run() -> None:
        try:
            await asyncio.sleep(30)
        finally:
            cleaned.set()

    stop, _ = interrupted_after(0.3, lambda: run_sync(long_run()))  # a learner pressing stop
    assert cleaned.is_set()
    assert isinstance(stop, Interrupted)  # still an interrupt, which IPython shows as one line
    assert stop._render_traceback_() == [
        "interrupted: the live run was stopped and every service it started is closed"
    ]
