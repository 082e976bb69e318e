"""A run's services answer that run alone (issue 40): a request without the run's key is HTTP 403 with
one line and changes nothing; the run's own clients present it (every live run in these tests does);
the serve commands need none (every test of test_hostile sends none).

Requests here are sent with :mod:`http.client` (:func:`outside.http`), exactly the headers given: what
another learner's kernel on the same machine could send.
"""

from __future__ import annotations

import asyncio

import pytest
from outside import http, one_line_error

from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.net.key import HEADER, key_headers
from bulkhead_lab.live.orders.load import OrdersLoad, order_services
from bulkhead_lab.live.orders.service import OrderSettings

pytestmark = [pytest.mark.anyio, pytest.mark.live]

MISSING = f"{HEADER} must be the key of the run that started this service (got missing)"
WRONG = f"{HEADER} must be the key of the run that started this service (got a wrong key)"


async def ask(port: int, method: str, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict]:
    """One request from a thread (the services' loop stays free), exactly these headers."""
    return await asyncio.to_thread(http, port, method, path, headers)


async def test_without_the_key_every_route_is_a_403_in_one_line_and_nothing_changes() -> None:
    settings = OrderSettings("limited")
    async with order_services(settings, OrdersLoad(slow_latency=2.0)) as (service, pay, inv):
        for port, method, path in [
            (pay.port, "POST", "/admin/slow?on=1&ms=2000"),
            (pay.port, "GET", "/admin/stats"),
            (pay.port, "POST", "/admin/reset"),
            (pay.port, "POST", "/pay"),
            (inv.port, "GET", "/stock"),
            (service.service.port, "POST", "/order"),
            (service.service.port, "GET", "/admin/bulkhead"),
            (service.service.port, "POST", "/admin/reset"),
        ]:
            for headers, why in (({}, MISSING), ({HEADER: "guessed-" + "x" * 35}, WRONG)):
                status, body = await ask(port, method, path, headers)
                assert status == 403, (method, path, body)
                assert one_line_error(body).startswith(why)
        assert not pay.slow and pay.slow_override is None  # the slowdown was not applied
        assert pay.calls == inv.calls == 0 and pay.peak == inv.peak == 0  # nothing reached them
        # the run's own client presents the key and gets through
        status, body = await ask(pay.port, "POST", "/admin/slow?on=1&ms=20", key_headers(pay.url))
        assert (status, body) == (200, {"slow": True, "latency_ms": 20})


async def test_a_key_is_this_services_own_and_is_forgotten_when_it_stops() -> None:
    async with Dependency("a", 0.0) as a, Dependency("b", 0.0) as b:
        key_a, key_b = key_headers(a.url), key_headers(b.url)
        assert set(key_a) == {HEADER} and key_a != key_b and len(key_a[HEADER]) >= 40
        status, body = await ask(b.port, "GET", "/admin/stats", key_a)  # another service's key
        assert status == 403 and one_line_error(body).startswith(WRONG)
    assert key_headers(a.url) == {} and key_headers("http://127.0.0.1:9/") == {}
