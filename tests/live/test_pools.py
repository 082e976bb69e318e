"""Caller pools: a limit binds its own dependency, the placement is chosen in one place,
and a skipped call site is outside every limit."""

from __future__ import annotations

import asyncio

import pytest
from loopback import until

from bulkhead_lab.live.net.dependency import Dependency, Route
from bulkhead_lab.live.placement.pools import SKIPPED, DependencyError, call, pool, pools

pytestmark = [pytest.mark.anyio, pytest.mark.live]


async def test_a_pool_limit_caps_what_the_dependency_sees() -> None:
    async with Dependency("dep", 0.2) as dep, pool(3) as p:  # 4 waves: long enough for 3 to overlap
        await asyncio.gather(*(call(dep.port, "/x", p) for _ in range(12)))
    assert dep.peak == 3 and dep.calls == 12


async def test_a_skipped_call_site_exceeds_the_pool_limit_by_exactly_its_count() -> None:
    # 0.3 s (the lesson's latency): the five own connections must all open while the others are held
    async with Dependency("dep", 0.3) as dep, pool(3) as p:
        pooled = [call(dep.port, "/x", p) for _ in range(10)]
        skipped = [call(dep.port, "/x", SKIPPED) for _ in range(5)]
        await asyncio.gather(*pooled, *skipped)
    assert dep.peak == 3 + 5


async def test_a_single_placement_is_one_pool_of_both_sizes_for_every_port() -> None:
    async with pools("single", 3, 5, 1111, 2222) as pool_for:
        assert pool_for(1111) is pool_for(2222)
        assert pool_for.limits() == [8]


async def test_a_separate_placement_is_a_pool_each_with_its_own_size() -> None:
    async with pools("separate", 3, 5, 1111, 2222) as pool_for:
        assert pool_for(1111) is not pool_for(2222)
        assert pool_for(1111).connector.limit == 3 and pool_for(2222).connector.limit == 5
    assert all(session.closed for session in pool_for.owned)


async def test_a_shared_pool_lets_the_slow_dependency_hold_every_slot() -> None:
    async with Dependency("slow", 0.5) as slow, Dependency("fast", 0.0) as fast:
        async with pools("single", 2, 2, slow.port, fast.port) as pool_for:
            slow_calls = [asyncio.ensure_future(call(slow.port, "/s", pool_for(slow.port))) for _ in range(8)]
            fast_calls = [asyncio.ensure_future(call(fast.port, "/f", pool_for(fast.port))) for _ in range(4)]
            await until(lambda: slow.open == 4, "the slow dependency holding all four slots")
            assert fast.calls == 0 and slow.calls == 4  # the fast calls found no slot
            await asyncio.gather(*slow_calls, *fast_calls)
        assert slow.peak == 4 and fast.calls == 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("both", 4, 4), r"^placement must be one of single, separate \(got 'both'\)$"),
        (("separate", 0, 4), r"^notif must be an integer in 1\.\.1000 \(got 0\)$"),
        (("separate", 4, -1), r"^cat must be an integer in 1\.\.1000 \(got -1\)$"),
        (("single", 4.0, 4), r"^notif must be an integer"),
    ],
)
def test_a_bad_placement_or_pool_size_is_refused_with_one_line(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pools(*args, 1111, 2222)


def test_a_pool_of_zero_connections_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^limit must be an integer in 1\.\.1000 \(got 0\)$"):
        pool(0)


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
