"""Lesson 004's Order Service: a busy port, a Payment killed mid-run, and nothing left listening.

Its facts at the lesson's numbers (each variant's counts, waves, peaks and refusals, the keep-alive
stall) are notebook 04's outputs, which nbval compares; check.js's budgets are test_serve.py's.
"""

from __future__ import annotations

import asyncio
import gc
import re
import socket

import pytest
from loopback import listening, listening_ports, until

from bulkhead_lab.live.bulkhead import InstrumentedBulkhead
from bulkhead_lab.live.net.server import LOOPBACK
from bulkhead_lab.live.orders.load import OrdersLoad, drive, run_orders
from bulkhead_lab.live.orders.service import OrderService, OrderSettings, inventory, payment

pytestmark = [pytest.mark.anyio, pytest.mark.live]


async def test_an_order_service_on_a_busy_port_refuses_with_one_line_and_closes_its_pools() -> None:
    with socket.socket() as busy:
        busy.bind((LOOPBACK, 0))
        busy.listen()
        port = busy.getsockname()[1]
        service = OrderService(
            OrderSettings("separate"), "http://127.0.0.1:1", "http://127.0.0.1:2", port=port
        )
        with pytest.raises(ValueError, match=rf"^port {port} on 127\.0\.0\.1 is busy"):
            await service.start()
    assert service.pool_stats() == {"variant": "separate", "shared": False, "pool_rule": "aiohttp"}  # no pool
    gc.collect()  # an unclosed session would warn here, and warnings are errors


async def test_nothing_listens_after_a_run_nor_after_an_exception_mid_run() -> None:
    """Cancelled runs (Kernel > Interrupt) are test_interrupts.py's, at random points."""
    before = listening_ports()
    run = await run_orders(OrderSettings("limited"), OrdersLoad(slow=False, orders=5, stock_checks=2))
    assert listening_ports() == before and not any(map(listening, run.ports.values()))

    def explode(done: int, total: int) -> None:
        raise RuntimeError("the cell broke")

    with pytest.raises(RuntimeError, match="the cell broke"):
        await run_orders(OrderSettings("limited"), OrdersLoad(slow_latency=0.6), on_progress=explode)
    assert listening_ports() == before


async def test_a_payment_killed_mid_run_gives_clear_errors_frees_every_slot_and_the_next_run_is_clean() -> (
    None
):
    settings = OrderSettings("limited", limit=5, queue=5)
    async with inventory() as inv:
        pay = payment(slow_latency=10.0)  # killed long before its first answer
        await pay.start()
        port = pay.port
        try:
            async with OrderService(settings, pay.url, inv.url) as service:
                load = asyncio.create_task(drive(service.url, pay.url, inv.url, OrdersLoad(stock_delay=0.1)))
                await until(
                    lambda: pay.open == 5 and service.bulkhead_stats()["rejected"] == 10,
                    "5 orders at Payment, 5 waiting and 10 refused",
                )
                await pay.kill()
                run = await load
                assert pay.open == 0  # its open calls cut off, not left to answer after 10 s
                failed = [r for r in run.orders if r.status == 502]
                assert len(failed) == 10 and run.refused == 10  # the 5 running and the 5 waiting
                assert all(
                    re.fullmatch(r"payment (unreachable|answered HTTP \d+).*", r.body["error"])
                    for r in failed
                )
                assert run.count("served", "stock") == 10  # Inventory's pool never noticed
                fresh = InstrumentedBulkhead(5, 5).stats()
                assert service.bulkhead_stats() == fresh | {"rejected": 10}  # every place free again
                # Payment restarts: a pool slot or a bulkhead place the killed calls kept would show here
                async with payment(port=port, slow_latency=0.6) as again:
                    run = await drive(service.url, again.url, inv.url)
                    assert (run.served, run.refused) == (10, 10) and run.payment.peak == 5
                    assert run.bulkhead_busy is not None and run.bulkhead_busy["running"] == 5
        finally:
            await pay.stop()
