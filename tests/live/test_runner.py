"""live.sync.run_sync inside a running loop, as in Jupyter: every notebook's live cell returns its run
through it (nbval compares what they print); outside one, it is every exercise's live check called from a
test (test_course_learners_aimd_live's right limiter returns its table through it). Kernel > Interrupt
through it is one line with every service closed on return: test_stack_interrupts' capstone cell, and
test_hostile's in a real kernel."""

from __future__ import annotations

import asyncio

import pytest

from bulkhead_lab.live.sync import run_sync


def test_an_error_in_the_coroutine_reaches_the_caller() -> None:
    async def boom() -> None:
        raise ValueError("slots must be an integer >= 1 (got 0)")

    async def inside() -> None:
        run_sync(boom())

    with pytest.raises(ValueError, match="slots must be"):
        asyncio.run(inside())
