"""Lesson 004's keep-alive stall, shown on both pool rules side by side (issue 11).

The lesson's setup: a shared pool of 10, keep-alive on, Payment healthy, 20 orders at once
and 10 stock checks 100 ms later. Under Node's rule the orders' ten idle sockets hold every
place until the 5-s keep-alive timeout closes them; under aiohttp's they hold none. The
stall is asserted as a lower bound no machine can beat (no stock check can get a socket
before an idle one has waited out its 5 s) and as orderings, never as an upper bound.
"""

from __future__ import annotations

import pytest
from loopback import own_sockets
from outside import serving

from bulkhead_lab.live.orders.load import OrdersLoad, drive, run_orders
from bulkhead_lab.live.orders.reading.burst import IDLE_WAIT, keepalive_facts
from bulkhead_lab.live.orders.service import KEEPALIVE_TIMEOUT, OrderSettings

pytestmark = [pytest.mark.anyio, pytest.mark.live]


async def test_under_the_node_rule_healthy_stock_checks_wait_out_payments_idle_sockets() -> None:
    run = await run_orders(
        OrderSettings("shared", pool=10, keepalive=True, pool_rule="node"), OrdersLoad(slow=False)
    )
    facts = keepalive_facts(run)
    assert facts.idle_counted
    assert facts.pool_rule == "node" and facts.kept_open <= 10  # never more sockets than the limit
    assert facts.payment_opened == 10 and facts.payment_reused == 10  # ten sockets, each used twice
    assert run.served == 20 and run.count("served", "stock") == 10  # nothing failed, nothing was slow
    answered = max(r.end for r in run.orders)
    for check in run.stock_checks:  # each waited for its connection long after every order was answered
        assert check.run_start >= KEEPALIVE_TIMEOUT > answered  # no idle socket closed any sooner
        assert check.waited is not None and check.waited > check.ran  # the wait, not Inventory, took the time
    assert facts.idle_wait >= IDLE_WAIT
    assert run.pools is not None and run.pools.inventory.opened == 10  # after Payment's closed


async def test_under_aiohttps_rule_the_same_setup_never_waits_for_an_idle_socket() -> None:
    run = await run_orders(
        OrderSettings("shared", pool=10, keepalive=True, pool_rule="aiohttp"), OrdersLoad(slow=False)
    )
    facts = keepalive_facts(run)
    assert not facts.idle_counted
    # Payment's ten idle sockets stayed open beside every socket Inventory opened (ten on a quiet
    # machine; fewer when a slow client lets one stock check reuse another's): over the limit of 10
    assert facts.kept_open == 10 + facts.inventory_opened > facts.pool_limit
    assert facts.idle_wait < IDLE_WAIT and run.count("served", "stock") == 10
    assert all(r.run_start < KEEPALIVE_TIMEOUT for r in run.stock_checks)  # none waited for a close


async def test_the_healthy_baseline_without_keepalive_keeps_no_socket_and_stock_checks_fast() -> None:
    for rule in ("aiohttp", "node"):
        run = await run_orders(
            OrderSettings("shared", pool=10, keepalive=False, pool_rule=rule), OrdersLoad(slow=False)
        )
        assert run.pools is not None
        assert run.pools.payment.opened == 20 and run.pools.payment.reused == 0  # a socket a call
        assert run.count("served", "stock") == 10
        assert run.slowest("stock") < KEEPALIVE_TIMEOUT  # nothing idle to wait out (27 - 29 ms in the lesson)
        assert not [s for s in own_sockets("01") if s[1] in (run.ports["payment"], run.ports["inventory"])]
        with pytest.raises(ValueError, match=r"^run must have keepalive=True and slow=False"):
            keepalive_facts(run)


async def test_serve_orders_pool_rule_node_shows_the_stall_from_outside() -> None:
    with serving("serve-orders", "--variant", "shared", "--keepalive", "--pool-rule", "node") as s:
        run = await drive(
            s.urls["Order Service"], s.urls["Payment"], s.urls["Inventory"], OrdersLoad(slow=False)
        )
        assert run.pools is not None and run.pools.pool_rule == "node"
        assert run.pools.payment.peak <= 10 and run.pools.payment.reused == 10
        assert all(r.end >= KEEPALIVE_TIMEOUT for r in run.stock_checks)  # each waited out the idle sockets
        assert run.count("served", "stock") == 10 and run.served == 20
