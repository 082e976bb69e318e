"""Serving on 127.0.0.1: any app on a port it binds itself, and a busy port refused before anything starts."""

from __future__ import annotations

import aiohttp
import pytest
from aiohttp import web
from loopback import listening

from bulkhead_lab.live.net.key import key_headers
from bulkhead_lab.live.net.server import LoopbackServer, bind_loopback

pytestmark = [pytest.mark.anyio, pytest.mark.live]


async def test_a_loopback_server_serves_any_app_and_reports_its_port() -> None:
    async def hello(request: web.Request) -> web.Response:
        return web.Response(text="hi")

    app = web.Application()
    app.router.add_get("/", hello)
    async with LoopbackServer(app) as server, aiohttp.ClientSession(headers=key_headers(server.url)) as s:
        async with s.get(server.url + "/") as r:
            assert await r.text() == "hi"
    assert not server.running and not listening(server.port)


def test_bind_loopback_refuses_a_busy_port_before_anything_starts() -> None:
    with bind_loopback(0) as held:
        port = held.getsockname()[1]
        with pytest.raises(ValueError, match=f"port {port} on 127.0.0.1 is busy"):
            bind_loopback(port)
