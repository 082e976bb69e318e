"""A live fact that fails under load says why (issue 40): the run's loop lag, and the line beside the NO.

A starved machine is made here by stalling the run's own event loop (``time.sleep`` on it, what a
CPU taken by twenty other kernels does to every callback): the run measures the stall, and a lesson
claim that comes out NO says, in the same line, that the machine was too busy and to run it again.
A claim that holds, or a NO on a run that was not starved, shows what it always showed.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from bulkhead_lab.course.fail_fast_queue import claims as claims_004
from bulkhead_lab.course.ui.claim_table import count, exact, starved
from bulkhead_lab.live.net.lag import BUSY_LAG, LagWatch, busy_reason
from bulkhead_lab.live.orders.load import OrdersLoad, run_orders
from bulkhead_lab.live.orders.service import OrderSettings
from bulkhead_lab.live.placement.batch import run_placement

pytestmark = [pytest.mark.anyio, pytest.mark.live]

STALL = 0.4  # s the loop is blocked at a time: more than the 300 ms a stock check may take


async def stalls(every: float = 0.05) -> None:
    """Block the loop for :data:`STALL` s, again and again, until cancelled: a starved run."""
    while True:
        await asyncio.sleep(every)
        time.sleep(STALL)


async def starved_run(make: object) -> object:
    stall = asyncio.ensure_future(stalls())
    try:
        return await make  # type: ignore[misc]
    finally:
        stall.cancel()
        await asyncio.gather(stall, return_exceptions=True)


def test_the_busy_line_names_the_lag_and_the_load_over_the_cores_and_is_empty_when_healthy() -> None:
    assert busy_reason(0.48) == "this machine was too busy during the run (loop lag up to 480 ms)"
    assert busy_reason(0.48, 7.94, 2) == (
        "this machine was too busy during the run (loop lag up to 480 ms, load 7.9 on 2 cores)"
    )
    assert (
        busy_reason(0.02, 3.2, 2)
        == "this machine was too busy during the run (loop lag up to 20 ms, load 3.2 on 2 cores)"
    )
    assert busy_reason(BUSY_LAG - 0.001) == busy_reason(0.02, 1.9, 2) == busy_reason(0.0, None, 1) == ""


async def test_a_starved_lesson_004_run_says_beside_its_no_that_the_machine_was_too_busy() -> None:
    run = await starved_run(run_orders(OrderSettings("separate"), OrdersLoad(slow_latency=0.3)))
    assert run.lag is not None and run.lag.worst >= STALL - 0.05  # measured during the run
    found = starved(claims_004.separate_claims(run), run)
    fast = next(c for c in found if c.says == "the stock checks stayed at 38 - 58 ms")
    assert not fast.holds and fast.here == "300 ms or more"  # the stall broke check.js's bound
    ms = f"{run.lag.worst * 1000:.0f} ms"
    assert fast.verdict.startswith(f"NO - this machine was too busy during the run (loop lag up to {ms}")
    assert fast.verdict.endswith("): run it again") and "\n" not in fast.verdict
    line = next(x for x in count(found, "lesson 004").splitlines() if "38 - 58 ms" in x)
    assert line.endswith(f"Why: {fast.verdict}")
    held = [c for c in found if c.holds]
    assert held and all(c.busy == "" and c.verdict.startswith("yes") for c in held)  # unchanged


async def test_a_starved_lesson_003_batch_measures_its_stall() -> None:
    batch = await starved_run(run_placement("separate", 40, 4))  # one wave of 300 ms, stalled
    assert batch.lag is not None and batch.lag.worst >= STALL - 0.05


def test_a_no_on_a_healthy_run_is_a_plain_no_and_a_held_claim_is_unchanged() -> None:
    class Run:
        lag = LagWatch(worst=0.01, load=0.2, cores=2)

    wrong, right = exact("here", "a count", 40, 34), exact("here", "another", 8, 8)
    assert [c.verdict for c in starved([wrong, right], Run())] == ["NO", "yes"]
    assert starved([wrong, right], Run()) == [wrong, right]
    Run.lag = LagWatch(worst=0.48, load=0.2, cores=2)
    busy = starved([wrong, right], [("label", Run())])  # inside a table's rows, as notebook 03's
    assert (
        busy[0].verdict
        == "NO - this machine was too busy during the run (loop lag up to 480 ms): run it again"
    )
    assert busy[1] == right
