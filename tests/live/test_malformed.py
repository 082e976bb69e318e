"""Malformed requests, sent over raw sockets to the serve commands: each is one line on the log.

aiohttp answers these itself (HTTP 400) before any handler runs, and used to print a full
traceback for each ("Error handling request"); so did a client that sends ``Expect:
100-continue`` and leaves. Now the service's log (the command's stderr) holds one line per
such request, naming the service, the client and what was wrong, and no traceback
(:mod:`bulkhead_lab.live.requestlog`). Also here: the counting dependency's catch-all no longer
answers an ``/admin`` path it does not have.
"""

from __future__ import annotations

import asyncio
import re
import socket
import sys

import pytest
from loopback import until_sync
from outside import http, one_line_error, serving

from bulkhead_lab.live.net.dependency import Dependency, Route
from bulkhead_lab.live.net.key import key_headers

pytestmark = [pytest.mark.anyio, pytest.mark.live]

LIMIT = 8190  # aiohttp's longest request line or header, in bytes
LEAVES = "Expect: 100-continue, then gone"

# Each kind: the request (given a route of the service and the Host header) and what its log line says
# was wrong. The one that leaves asks for a route the service has: aiohttp says "100 Continue" only there.
KINDS: dict[str, tuple[str, str]] = {
    LEAVES: (
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n",
        "left before its answer could be sent",
    ),
    "a URL over 8,190 bytes": (
        "{method} /" + "a" * (LIMIT + 10) + " HTTP/1.1\r\nHost: {host}\r\n\r\n",
        rf"(Got more than {LIMIT} bytes|Status line is too long)",
    ),
    "a header over 8,190 bytes": (
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nX-Long: " + "b" * (LIMIT + 10) + "\r\n\r\n",
        rf"(Got more than {LIMIT} bytes|Request header field too large)",
    ),
    "a bad Content-Length": (
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: abc\r\n\r\n",
        "Content-Length",
    ),
    "a bad chunk": (
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked\r\n\r\n"
        "zz\r\nhello\r\n0\r\n\r\n",
        "chunk",
    ),
    "a duplicate Host": ("{method} {path} HTTP/1.1\r\nHost: {host}\r\nHost: {host}\r\n\r\n", "Host"),
    "a bare line feed": ("{method} {path} HTTP/1.1\nHost: {host}\n\n", "(line|CRLF|LF)"),
    "a NUL in the path": ("{method} {path}\x00 HTTP/1.1\r\nHost: {host}\r\n\r\n", "(url|path|char)"),
}
MALFORMED = [kind for kind in KINDS if kind != LEAVES]
# Before Python 3.12 aiohttp starts a request's handler after it has read the connection's end, so its
# "100 Continue" fails on the closed connection: one line. From 3.12 the handler starts at once, the
# 100 Continue goes out, and the client's leaving cancels the handler as for any client that leaves:
# nothing to report, no line.
LEAVES_LINES = 1 if sys.version_info < (3, 12) else 0
ROUTES = {  # a route of each service, (method, path), and its name in its log lines
    "Order Service": ("POST", "/orders", "Order Service"),
    "Payment": ("POST", "/pay", "payment"),
    "Inventory": ("GET", "/stock", "inventory"),
    "loan": ("GET", "/run?placement=separate&notif=4&cat=4", "loan service"),
    "notification": ("POST", "/send", "notification"),
    "catalog": ("GET", "/book", "catalog"),
}


async def send(name: str, port: int, kind: str) -> bytes:
    """One request of ``kind`` over a raw socket; its answer's status line (b"" for the one that leaves)."""
    method, path, _ = ROUTES[name]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        request = KINDS[kind][0].format(method=method, path=path, host=f"127.0.0.1:{port}")
        if kind == LEAVES:  # the request and its end in one segment: gone before "100 Continue"
            sock = writer.get_extra_info("socket")
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
            writer.write(request.encode("latin-1"))
            writer.write_eof()
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 0)
            return b""
        writer.write(request.encode("latin-1"))
        answer = await asyncio.wait_for(reader.read(), 30)
        return answer.split(b"\r\n", 1)[0]
    finally:
        writer.close()
        await writer.wait_closed()


def send_all(ports: dict[str, int]) -> dict[tuple[str, str], bytes]:
    async def every() -> dict[tuple[str, str], bytes]:
        return {(name, kind): await send(name, port, kind) for name, port in ports.items() for kind in KINDS}

    return asyncio.run(every())


@pytest.mark.parametrize("command", ["serve-orders", "serve-pools"])
def test_each_malformed_request_is_one_line_naming_the_service_the_client_and_the_fault(command: str) -> None:
    with serving(command, *(["--variant", "limited"] if command == "serve-orders" else []), log=True) as s:
        ports = {name: s.port(name) for name in s.urls}
        answers = send_all(ports)  # each service: the one that leaves first, then the malformed ones
        refused = len(ports) * len(MALFORMED)
        until_sync(lambda: sum("malformed" in line for line in s.log) >= refused, f"{refused} lines")
        for port in ports.values():  # every service still serves
            assert http(port, "GET", "/admin/nope")[0] == 404
    for (name, kind), status in answers.items():
        assert status == (b"" if kind == LEAVES else b"HTTP/1.0 400 Bad Request"), (name, kind, status)
    lines = [line.rstrip("\n") for line in s.log]
    assert not any("Traceback" in line for line in lines), "\n".join(lines)
    assert len(lines) == len(ports) * (len(MALFORMED) + LEAVES_LINES), "\n".join(lines)
    for name, port in ports.items():
        prefix = f"{command}: {ROUTES[name][2]} on 127.0.0.1:{port}: 127.0.0.1 "
        mine = [line for line in lines if line.startswith(prefix)]
        kinds = ([LEAVES] if LEAVES_LINES else []) + MALFORMED
        assert len(mine) == len(kinds), (name, mine)
        for line, kind in zip(mine, kinds, strict=True):
            verdict = "left" if kind == LEAVES else "sent a malformed request, answered HTTP 400"
            assert f": 127.0.0.1 {verdict}" in line and re.search(KINDS[kind][1], line, re.I), (kind, line)


# --- the counting dependency answers only what it has under /admin --------------------------------


@pytest.mark.parametrize(
    "routes", [None, [Route("POST", "/pay", 0.0)]], ids=["catch-all (lesson 003)", "routes (lesson 004)"]
)
async def test_an_admin_path_it_does_not_have_is_404_and_a_wrong_method_405_never_a_counted_call(
    routes: list[Route] | None,
) -> None:
    import aiohttp

    async with (
        Dependency("notification", 5.0, routes=routes) as dep,
        aiohttp.ClientSession(headers=key_headers(dep.url)) as session,
    ):
        answers = {}
        for method, path in [("GET", "/admin/reset"), ("POST", "/admin/stats"), ("GET", "/admin/nope"),
                             ("POST", "/admin"), ("DELETE", "/admin/slow")]:  # fmt: skip
            async with session.request(method, dep.url + path) as r:
                answers[method, path] = (r.status, r.headers.get("Allow"), one_line_error(await r.json()))
        assert dep.stats().calls == 0 and dep.stats().peak == 0  # none counted, none held for 5 s
    assert answers == {
        ("GET", "/admin/reset"): (405, "POST", "/admin/reset takes POST, not GET"),
        ("POST", "/admin/stats"): (405, "GET", "/admin/stats takes GET, not POST"),
        ("GET", "/admin/nope"): (404, None, _unknown("/admin/nope")),
        ("POST", "/admin"): (404, None, _unknown("/admin")),
        ("DELETE", "/admin/slow"): (405, "POST", "/admin/slow takes POST, not DELETE"),
    }


def _unknown(path: str) -> str:
    return (
        f"{path} is not an admin route of notification: it has GET /admin/stats, POST /admin/reset, "
        "POST /admin/slow"
    )
