"""The new runners, interrupted: a steady load, the node pool's keep-alive stall and retrying clients
cancelled at random points print nothing and leave nothing listening (as test_hostile's runs)."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.live


def test_steady_loads_stalls_and_retries_cancelled_at_random_points_print_nothing_and_leave_no_port() -> None:
    rng = random.Random(14)
    delays = [round(rng.uniform(0.0, 2.5), 3) for _ in range(4)] + [0.0]  # each run lasts over 3 s
    script = textwrap.dedent(
        f"""
        import asyncio
        from bulkhead_lab.live.orders.clients import LIVE_RETRY
        from bulkhead_lab.live.orders.load import OrdersLoad, run_orders
        from bulkhead_lab.live.orders.service import OrderSettings
        from bulkhead_lab.live.orders.steady import SteadyLoad, run_adaptive
        from bulkhead_lab.retries.budgets import SRE_BUDGET

        RUNS = [
            lambda: run_adaptive(load=SteadyLoad(healthy_for=0.5, slow_for=3.0, recover_for=1.0)),
            lambda: run_orders(
                OrderSettings("shared", keepalive=True, pool_rule="node"), OrdersLoad(slow=False)
            ),
            lambda: run_orders(load=OrdersLoad(slow_latency=2.0, retry=LIVE_RETRY, budget=SRE_BUDGET)),
        ]

        def listening():
            import os
            inodes = set()
            for fd in os.listdir("/proc/self/fd"):
                try:
                    target = os.readlink(f"/proc/self/fd/{{fd}}")
                except OSError:
                    continue
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
            with open("/proc/net/tcp") as f:
                next(f)
                return sum(1 for line in f if line.split()[3] == "0A" and line.split()[9] in inodes)

        async def main():
            for make in RUNS:
                for delay in {delays!r}:
                    task = asyncio.create_task(make())
                    await asyncio.sleep(delay)
                    task.cancel()
                    try:
                        await task
                    except asyncio.CancelledError:
                        print("cancelled", listening())
            await asyncio.sleep(0.5)  # anything left behind would wake and complain now

        asyncio.run(main())
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=180)
    assert done.stderr == ""
    assert done.stdout.splitlines() == ["cancelled 0"] * (3 * len(delays))
