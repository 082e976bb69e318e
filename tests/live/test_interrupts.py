"""The new runners, interrupted: a steady load, the node pool's keep-alive stall and retrying clients
cancelled at random points print nothing and leave nothing listening (as test_hostile's runs)."""

from __future__ import annotations

import random

import pytest
from loopback import cancelled_at

pytestmark = pytest.mark.live


def test_steady_loads_stalls_and_retries_cancelled_at_random_points_print_nothing_and_leave_no_port() -> None:
    rng = random.Random(14)
    delays = [round(rng.uniform(0.0, 2.5), 3) for _ in range(4)] + [0.0]  # each run lasts over 3 s
    imports = """
from bulkhead_lab.live.orders.adaptive import AdaptiveSettings
from bulkhead_lab.live.orders.load import OrdersLoad, run_orders
from bulkhead_lab.live.orders.retrying import LIVE_RETRY, RetryingLoad
from bulkhead_lab.live.orders.service import OrderSettings
from bulkhead_lab.live.orders.steady import SteadyLoad
from bulkhead_lab.retries.budgets import SRE_BUDGET
"""
    runs = [
        "run_orders(AdaptiveSettings(), SteadyLoad(healthy_for=0.5, slow_for=3.0, recover_for=1.0))",
        'run_orders(OrderSettings("shared", keepalive=True, pool_rule="node"), OrdersLoad(slow=False))',
        "run_orders(load=RetryingLoad(slow_latency=2.0, retry=LIVE_RETRY, budget=SRE_BUDGET))",
    ]
    assert cancelled_at(delays, imports, runs) == ["cancelled 0"] * (len(runs) * len(delays))
