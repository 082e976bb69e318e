"""Lesson 004's keep-alive experiment: its baseline, and serve-orders' pool rule from outside (issue 11).

The stall itself (under Node's rule, stock checks wait out Payment's idle sockets' 5-s keep-alive; under
aiohttp's, more sockets stay open than the limit and none waits) is notebook 04's cells 36 and 40, which
nbval compares at the lesson's numbers, as the baseline's stock checks under 300 ms (cell c66, claim 7);
test_socket_pools.py pins each rule on its own sockets.
"""

from __future__ import annotations

import pytest
from loopback import own_sockets
from outside import http, one_line_error, serving

from bulkhead_lab.live.orders.load import OrdersLoad, run_orders
from bulkhead_lab.live.orders.reading.burst import keepalive_facts
from bulkhead_lab.live.orders.service import OrderSettings

pytestmark = [pytest.mark.anyio, pytest.mark.live]


async def test_the_healthy_baseline_without_keepalive_keeps_no_socket_and_stock_checks_fast() -> None:
    run = await run_orders(OrderSettings("shared", pool=10, keepalive=False), OrdersLoad(slow=False))
    assert run.pools is not None
    assert run.pools.payment.opened == 20 and run.pools.payment.reused == 0  # a socket a call
    assert not [s for s in own_sockets("01") if s[1] in (run.ports["payment"], run.ports["inventory"])]
    with pytest.raises(ValueError, match=r"^run must have keepalive=True and slow=False"):
        keepalive_facts(run)


def test_serve_orders_keepalive_and_pool_rule_node_reach_the_order_services_pool() -> None:
    with serving("serve-orders", "--variant", "shared", "--keepalive", "--pool-rule", "node") as s:
        order = s.port("Order Service")
        assert [http(order, "POST", "/orders")[0] for _ in range(2)] == [200, 200]
        status, pools = http(order, "GET", "/admin/pools")
        no_bulkhead, body = http(order, "GET", "/admin/bulkhead")  # the route of a variant that has none
    assert status == 200 and (pools["pool_rule"], pools["shared"]) == ("node", True)
    assert no_bulkhead == 404 and one_line_error(body) == "variant shared has no bulkhead"
    assert (pools["payment"]["opened"], pools["payment"]["reused"]) == (1, 1)  # kept alive, used again
