"""The counting dependency: what it counts, its admin routes, and that it always lets go of its port.

A slowdown switched over HTTP is test_run_key's and test_hostile's (a 504 after its slow latency, an order
served at once when switched back); its timeline, test_placement's (the figures' open calls); a kill cutting
its open calls off, test_order_service's (a Payment killed mid-run, restarted on its freed port)."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest
from loopback import listening, listening_addresses, until
from outside import one_line_error

from bulkhead_lab.live.net.dependency import Dependency, DependencyStats, Route
from bulkhead_lab.live.net.key import key_headers

pytestmark = [pytest.mark.anyio, pytest.mark.live]


async def fire(session: aiohttp.ClientSession, method: str, url: str, n: int) -> list[int]:
    async def one() -> int:
        async with session.request(method, url) as r:
            await r.read()
            return r.status

    return list(await asyncio.gather(*(one() for _ in range(n))))


async def test_a_dependency_counts_calls_and_peak_reports_them_uncounted_and_reset_zeroes_them() -> None:
    async with Dependency("dep", 0.05) as dep, aiohttp.ClientSession(headers=key_headers(dep.url)) as s:
        assert await fire(s, "GET", dep.url + "/anything", 6) == [200] * 6
        await fire(s, "GET", dep.url + "/x", 2)
        assert dep.stats() == DependencyStats(peak=6, open=0, calls=8)
        async with s.get(dep.url + "/admin/stats") as r:
            assert await r.json() == {"peak": 6, "open": 0, "calls": 8}
        async with s.post(dep.url + "/admin/reset") as r:
            assert r.status == 200
        assert dep.stats() == DependencyStats()  # neither admin call was counted


async def test_a_bad_slow_switch_is_a_400_with_one_line_and_changes_nothing() -> None:
    mistakes = [({"on": "yes"}, "on must be 1 or 0 (got 'yes')")]
    for ms in ("\u00b2", "\u0661\u0662", "-5", "3600001"):  # superscript two, Arabic-Indic 12
        mistakes.append(({"on": "1", "ms": ms}, "ms must be an integer in 0..3600000 (got "))
    mistakes.append(({"on": "0", "ms": "20"}, "ms goes only with on=1, a slowdown (got on=0 and ms='20')"))
    async with Dependency("dep", 0.01) as dep, aiohttp.ClientSession(headers=key_headers(dep.url)) as s:
        for params, error in mistakes:
            async with s.post(dep.url + "/admin/slow", params=params) as r:
                assert r.status == 400 and one_line_error(await r.json()).startswith(error), params
        assert dep.slow is False


async def test_with_routes_only_those_are_served_and_counted() -> None:
    stock = Route("GET", "/stock", 0.01)
    async with (
        Dependency("inventory", routes=[stock]) as dep,
        aiohttp.ClientSession(headers=key_headers(dep.url)) as s,
    ):
        assert await fire(s, "GET", dep.url + "/stock", 2) == [200, 200]
        assert await fire(s, "GET", dep.url + "/pay", 1) == [404]
        assert await fire(s, "POST", dep.url + "/stock", 1) == [405]
        assert dep.calls == 2


@pytest.mark.parametrize(
    ("kwargs", "line"),
    [({"host": host}, r"^host must be 127\.0\.0\.1") for host in ("0.0.0.0", "localhost", "::", "10.0.0.1")]
    + [({"port": 70000}, r"^dep port must be an integer in 0")],
)
def test_bad_dependency_parameters_are_refused_with_one_line(kwargs: dict, line: str) -> None:
    with pytest.raises(ValueError, match=line) as info:
        Dependency("dep", **kwargs)
    assert "\n" not in str(info.value)


async def test_a_busy_port_is_refused_with_one_line_and_the_holder_keeps_serving() -> None:
    async with Dependency("first", 0.0) as first:
        with pytest.raises(ValueError, match=rf"^second port {first.port} on 127.0.0.1 is busy"):
            async with Dependency("second", 0.0, port=first.port):
                pass
        assert listening(first.port)


async def test_it_listens_on_127_0_0_1_alone_and_not_after_exit_or_an_exception() -> None:
    async with Dependency("a", 0.0) as dep, Dependency("b", 0.0) as other:
        port = dep.port
        assert listening_addresses(port) == {"127.0.0.1"} and other.port != port  # free ports, loopback only
    assert not listening(port)
    with pytest.raises(RuntimeError, match="boom"):
        async with Dependency("dep", 0.0) as dep:
            port = dep.port
            raise RuntimeError("boom")
    assert not listening(port)


async def test_nothing_stays_listening_after_a_cancelled_task_even_mid_request() -> None:
    dep = Dependency("dep", 5.0)
    entered = asyncio.Event()

    async def hold() -> None:
        async with dep, aiohttp.ClientSession(headers=key_headers(dep.url)) as s:
            entered.set()
            await fire(s, "GET", dep.url + "/x", 2)

    task = asyncio.ensure_future(hold())
    await entered.wait()
    await until(lambda: dep.open == 2, "both requests open")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not listening(dep.port)
    assert dep.open == 0


async def test_a_slow_latency_is_for_one_slowdown_and_reset_returns_the_start_state() -> None:
    pay = Route("POST", "/pay", 0.01, slow_latency=3.0)
    async with Dependency("payment", routes=[pay]) as dep:
        dep.set_slow(True, 0.02)
        assert dep.latency_of(pay) == 0.02
        dep.set_slow(False)
        dep.set_slow(True)  # a plain slowdown is the route's own again, not the last one's 20 ms
        assert dep.latency_of(pay) == 3.0
        dep.set_slow(True, 0.02)
        await dep.reset()
        assert (dep.slow, dep.slow_override, dep.stats()) == (False, None, DependencyStats())
