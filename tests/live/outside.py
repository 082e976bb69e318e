"""Driving the services as a hostile user would: the commands in a process of their own, raw HTTP.

:func:`serving` starts ``python -m bulkhead_lab serve-pools`` or ``serve-orders`` on free
ports, asserts each listens on 127.0.0.1 alone, yields their URLs by name, and stops them with
Ctrl-C (SIGINT); leaving, it asserts
the command exited 0 having written nothing to stderr (no traceback for anything a client
sent), or, with ``log=True``, no traceback: its stderr is then the services' log, one
line per request aiohttp refused, read as it comes (:attr:`Served.log`). :func:`http`
sends one request with :mod:`http.client` and exactly the headers given (a foreign
``Host`` or ``Origin`` included) and returns ``(status, body)``.
"""

from __future__ import annotations

import json
import re
import select
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.client import HTTPConnection, HTTPResponse
from typing import Any

from loopback import listening_addresses

SERVICE_NAMES = r"(Payment|Inventory|Order Service|loan|notification|catalog)"


@dataclass
class Served:
    """A running command: its URLs and ports by service name, and its process."""

    proc: subprocess.Popen[str]
    urls: dict[str, str] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)  # its stderr so far, line by line

    def port(self, name: str) -> int:
        return int(self.urls[name].rsplit(":", 1)[1])


@contextmanager
def serving(
    command: str, *args: str, log: bool = False, stop: int = signal.SIGINT, free_ports: bool = True
) -> Iterator[Served]:
    """Run a serve command on free ports (or, ``free_ports=False``, its lesson's own) until the block ends,
    then ``stop`` it; its stderr must stay empty (``log=True``: hold no traceback; the test reads it,
    :attr:`Served.log`)."""
    ready_lines = {"serve-pools": 1, "serve-orders": 4}[command]
    ports = (
        {
            "serve-pools": ["--port", "0", "--notification-port", "0", "--catalog-port", "0"],
            "serve-orders": ["--port", "0", "--payment-port", "0", "--inventory-port", "0"],
        }[command]
        if free_ports
        else []
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "bulkhead_lab", command, *ports, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    served = Served(proc)
    reader = threading.Thread(target=_collect, args=(proc, served.log), daemon=True)
    reader.start()
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready, f"{command} printed nothing within 30 s"
        for _ in range(ready_lines):  # printed together, once every port is bound
            line = proc.stdout.readline()  # type: ignore[union-attr]
            if not line:
                proc.wait(timeout=20)
                reader.join(timeout=20)
                raise AssertionError(f"{command} ended: {''.join(served.log)}")
            for match in re.finditer(SERVICE_NAMES + r"(?: on)? (http://127\.0\.0\.1:\d+)", line):
                served.urls[match.group(1)] = match.group(2)
        for name in served.urls:
            assert listening_addresses(served.port(name)) == {"127.0.0.1"}, name
        yield served
        proc.send_signal(stop)
        proc.wait(timeout=20)
        reader.join(timeout=20)
        out = proc.stdout.read()  # type: ignore[union-attr]
        err = "".join(served.log)
        if log:
            assert "Traceback" not in err, f"{command} wrote a traceback:\n{err}"
        else:
            assert err == "", f"{command} wrote to stderr:\n{err}"
        assert proc.returncode == 0 and out.strip().endswith(f"{command}: stopped")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(timeout=20)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def refused_by(command: str, *args: str) -> str:
    """Run a serve command that must refuse its arguments at once: exit 2, nothing on stdout; its one
    line on stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "bulkhead_lab", command, *args], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2 and done.stdout == "", done
    assert done.stderr.count("\n") == 1, done.stderr
    return done.stderr.rstrip("\n")


def _collect(proc: subprocess.Popen[str], lines: list[str]) -> None:
    """Read ``proc``'s stderr into ``lines`` until it closes (a thread: the test polls the list)."""
    assert proc.stderr is not None
    for line in proc.stderr:
        lines.append(line)


def http(
    port: int,
    method: str,
    path: str,
    headers: dict[str, str] | None = None,
    timeout: float = 30.0,
) -> tuple[int, dict[str, Any]]:
    """One request to 127.0.0.1:port with exactly these headers (Host defaults to 127.0.0.1:port)."""
    conn = HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        sent = {"Host": f"127.0.0.1:{port}", "Content-Length": "0"} | (headers or {})
        conn.request(method, path, headers=sent)
        response = conn.getresponse()
        raw = response.read().decode()
    finally:
        conn.close()
    try:
        body = json.loads(raw)
    except ValueError:
        body = {"text": raw}
    return response.status, body


def one_line_error(body: dict[str, Any]) -> str:
    """The ``error`` of a JSON answer, asserted to be one line."""
    error = body.get("error")
    assert isinstance(error, str) and error and "\n" not in error, body
    return error


def open_request(port: int, method: str, path: str) -> socket.socket:
    """Send a request and leave its connection open, unanswered: a client that may give up."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\n\r\n".encode())
    return sock


def answer_of(sock: socket.socket, timeout: float = 30.0) -> tuple[int, dict[str, Any]]:
    """Read the answer to :func:`open_request` (status, JSON body); closes the socket."""
    sock.settimeout(timeout)
    response = HTTPResponse(sock)
    try:
        response.begin()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        response.close()
        sock.close()
