"""The two pool rules on real sockets: what counts against the limit, measured by the pools themselves.
aiohttp's (idle sockets never block, more open than the limit) is notebook 04's cell 40, nbval's; Node's
idle sockets counting against its limit until their keep-alive closes them are notebook 04's claims
13 and 14 (04_fail_fast_queue.ipynb cell c66), nbval's too.

Every fact is a count or an ordering (who got a socket before whom, how many sockets were
open at once), never a number of milliseconds: the idle timeouts here are either far
longer than the test (so the wait is seen by polling) or the expiry is what is waited for.
"""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import aiohttp
import pytest
from loopback import until

from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.orders.socket_pools import CallerPool, NodePool, make_pool

pytestmark = [pytest.mark.anyio, pytest.mark.live]

TIMEOUT = aiohttp.ClientTimeout(total=None, sock_read=30)
LONG_IDLE = 60.0  # seconds: an idle socket outlives the test unless something else closes it


async def call(pool: CallerPool, dep: Dependency, name: str) -> dict[str, Any]:
    """One GET through ``pool``; returns the call's trace context (with ``connected``)."""
    ctx: dict[str, Any] = {"dependency": name}
    async with pool.request(name, "GET", dep.url + "/", timeout=TIMEOUT, ctx=ctx) as r:
        await r.read()
        assert r.status == 200
    return ctx


async def test_an_idle_socket_is_reused_by_its_own_destination_first() -> None:
    async with Dependency("a", 0.0) as a:
        pool = NodePool(3, keepalive=True, destinations=("a",), idle_timeout=LONG_IDLE)
        try:
            for _ in range(4):
                await call(pool, a, "a")
            assert (pool.opened, pool.reused) == ({"a": 1}, {"a": 3})
            assert pool.count.peak == 1
        finally:
            await pool.close()


async def test_a_freed_socket_goes_to_a_call_for_its_own_destination_before_an_older_one() -> None:
    async with Dependency("a", 0.3) as a, Dependency("b", 0.0) as b:
        pool = NodePool(1, keepalive=True, destinations=("a", "b"), idle_timeout=0.05)
        try:
            first = asyncio.create_task(call(pool, a, "a"))
            await until(lambda: a.open == 1, "a's first call at a")
            to_b = asyncio.create_task(call(pool, b, "b"))  # waits first ...
            await until(lambda: pool.waited == 1, "the call to b waiting")
            again = asyncio.create_task(call(pool, a, "a"))  # ... but a's own call gets a's socket
            await until(lambda: pool.waited == 2, "the second call to a waiting")
            ctx_first, ctx_b, ctx_again = await asyncio.gather(first, to_b, again)
            assert ctx_first["connected"] < ctx_again["connected"] < ctx_b["connected"]
            assert pool.reused == {"a": 1, "b": 0} and pool.count.peak == 1
        finally:
            await pool.close()


async def test_without_keepalive_the_node_rule_frees_each_place_as_its_call_ends() -> None:
    async with Dependency("a", 0.0) as a, Dependency("b", 0.0) as b:
        pool = make_pool("node", 2, False, ("a", "b"))
        try:
            await asyncio.gather(call(pool, a, "a"), call(pool, a, "a"))
            await call(pool, b, "b")
            assert pool.waited == 0 and pool.opened == {"a": 2, "b": 1} and pool.reused == {"a": 0, "b": 0}
            await until(lambda: pool.count.open == 0, "every socket closed after its call")
        finally:
            await pool.close()


async def test_a_cancelled_waiting_call_leaves_the_queue_and_a_cancelled_running_call_frees_its_place() -> (
    None
):
    async with Dependency("slow", 30.0) as slow, Dependency("b", 0.0) as b:
        pool = NodePool(1, keepalive=True, destinations=("slow", "b"), idle_timeout=LONG_IDLE)
        try:
            running = asyncio.create_task(call(pool, slow, "slow"))
            await until(lambda: slow.open == 1, "the slow call at its dependency")
            waiting = asyncio.create_task(call(pool, b, "b"))
            await until(lambda: pool.waited == 1, "the call to b waiting")
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
            running.cancel()  # its socket may be mid-answer: it is closed, and its place passes on
            with pytest.raises(asyncio.CancelledError):
                await running
            await call(pool, b, "b")
            assert pool.opened["b"] == 1 and len(pool.owned) == 1
        finally:
            await pool.close()


async def test_closing_the_pool_fails_waiting_calls_with_one_line_and_closes_every_socket() -> None:
    async with Dependency("slow", 30.0) as slow:
        pool = NodePool(1, keepalive=True, destinations=("slow",), idle_timeout=LONG_IDLE)
        running = asyncio.create_task(call(pool, slow, "slow"))
        await until(lambda: slow.open == 1, "the slow call at its dependency")
        waiting = asyncio.create_task(call(pool, slow, "slow"))
        await until(lambda: pool.waited == 1, "a call waiting")
        await pool.close()
        with pytest.raises(aiohttp.ClientConnectionError, match="^pool is closed$"):
            await waiting
        with pytest.raises(aiohttp.ClientError):
            await running  # its socket was closed under it
        await until(lambda: pool.count.open == 0, "no socket left open")
        with pytest.raises(aiohttp.ClientConnectionError, match="^pool is closed$"):
            await call(pool, slow, "slow")
    gc.collect()  # an unclosed session would warn here, and warnings are errors
