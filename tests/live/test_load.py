"""Lesson 004's load from outside: the three variants, keep-alive, and what a run leaves behind.

Most runs scale Payment's slowdown down, so the facts asserted here are counts, peaks, waves
and the order of answers, never seconds: a stock check "did not wait for Payment" means it
was answered before the first order was served. check.js's own budgets (300 ms, 200 ms) are
pinned once, at the lesson's numbers, in test_serve.py.
"""

from __future__ import annotations

import asyncio

import pytest
from loopback import listening_ports, own_sockets, refused, until
from orders_facts import first_served, refusals_before_payment, stock_before_payment

from bulkhead_lab.live.orders.load import OrdersLoad, run_orders
from bulkhead_lab.live.orders.reading.burst import check_orders, keepalive_facts
from bulkhead_lab.live.orders.service import KEEPALIVE_TIMEOUT, OrderSettings

pytestmark = [pytest.mark.anyio, pytest.mark.live]

SLOW = 0.6  # seconds: Payment's scaled-down slowdown; the 20 orders must all arrive within one call
SHARED_SLOW = 0.8  # a shared pool's stock check waits ~slowdown - 0.1 s for a slot


# --- the three variants through the API -------------------------------------------------------


async def test_limited_serves_ten_refuses_ten_at_once_and_payment_never_sees_more_than_five() -> None:
    run = await run_orders(OrderSettings("limited"), OrdersLoad(slow_latency=SLOW))
    assert (run.served, run.refused) == (10, 10)
    assert {r.status for r in run.orders} <= {200, 503}
    assert run.refused_arrivals() == list(range(11, 21))  # the last ten to arrive
    assert run.served_waves() == {1: 5, 2: 5}  # 5 after one slow call, 5 after two
    assert run.payment.peak == 5 and run.payment.calls == 10
    assert run.bulkhead_busy == {
        "running": 5,
        "queued": 5,
        "executionSlots": 0,
        "queueSlots": 0,
        "rejected": 10,
        "limit": 5,
    }
    assert run.bulkhead_after == {
        "running": 0,
        "queued": 0,
        "executionSlots": 5,
        "queueSlots": 5,
        "rejected": 10,
        "limit": 5,
    }
    assert all(r.body["error"] == "busy, try again" for r in run.orders if r.status == 503)
    assert all(
        r.body["bulkhead"] == "bulkhead full: 5/5 running, 5/5 queued" for r in run.orders if r.status == 503
    )
    checks = check_orders(run)  # the two count checks; the two budgets are asserted as their invariant
    assert [checks[1].passed, checks[2].passed] == [True, True]
    assert stock_before_payment(run) and refusals_before_payment(run)


async def test_a_shared_pool_makes_healthy_stock_checks_wait_for_slow_payment() -> None:
    run = await run_orders(OrderSettings("shared"), OrdersLoad(slow_latency=SHARED_SLOW))
    assert run.served == 20 and run.refused == 0
    assert run.payment.peak == 10  # Payment had the whole pool
    assert all(r.end > first_served(run) for r in run.stock_checks)  # each waited for a slow call to end
    assert run.slowest("stock") >= SHARED_SLOW / 2  # ... for at least what was left of it
    assert [c.passed for c in check_orders(run)] == [False, False, False, True]  # as check.js: 3 fail


async def test_separate_pools_keep_stock_checks_off_payment_but_orders_queue_in_four_waves() -> None:
    run = await run_orders(OrderSettings("separate"), OrdersLoad(slow_latency=SLOW))
    assert run.served == 20 and run.payment.peak == 5
    assert run.inventory.peak <= 5
    assert stock_before_payment(run)
    assert run.served_waves() == {1: 5, 2: 5, 3: 5, 4: 5}
    assert run.slowest("order") >= 4 * SLOW  # the last wave waited for three slow calls, then made one


async def test_a_healthy_payment_serves_every_order_in_every_variant() -> None:
    for variant in ("shared", "separate"):
        run = await run_orders(OrderSettings(variant), OrdersLoad(slow=False))
        assert (run.served, run.refused) == (20, 0)
        assert run.count("served", "stock") == 10
    run = await run_orders(
        OrderSettings("limited"), OrdersLoad(slow=False)
    )  # a burst of 20 at once can still overflow 5 + 5
    assert run.served + run.refused == 20 and run.served >= 10 and run.payment.peak <= 5
    assert run.count("served", "stock") == 10


async def test_a_bigger_queue_serves_more_and_refuses_fewer() -> None:
    run = await run_orders(OrderSettings("limited", limit=3, queue=7), OrdersLoad(slow_latency=SLOW))
    assert (run.served, run.refused) == (10, 10)
    assert run.payment.peak == 3
    run = await run_orders(OrderSettings("limited", limit=5, queue=15), OrdersLoad(slow_latency=SLOW))
    assert (run.served, run.refused) == (20, 0)


# --- keep-alive: aiohttp's limit counts connections in use, not idle ones ---------------------


async def test_idle_keepalive_connections_do_not_count_against_aiohttps_shared_limit() -> None:
    open_at_end: list[int] = []

    def at_last_answer(done: int, total: int) -> None:
        if done == total:  # every order and stock check answered: which sockets are still open?
            open_at_end.extend(remote for _, remote in own_sockets("01"))  # 01 = ESTABLISHED

    run = await run_orders(
        OrderSettings("shared", pool=10, keepalive=True), OrdersLoad(slow=False), on_progress=at_last_answer
    )
    to_payment = open_at_end.count(run.ports["payment"])
    to_inventory = open_at_end.count(run.ports["inventory"])
    assert to_payment == 10  # Payment's connections sat idle, open, through all the stock checks
    assert to_payment + to_inventory > 10  # more sockets open at once than the pool's limit
    facts = keepalive_facts(run)
    assert facts.payment_opened == 10 and facts.payment_reused == 10  # 10 sockets, kept and reused
    assert facts.kept_open > facts.pool_limit  # more sockets open at once than the pool's limit
    assert run.duration < KEEPALIVE_TIMEOUT  # so none of Payment's idle sockets had closed
    assert run.count("served", "stock") == 10 and not facts.idle_counted  # none waited for them to


# --- nothing stays listening ------------------------------------------------------------------


async def test_nothing_listens_after_a_run() -> None:
    before = listening_ports()
    run = await run_orders(OrderSettings("limited"), OrdersLoad(slow=False, orders=5, stock_checks=2))
    assert listening_ports() == before
    assert all(refused(port) for port in run.ports.values())


async def test_nothing_listens_after_an_exception_mid_run() -> None:
    before = listening_ports()

    def explode(done: int, total: int) -> None:
        raise RuntimeError("the cell broke")

    with pytest.raises(RuntimeError, match="the cell broke"):
        await run_orders(OrderSettings("limited"), OrdersLoad(slow_latency=SLOW), on_progress=explode)
    assert listening_ports() == before


async def test_nothing_listens_after_an_interrupted_run() -> None:
    before = listening_ports()
    task = asyncio.create_task(run_orders(OrderSettings("separate"), OrdersLoad(slow_latency=2.0)))
    await until(lambda: len(listening_ports() - before) == 3, "Payment, Inventory and Order Service up")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert listening_ports() == before
