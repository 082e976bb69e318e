"""Lesson 004's load from outside: the three variants, keep-alive, and what a run leaves behind.

Most runs scale Payment's slowdown down (the facts are counts and waves, not seconds);
test_serve.py runs the lesson's own numbers against ``python -m bulkhead_lab serve-orders``.
"""

from __future__ import annotations

import asyncio

import pytest
from loopback import listening_ports, own_sockets, refused

from bulkhead_lab.live.load import run_orders
from bulkhead_lab.live.order_checks import check_orders, keepalive_facts
from bulkhead_lab.live.order_service import KEEPALIVE_TIMEOUT

pytestmark = [pytest.mark.anyio, pytest.mark.live]

SLOW = 0.4  # seconds: Payment's scaled-down slowdown
SHARED_SLOW = 0.8  # a shared pool's stock check waits ~slowdown - 0.1 s: keep that far above 300 ms

# --- the three variants through the API -------------------------------------------------------


async def test_limited_serves_ten_refuses_ten_at_once_and_payment_never_sees_more_than_five() -> None:
    run = await run_orders("limited", slow_latency=SLOW)
    assert (run.served, run.refused) == (10, 10)
    assert {r.status for r in run.orders} <= {200, 503}
    assert run.refused_arrivals() == list(range(11, 21))  # the last ten to arrive
    assert run.served_waves() == {1: 5, 2: 5}  # 5 after one slow call, 5 after two
    assert run.payment["peak"] == 5 and run.payment["calls"] == 10
    assert run.bulkhead_busy == {
        "running": 5,
        "queued": 5,
        "executionSlots": 0,
        "queueSlots": 0,
        "rejected": 10,
    }
    assert run.bulkhead_after == {
        "running": 0,
        "queued": 0,
        "executionSlots": 5,
        "queueSlots": 5,
        "rejected": 10,
    }
    assert all(r.body["error"] == "busy, try again" for r in run.orders if r.status == 503)
    assert all(
        r.body["bulkhead"] == "bulkhead full: 5/5 running, 5/5 queued" for r in run.orders if r.status == 503
    )
    assert [c.passed for c in check_orders(run)] == [True, True, True, True]
    assert run.slowest("stock") < 0.3
    assert run.slowest("order", "refused") < 0.2


async def test_a_shared_pool_makes_healthy_stock_checks_wait_for_slow_payment() -> None:
    run = await run_orders("shared", slow_latency=SHARED_SLOW)
    assert run.served == 20 and run.refused == 0
    assert run.payment["peak"] == 10  # Payment had the whole pool
    assert run.slowest("stock") >= SHARED_SLOW / 2  # waited for a slow call to free a connection
    assert [c.passed for c in check_orders(run)] == [False, False, False, True]  # as check.js: 3 fail


async def test_separate_pools_keep_stock_checks_fast_but_orders_queue_in_four_waves() -> None:
    run = await run_orders("separate", slow_latency=SLOW)
    assert run.served == 20 and run.payment["peak"] == 5
    assert run.inventory["peak"] <= 5
    assert run.slowest("stock") < 0.3
    assert run.served_waves() == {1: 5, 2: 5, 3: 5, 4: 5}
    assert run.slowest("order") >= 4 * SLOW


async def test_a_healthy_payment_answers_fast_in_every_variant() -> None:
    for variant in ("shared", "separate"):
        run = await run_orders(variant, slow=False)
        assert (run.served, run.refused) == (20, 0)
        assert run.slowest("stock") < 0.3 and run.slowest("order") < 1.0
    run = await run_orders("limited", slow=False)  # a burst of 20 at once can still overflow 5 + 5
    assert run.served + run.refused == 20 and run.served >= 10 and run.payment["peak"] <= 5
    assert run.slowest("stock") < 0.3 and run.slowest("order") < 1.0


async def test_a_bigger_queue_serves_more_and_refuses_fewer() -> None:
    run = await run_orders("limited", limit=3, queue=7, slow_latency=0.2)
    assert (run.served, run.refused) == (10, 10)
    assert run.payment["peak"] == 3
    run = await run_orders("limited", limit=5, queue=15, slow_latency=0.2)
    assert (run.served, run.refused) == (20, 0)


# --- keep-alive: aiohttp's limit counts connections in use, not idle ones ---------------------


async def test_idle_keepalive_connections_do_not_count_against_aiohttps_shared_limit() -> None:
    open_at_end: list[int] = []

    def at_last_answer(done: int, total: int) -> None:
        if done == total:  # every order and stock check answered: which sockets are still open?
            open_at_end.extend(remote for _, remote in own_sockets("01"))  # 01 = ESTABLISHED

    run = await run_orders("shared", pool=10, keepalive=True, slow=False, on_progress=at_last_answer)
    to_payment = open_at_end.count(run.ports["payment"])
    to_inventory = open_at_end.count(run.ports["inventory"])
    assert to_payment == 10  # Payment's connections sat idle, open, through all the stock checks
    assert to_payment + to_inventory > 10  # more sockets open at once than the pool's limit
    facts = keepalive_facts(run)
    assert facts.payment_opened == 10 and facts.payment_reused == 10  # 10 sockets, kept and reused
    assert facts.kept_open > facts.pool_limit  # more sockets open at once than the pool's limit
    assert run.duration < KEEPALIVE_TIMEOUT  # so none of Payment's idle sockets had closed
    assert facts.slowest_stock < 0.3 and not facts.idle_counted


# --- nothing stays listening ------------------------------------------------------------------


async def test_nothing_listens_after_a_run() -> None:
    before = listening_ports()
    run = await run_orders("limited", slow=False, orders=5, stock_checks=2)
    assert listening_ports() == before
    assert all(refused(port) for port in run.ports.values())


async def test_nothing_listens_after_an_exception_mid_run() -> None:
    before = listening_ports()

    def explode(done: int, total: int) -> None:
        raise RuntimeError("the cell broke")

    with pytest.raises(RuntimeError, match="the cell broke"):
        await run_orders("limited", slow_latency=SLOW, on_progress=explode)
    assert listening_ports() == before


async def test_nothing_listens_after_an_interrupted_run() -> None:
    before = listening_ports()
    task = asyncio.create_task(run_orders("separate", slow_latency=2.0))
    await asyncio.sleep(0.5)
    assert len(listening_ports() - before) == 3  # Payment, Inventory, Order Service
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert listening_ports() == before
