"""Notebook 10's live side beyond what nbval compares in its outputs (the clients' defaults, HTTP/2, the
throttle, the right stack's Right): the fault proxy injects what it is told, the capstone calls the four
broken stacks Not yet, each for its own wall, and a stalled machine's time is not counted against the SLO."""

from __future__ import annotations

import asyncio
import dataclasses
import time

import aiohttp
import httpx
import pytest

from bulkhead_lab.course.judges.capstone import judge
from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.net.key import key_headers
from bulkhead_lab.live.stack.capstone import SLO, StackRun, run_stack
from bulkhead_lab.live.stack.proxy import FaultProxy

pytestmark = pytest.mark.live

RIGHT = {
    "payment": {"limits": httpx.Limits(max_connections=10), "timeout": httpx.Timeout(1.0)},
    "inventory": {"limits": httpx.Limits(max_connections=10), "timeout": httpx.Timeout(1.0)},
    "retry_budget": {"payment": 0.1, "inventory": 0.1},
}
BROKEN = {
    "no limit": ({**RIGHT, "payment": {"limits": httpx.Limits(max_connections=None), "timeout": 1.0}},
                 "no limit"),
    "the default pool": ({**RIGHT, "payment": {}}, "under a limit of 100"),
    "a limit without a timeout": (
        {**RIGHT, "payment": {"limits": httpx.Limits(max_connections=10), "timeout": httpx.Timeout(None)}},
        "a limit without a timeout",
    ),
    "a shared budget": ({**RIGHT, "retry_budget": {"shared": 0.1}}, "a shared budget"),
}  # fmt: skip


def test_the_fault_proxy_delays_hangs_and_fails_a_share_evenly() -> None:
    async def run() -> tuple[list[int], int, int]:
        async with Dependency("payment", 0.0) as dep, FaultProxy(dep.url) as proxy:
            async with aiohttp.ClientSession(headers=key_headers(proxy.url)) as session:

                async def get() -> int:
                    async with session.get(f"{proxy.url}/pay") as r:
                        return r.status

                proxy.inject(errors=0.25)
                codes = [await get() for _ in range(8)]
                proxy.inject(hang=True)
                held = asyncio.ensure_future(get())
                await asyncio.sleep(0.2)
                was_held = proxy.held
                proxy.clear()
                await held
                return codes, was_held, dep.calls

    codes, held, reached = asyncio.run(run())
    assert codes == [200, 200, 200, 503, 200, 200, 200, 503]
    assert held == 1 and reached == 7


@pytest.mark.parametrize("name", list(BROKEN))
def test_the_capstone_names_each_broken_wall(name: str) -> None:
    stack, says = BROKEN[name]
    verdict = judge(asyncio.run(run_stack(stack)))
    assert not verdict.ok and says in verdict.says, verdict.says
    assert "\n" not in verdict.says


def test_a_stall_is_not_counted_against_inventorys_slo_and_lateness_when_busy_asks_for_another_run() -> None:
    async def stalled() -> StackRun:
        async def stall() -> None:
            await asyncio.sleep(1.5)  # Payment slow since 0.5 s
            time.sleep(0.5)  # the whole loop stands still, as a starved machine or a full collection makes it

        staller = asyncio.ensure_future(stall())
        run = await run_stack(RIGHT)
        await staller
        return run

    run = asyncio.run(stalled())
    inv = run.compartments["inventory"]
    assert max(inv.took) > SLO and run.lag > 0.45  # the requests open then waited it out ...
    assert inv.late(SLO) == 0  # ... which the SLO does not count
    assert judge(run).ok, judge(run).says
    # Inventory late whatever the stall: Not yet, asking for another run when the machine was busy
    slow = dataclasses.replace(inv)
    slow.took = [t + 2 * SLO for t in slow.took]  # every request late, beyond any stall
    late = dataclasses.replace(run, compartments={**run.compartments, "inventory": slow}, busy="")
    assert judge(late).says.endswith("while Payment was slow"), judge(late).says
    why = "this machine was too busy during the run (loop lag up to 480 ms)"
    verdict = judge(dataclasses.replace(late, busy=why))
    assert not verdict.ok and verdict.says.endswith(f"but {why}: run it again before you change the stack")
