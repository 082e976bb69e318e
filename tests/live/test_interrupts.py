"""Every live run, cancelled at random points (Kernel > Interrupt cancels the cell's task): it stops,
prints nothing and leaves nothing listening. A run's own cancel tests (a learner's cell, the kernel's
interrupt) are beside it: test_hostile, test_stack_interrupts, test_course_fail_fast_queue."""

from __future__ import annotations

import random

import pytest
from loopback import cancelled_at

pytestmark = pytest.mark.live

ORDERS = """
from bulkhead_lab.live.orders.adaptive import AdaptiveSettings
from bulkhead_lab.live.orders.load import OrdersLoad, run_orders
from bulkhead_lab.live.orders.retrying import LIVE_RETRY, RetryingLoad
from bulkhead_lab.live.orders.service import OrderSettings
from bulkhead_lab.live.orders.steady import SteadyLoad
from bulkhead_lab.retries.budgets import SRE_BUDGET
"""
BATCHES = """
from bulkhead_lab.live.net.server import all_or_cancel
from bulkhead_lab.live.placement.batch import run_placement
from bulkhead_lab.live.placement.lesson import run_lesson
"""
STACK = """
from bulkhead_lab.live.stack.capstone import run_stack
from bulkhead_lab.live.stack.throttle import orders_runs
from test_stack import RIGHT
"""

# what each run needs imported, the runs, and the seconds between which each is cancelled
RUNS = {
    "a steady load, the node pool's keep-alive stall, retrying clients": (
        ORDERS,
        [
            "run_orders(AdaptiveSettings(), SteadyLoad(healthy_for=0.5, slow_for=3.0, recover_for=1.0))",
            'run_orders(OrderSettings("shared", keepalive=True, pool_rule="node"), OrdersLoad(slow=False))',
            "run_orders(load=RetryingLoad(slow_latency=2.0, retry=LIVE_RETRY, budget=SRE_BUDGET))",
        ],
        (0.0, 2.5),  # each run lasts over 3 s
    ),
    "notebook 03's batches side by side, and its lesson's (those alone first, then the others)": (
        BATCHES,
        ['all_or_cancel([run_placement("single"), run_placement(), run_placement(skip=8)])', "run_lesson()"],
        (0.0, 1.2),
    ),
    "notebook 07's two storms side by side": (
        "from bulkhead_lab.live.orders.metastable import run_storms",
        ["run_storms()"],
        (1.5, 5.0),  # both runs under way, neither done
    ),
    "notebook 10's capstone and its throttle's Order Service runs": (
        STACK,
        ["run_stack(RIGHT)", "orders_runs()"],
        (0.0, 2.5),
    ),
}


@pytest.mark.parametrize("name", list(RUNS))
def test_a_run_cancelled_at_random_points_prints_nothing_and_leaves_no_port(name: str) -> None:
    imports, runs, (early, late) = RUNS[name]
    rng = random.Random(name)
    delays = [round(rng.uniform(early, late), 3) for _ in range(3)] + [0.0]
    assert cancelled_at(delays, imports, runs) == ["cancelled 0"] * (len(runs) * len(delays))
