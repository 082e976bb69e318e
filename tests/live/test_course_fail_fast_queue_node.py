"""Notebook 04's appendix on Node's keep-alive buffer, checked against the installed ``node``.

Section 6 puts lesson 004's "about 6 s" stall down to Node's HTTP server, which closes an idle kept-alive
socket 1 s after ``server.keepAliveTimeout``: the constant ``HTTP_SERVER_KEEP_ALIVE_TIMEOUT_BUFFER = 1000``
in nodejs/node ``lib/_http_server.js`` (pull request #54863: v22.9.0, and v20.18.0 on the 20 line), made
the setting ``server.keepAliveTimeoutBuffer`` by pull request #59243 (v24.6.0 and v22.19.0). A server
with a short keep-alive timeout is asked once and left idle; the test times its close, and reads the
setting, against what those versions say of the installed one.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time

import pytest

pytestmark = pytest.mark.live

KEEPALIVE_MS = 300  # the server's keep-alive timeout here: short, so the test takes about 1.3 s
SERVER = r"""
const http = require('http');
const server = http.createServer((req, res) => res.end('ok'));
server.keepAliveTimeout = Number(process.argv[1]);
server.listen(0, '127.0.0.1', () => {
  const buffer = server.keepAliveTimeoutBuffer;
  console.log(JSON.stringify({ port: server.address().port, version: process.version,
                               buffer: buffer === undefined ? null : buffer }));
});
"""


def _version(text: str) -> tuple[int, int]:
    major, minor = text.lstrip("v").split(".")[:2]
    return int(major), int(minor)


def buffer_since(version: tuple[int, int]) -> bool:
    """The 1-s buffer: from 22.9.0 (#54863), backported to 20.18.0; never on 21.x."""
    major, minor = version
    return major >= 23 or (major == 22 and minor >= 9) or (major == 20 and minor >= 18)


def setting_since(version: tuple[int, int]) -> bool:
    """``server.keepAliveTimeoutBuffer``: from 24.6.0 (#59243), backported to 22.19.0; 23.x had ended."""
    major, minor = version
    return major >= 25 or (major == 24 and minor >= 6) or (major == 22 and minor >= 19)


def test_a_node_server_closes_an_idle_kept_alive_socket_its_buffer_after_the_timeout(node: str) -> None:
    command = [node, "-e", SERVER, str(KEEPALIVE_MS)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as server:
        try:
            assert server.stdout is not None
            about = json.loads(server.stdout.readline())
            version = _version(about["version"])
            with socket.create_connection(("127.0.0.1", about["port"]), timeout=10) as conn:
                conn.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n")
                answer = b""
                while not answer.endswith(b"\r\n\r\nok"):
                    chunk = conn.recv(4096)
                    assert chunk, f"closed before the answer: {answer!r}"
                    answer += chunk
                idle = time.monotonic()
                while conn.recv(4096):  # nothing more comes until the server closes the idle socket
                    pass
                closed_after = time.monotonic() - idle
        finally:
            server.kill()
    timeout = KEEPALIVE_MS / 1000
    if buffer_since(version):
        assert 1.0 + timeout - 0.05 <= closed_after < 1.0 + timeout + 2.0, (about["version"], closed_after)
    else:
        assert timeout - 0.05 <= closed_after < timeout + 0.9, (about["version"], closed_after)
    assert (about["buffer"] == 1000) == setting_since(version), about
    if not setting_since(version):
        assert about["buffer"] is None
