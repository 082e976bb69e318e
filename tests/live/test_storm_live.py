"""Notebook 07's section 5 on real sockets: after Payment heals the storm goes on, and Payment's own
counters say how much it served for callers who had already gone; with the bulkhead's bounded queue
and the drop of abandoned calls it recovers. Also: a queued Payment served by its workers in order,
its counters over HTTP, bad input in one line (an interrupt: test_interrupts)."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import pytest

from bulkhead_lab.course.timeouts_and_queues import live
from bulkhead_lab.live.net.key import key_headers
from bulkhead_lab.live.orders.queued import QueuedPayment

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def storms():
    progress: list[tuple[int, int]] = []
    started = time.monotonic()
    storms = live.run(lambda done, total: progress.append((done, total)))
    took = time.monotonic() - started
    assert progress[-1] == (2 * live.STORM.orders, 2 * live.STORM.orders)  # one bar counts both runs
    assert took < sum(s.duration for s in storms)  # side by side: they overlapped
    return storms


def test_with_no_fix_payment_serves_abandoned_calls_and_goodput_stays_down(storms) -> None:
    none = storms[0]
    plan = none.load
    assert none.wasted_after_heal >= 30  # about 60 to 100 here: a queue full of calls no one waits for
    assert none.back_after() is None
    assert none.rate(plan.seconds - 2, plan.seconds) < plan.rate / 4
    assert none.payment.longest > plan.rate * plan.gives_up_after  # longer than a timeout's worth of orders


def test_the_bulkhead_and_the_drop_bring_goodput_back_at_once(storms) -> None:
    none, fix = storms
    plan = fix.load
    back = fix.back_after()
    assert back is not None and back <= live.BACK_WITHIN
    assert fix.rate(plan.healed + 1, plan.seconds) >= 0.6 * plan.rate  # the no-fix run's is about 0
    assert fix.wasted_after_heal * 5 < none.wasted_after_heal
    assert fix.payment.longest <= 2 * plan.workers  # the bulkhead's running and waiting places


def test_a_queued_payment_serves_in_order_counts_over_http_and_refuses_bad_input() -> None:
    async def scenario() -> None:
        async with (
            QueuedPayment(workers=1, latency=0.05) as pay,
            aiohttp.ClientSession(headers=key_headers(pay.url)) as session,
        ):
            started = time.monotonic()
            answers = await asyncio.gather(*(session.post(f"{pay.url}/pay") for _ in range(3)))
            assert [a.status for a in answers] == [200] * 3
            assert time.monotonic() - started >= 0.15  # one worker: one call after the other
            async with session.get(f"{pay.url}/admin/stats") as r:
                assert await r.json() == {
                    "calls": 3, "answered": 3, "wasted": 0, "dropped": 0, "waiting": 0, "longest": 3,
                    "open": 0, "peak": 3,
                }  # fmt: skip
            async with session.post(f"{pay.url}/admin/slow?on=yes") as r:
                assert r.status == 400 and "on must be 1 or 0 (got 'yes')" in await r.text()

    asyncio.run(scenario())


def test_a_call_whose_caller_left_is_served_for_no_one_or_dropped() -> None:
    async def once(drop: bool) -> tuple[int, int]:
        async with QueuedPayment(workers=1, latency=0.2, drop_gone=drop) as pay:
            async with aiohttp.ClientSession(headers=key_headers(pay.url)) as session:
                first = asyncio.ensure_future(session.post(f"{pay.url}/pay"))
                await asyncio.sleep(0.05)
                with pytest.raises(asyncio.TimeoutError):  # the second caller gives up while it waits
                    await session.post(f"{pay.url}/pay", timeout=aiohttp.ClientTimeout(total=0.1))
                assert (await first).status == 200
            await asyncio.sleep(0.3)  # the worker reaches the abandoned call
            return pay.stats().wasted, pay.stats().dropped

    assert asyncio.run(once(False)) == (1, 0)
    assert asyncio.run(once(True)) == (0, 1)
