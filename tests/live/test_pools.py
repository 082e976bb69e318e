"""Caller pools: the placement is chosen in one place, a call's failure is one line, its time counts
its wait for a slot. A limit binding its own dependency, a shared pool starving the fast one and a
skipped call site outside every limit are lesson 003's pool tests, which notebook 03 runs live and nbval
compares (cells 20 and 25), and test_node_protocol.py runs the lesson's own against serve-pools."""

from __future__ import annotations

import asyncio

import pytest

from bulkhead_lab.live.net.dependency import Dependency, Route
from bulkhead_lab.live.placement.pools import DependencyError, call, pool, pools

pytestmark = [pytest.mark.anyio, pytest.mark.live]


async def test_single_is_one_pool_of_both_sizes_and_separate_a_pool_each_all_closed_after() -> None:
    async with pools("single", 3, 5, 1111, 2222) as one:
        assert one(1111) is one(2222) and one.limits() == [8]
    async with pools("separate", 3, 5, 1111, 2222) as pool_for:
        assert pool_for(1111).connector.limit == 3 and pool_for(2222).connector.limit == 5
    assert all(session.closed for session in (*one.owned, *pool_for.owned))


async def test_a_refused_call_is_a_one_line_dependency_error() -> None:
    async with Dependency("gone", 0.0) as dep:
        port = dep.port
    async with pool(1) as p:
        with pytest.raises(DependencyError, match=rf"^GET http://127.0.0.1:{port}/x failed: ") as info:
            await call(port, "/x", p)
    assert "\n" not in str(info.value)


async def test_a_non_2xx_answer_is_a_dependency_error() -> None:
    async with Dependency("dep", routes=[Route("GET", "/ok", 0.0)]) as dep, pool(1) as p:
        with pytest.raises(DependencyError, match=r"answered HTTP 404$"):
            await call(dep.port, "/missing", p)
        assert await call(dep.port, "/ok", p) >= 0.0


async def test_a_call_reports_its_time_including_the_wait_for_a_slot() -> None:
    async with Dependency("dep", 0.1) as dep, pool(1) as p:
        first, second = await asyncio.gather(call(dep.port, "/x", p), call(dep.port, "/x", p))
    # the second waited for the slot: two holds of 0.1 s one after the other (a floor no machine beats)
    assert first >= 0.1 and second >= 0.2 and second > first
