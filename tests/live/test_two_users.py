"""Two learners on one machine (issue 40): learner B can neither read nor change learner A's live run.

Root creates two OS users, as a shared JupyterHub has one per learner. Learner A starts lesson 004's
services (Payment, Inventory, an Order Service with a bulkhead) through the Python API in a process of
its own and prints their URLs; learner B, in another process, tries every route of each with plain
:mod:`urllib` as the issue's attacker did (``GET /admin/stats``, ``POST /admin/slow?on=1&ms=2000``,
a reset, an order), with no key and with a guessed one, and tries to read A's process for the key.
Then A checks its services saw nothing, drives its run and prints its facts, which must equal those of
a run nobody touched. Skipped, with the reason, where it cannot run: not root, no ``useradd``, or no
Python that the new users may execute with this checkout's packages.
"""

from __future__ import annotations

import json
import select
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from os_users import as_user, learner_env, learners

pytestmark = pytest.mark.live

USERS = ("bhlab-learner-a", "bhlab-learner-b")
KEY_REFUSED = "X-Bulkhead-Lab-Key must be the key of the run that started this service"

LEARNER_A = """
import asyncio, json, os, sys
from bulkhead_lab.live.orders.reading import burst
from bulkhead_lab.live.orders.load import OrdersLoad, drive, order_services, run_orders
from bulkhead_lab.live.orders.service import OrderSettings

SETTINGS, LOAD = OrderSettings("limited"), OrdersLoad(slow_latency=1.0)


async def main():
    clean = await run_orders(SETTINGS, LOAD)  # a run nobody touched
    async with order_services(SETTINGS, LOAD) as (service, pay, inv):
        urls = {"order": service.url, "payment": pay.url, "inventory": inv.url}
        print(json.dumps({"urls": urls, "pid": os.getpid()}), flush=True)
        await asyncio.to_thread(sys.stdin.readline)  # learner B has tried everything
        seen = {"payment slow": pay.slow, "payment calls": pay.calls, "inventory calls": inv.calls,
                "received": service.service.received}
        run = await drive(service.url, pay.url, inv.url, LOAD, timeout=service.timeout)
        service.record(run)
    facts = {"clean": burst.facts(clean), "attacked": burst.facts(run), "seen": seen}
    print(json.dumps(facts), flush=True)

asyncio.run(main())
"""

LEARNER_B = """
import json, sys, urllib.error, urllib.request

target = json.loads(sys.argv[1])
ROUTES = [("GET", "/admin/stats"), ("POST", "/admin/slow?on=1&ms=2000"), ("POST", "/admin/reset"),
          ("GET", "/admin/bulkhead"), ("GET", "/admin/pools"), ("POST", "/order"), ("GET", "/stock"),
          ("POST", "/pay")]
tried = []
for url in target["urls"].values():
    for method, path in ROUTES:
        for key in (None, "guessed-" + "x" * 35):
            body = b"" if method == "POST" else None
            request = urllib.request.Request(url + path, method=method, data=body)
            if key is not None:
                request.add_header("X-Bulkhead-Lab-Key", key)
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    tried.append([url + path, answer.status, answer.read().decode()])
            except urllib.error.HTTPError as refused:
                tried.append([url + path, refused.code, refused.read().decode()])
read = {}
for name in ("environ", "mem"):
    try:
        with open(f"/proc/{target['pid']}/{name}", "rb") as f:
            f.read(1)
        read[name] = True
    except OSError:
        read[name] = False
print(json.dumps({"tried": tried, "read": read}))
"""


@pytest.fixture(scope="module")
def python() -> Iterator[str]:
    """The two learners (OS users), and a Python both may run."""
    with learners(USERS, "aiohttp, bulkhead_lab.live.orders.load") as exe:
        yield exe


def _script(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text)
    path.chmod(0o644)
    return str(path)


def test_learner_b_can_neither_read_nor_change_learner_as_run(python: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        Path(folder).chmod(0o755)
        a_script, b_script = (
            _script(Path(folder), n, t) for n, t in (("a.py", LEARNER_A), ("b.py", LEARNER_B))
        )
        a = subprocess.Popen(
            [python, a_script],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=learner_env(),
            **as_user(USERS[0]),
        )
        try:
            assert a.stdout is not None and a.stdin is not None
            ready, _, _ = select.select([a.stdout], [], [], 120)
            assert ready, "learner A's services did not start within 120 s"
            line = a.stdout.readline()
            assert line, f"learner A's run ended: {a.stderr.read() if a.stderr else ''}"
            b = subprocess.run(
                [python, "-I", b_script, line.strip()],
                capture_output=True,
                text=True,
                timeout=120,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                **as_user(USERS[1]),
            )
            assert b.returncode == 0, b.stderr
            a.stdin.write("tried\n")
            a.stdin.flush()
            out, err = a.communicate(timeout=180)
        finally:
            if a.poll() is None:
                a.kill()
                a.communicate()
    assert a.returncode == 0, err
    attempts, result = json.loads(b.stdout), json.loads(out)
    assert len(attempts["tried"]) == 3 * 8 * 2
    for url, status, body in attempts["tried"]:
        assert status == 403, (url, status, body)
        error = json.loads(body)["error"]
        assert error.startswith(KEY_REFUSED) and "\n" not in error, (url, error)
    assert attempts["read"] == {"environ": False, "mem": False}  # A's key stays in A's memory
    assert result["seen"] == {
        "payment slow": False,
        "payment calls": 0,
        "inventory calls": 0,
        "received": {"orders": 0, "stock_checks": 0},
    }
    assert result["attacked"] == result["clean"]
    assert "every stock check under 300 ms: True" in result["attacked"]
