"""A real JupyterHub for the class test: its config, its start, and a notebook run in a learner's server.

Nothing here imports the package: the hub runs in a process of its own (root), each learner's server
and kernel as that learner (``LocalProcessSpawner``), and the test talks to them over HTTP and the
kernel's websocket only, through the hub's proxy, with a service token, as a browser would.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp

TOKEN = uuid.uuid4().hex  # the test's service token: admin of users and servers, access to them


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def hub_config(
    folder: Path, proxy: str, cmd: list[str], env: dict[str, str], users: tuple[str, ...]
) -> tuple[str, int]:
    """A jupyterhub_config.py on 127.0.0.1 and its proxy's port: LocalProcessSpawner starting ``cmd`` as
    each learner, the test's service, these users."""
    ports = {"hub": free_port(), "proxy": free_port(), "api": free_port()}
    return (
        f"""
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {ports["proxy"]}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {ports["hub"]}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{ports["api"]}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.ConfigurableHTTPProxy.pid_file = {str(folder / "proxy.pid")!r}
c.JupyterHub.db_url = "sqlite:///{folder / "hub.sqlite"}"
c.JupyterHub.cookie_secret_file = {str(folder / "cookie_secret")!r}
c.JupyterHub.spawner_class = "localprocess"
c.JupyterHub.authenticator_class = "null"
c.Authenticator.allowed_users = {set(users)!r}
c.Spawner.cmd = {cmd!r}
c.Spawner.environment = {env!r}
c.Spawner.default_url = "/lab/tree/bulkhead-lab/00_start_here.md"
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
c.JupyterHub.services = [{{"name": "class-test", "api_token": {TOKEN!r}}}]
c.JupyterHub.load_roles = [{{
    "name": "class-test",
    "scopes": ["admin:users", "admin:servers", "access:servers", "read:users"],
    "services": ["class-test"],
}}]
""",
        ports["proxy"],
    )


class Hub:
    """The hub's REST API and its learners' servers, through the proxy at ``base``."""

    def __init__(self, session: aiohttp.ClientSession, base: str) -> None:
        self.session, self.base = session, base
        self.auth = {"Authorization": f"token {TOKEN}"}

    async def api(self, method: str, path: str, **kw: Any) -> Any:
        async with self.session.request(method, f"{self.base}/hub/api{path}", headers=self.auth, **kw) as r:
            text = await r.text()
            if r.status >= 400:
                raise AssertionError(f"{method} {path}: HTTP {r.status} {text}")
            return json.loads(text) if text else None

    async def up(self, deadline: float) -> None:
        while True:
            try:
                await self.api("GET", "/")
                return
            except (aiohttp.ClientError, AssertionError):
                if time.monotonic() > deadline:
                    raise AssertionError("the hub did not answer within its deadline") from None
                await asyncio.sleep(0.5)

    async def start_server(self, user: str, deadline: float) -> None:
        """Create ``user`` and start their server through the REST API; wait until it is ready."""
        async with self.session.post(f"{self.base}/hub/api/users/{user}", headers=self.auth) as r:
            assert r.status in (201, 409), await r.text()  # 409: allowed_users made it at the hub's start
        await self.api("POST", f"/users/{user}/server")
        while not (await self.api("GET", f"/users/{user}"))["servers"].get("", {}).get("ready"):
            if time.monotonic() > deadline:
                raise AssertionError(f"{user}'s server was not ready within its deadline")
            await asyncio.sleep(0.5)

    async def run_notebook(self, user: str, path: str, cells: list[str], deadline: float) -> list[str]:
        """Run ``cells`` in a kernel of ``user``'s server, in a session on ``path``; each cell's stdout."""
        server = f"{self.base}/user/{user}/api"
        body = {"path": path, "type": "notebook", "name": "", "kernel": {"name": "python3"}}
        async with self.session.post(f"{server}/sessions", json=body, headers=self.auth) as r:
            assert r.status == 201, await r.text()
            kernel = (await r.json())["kernel"]["id"]
        url = f"{server}/kernels/{kernel}/channels".replace("http", "ws", 1)
        outputs = []
        async with self.session.ws_connect(url, headers=self.auth, max_msg_size=0) as ws:
            for code in cells:
                outputs.append(await _execute(ws, code, deadline))
        return outputs


async def _execute(ws: aiohttp.ClientWebSocketResponse, code: str, deadline: float) -> str:
    """One execute_request; the cell's stdout and result text, or AssertionError with the error it raised."""
    msg_id = uuid.uuid4().hex
    await ws.send_json({
        "header": {"msg_id": msg_id, "username": "class-test", "session": "class-test",
                   "msg_type": "execute_request", "version": "5.3"},
        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
        "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                    "allow_stdin": False, "stop_on_error": True},
    })  # fmt: skip
    out, replied, idle = [], False, False
    while not (replied and idle):
        msg = await ws.receive_json(timeout=max(1.0, deadline - time.monotonic()))
        if msg.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream" and content["name"] == "stdout":
            out.append(content["text"])
        elif kind == "execute_result":  # a table's text, as nbval compares it
            out.append(content["data"].get("text/plain", ""))
        elif kind == "error":
            raise AssertionError(f"cell raised {content['ename']}: {content['evalue']}\n{code[:200]}")
        elif kind == "execute_reply":
            replied = True
        elif kind == "status" and content["execution_state"] == "idle":
            idle = True
    return "".join(out)


def rss_mb(pids: list[int]) -> float:
    """Resident memory of these processes, in MB (VmRSS from /proc)."""
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def cpu_seconds(pids: list[int]) -> float:
    """CPU time (user + system) these processes have used so far, in seconds (from /proc)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime: the 14th and 15th fields
    return total / os.sysconf("SC_CLK_TCK")


def processes_of(uid: int) -> dict[int, str]:
    """pid -> command line of every process ``uid`` runs."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
    return found
