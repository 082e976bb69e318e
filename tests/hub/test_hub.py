"""A class on a real JupyterHub (issue 40): two learners' servers started through the Hub's REST API,
notebook 04 run in both at once, and its facts (every printed line nbval compares) equal in both and
to the notebook's stored ones.

The recipe of docs/teaching-a-class.md, on 127.0.0.1: jupyterhub from PyPI (the dev extra),
configurable-http-proxy from npm (installed under build/ on first use when it is not on PATH),
``LocalProcessSpawner`` running each server as its own OS user (root creates two), each learner's copy
of the course made by ``bulkhead-lab notebooks`` as that learner. It takes about a minute and a half on
two cores. Skipped, with the reason in one line, where it cannot run: not root on Linux, no jupyterhub,
no npm, or no Python the learners may execute.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
from hubclient import Hub, cpu_seconds, hub_config, processes_of, rss_mb
from os_users import REPO, learner_env, learners

pytestmark = pytest.mark.live

USERS = ("bhlab-hub-a", "bhlab-hub-b")
NOTEBOOK = "04_fail_fast_queue.ipynb"
PROXY_DIR = REPO / "build" / "hub-proxy"  # git-ignored; npm's copy of configurable-http-proxy
DEADLINE = 420.0  # s for the whole class: servers up, notebook 04 in both (about 90 s on two cores)


def _proxy() -> str:
    found = (
        shutil.which("configurable-http-proxy")
        or PROXY_DIR / "node_modules" / ".bin" / "configurable-http-proxy"
    )
    if Path(found).exists():
        return str(found)
    if shutil.which("npm") is None:
        pytest.skip(
            "no configurable-http-proxy and no npm to install it (npm install -g configurable-http-proxy)"
        )
    npm = [
        "npm",
        "install",
        "--no-audit",
        "--no-fund",
        "--prefix",
        str(PROXY_DIR),
        "configurable-http-proxy@4",
    ]
    done = subprocess.run(npm, capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or not Path(found).exists():
        why = (done.stderr.strip().splitlines() or ["?"])[-1]
        pytest.skip(f"npm could not install configurable-http-proxy: {why}")
    return str(found)


@pytest.fixture(scope="module")
def python() -> Iterator[str]:
    """The two learners (OS users with homes), and a Python both may run."""
    if importlib.util.find_spec("jupyterhub") is None:
        pytest.skip("jupyterhub is not installed (pip install -e '.[dev]')")
    with learners(USERS, "jupyterhub.singleuser, ipykernel, bulkhead_lab.live.orders.load") as exe:
        yield exe


def _cmd(python: str) -> list[str]:
    """The recipe's Spawner.cmd: each start gives the learner their copy of the course (never
    overwriting their work), then runs their server."""
    copy = f"{python} -m bulkhead_lab notebooks --from {REPO / 'notebooks'} >/dev/null"
    return ["bash", "-c", f'{copy} && exec {python} -m jupyterhub.singleuser "$@"', "jupyterhub-singleuser"]


def _checked_cells() -> tuple[list[str], list[str]]:
    """Notebook 04's code cells, and the text nbval compares for each: stdout and the result's text
    ("" where it ignores the cell's output)."""
    cells = [
        c
        for c in json.loads((REPO / "notebooks" / NOTEBOOK).read_text())["cells"]
        if c["cell_type"] == "code"
    ]
    code = ["".join(c["source"]) for c in cells]
    stored = [
        "" if "NBVAL_IGNORE_OUTPUT" in src else _text(c["outputs"])
        for src, c in zip(code, cells, strict=True)
    ]
    return code, stored


def _text(outputs: list[dict]) -> str:
    found = []
    for o in outputs:
        if o["output_type"] == "stream" and o["name"] == "stdout":
            found.append("".join(o["text"]))
        elif o["output_type"] == "execute_result":
            found.append("".join(o["data"].get("text/plain", "")))
    return "".join(found)


def test_two_learners_run_notebook_04_at_once_on_a_hub_and_get_its_facts(python: str) -> None:
    proxy = _proxy()
    code, stored = _checked_cells()
    with tempfile.TemporaryDirectory() as folder:
        config, port = hub_config(Path(folder), proxy, _cmd(python), learner_env(), USERS)
        (Path(folder) / "jupyterhub_config.py").write_text(config)
        log = open(Path(folder) / "hub.log", "w")  # noqa: SIM115 - closed below
        hub = subprocess.Popen(
            [sys.executable, "-m", "jupyterhub", "-f", "jupyterhub_config.py"],
            cwd=folder,
            stdout=log,
            stderr=log,
        )
        try:
            ran, memory = asyncio.run(_class(f"http://127.0.0.1:{port}", code))
        except BaseException:
            print((Path(folder) / "hub.log").read_text()[-4000:])
            raise
        finally:
            hub.terminate()
            hub.wait(timeout=60)
            log.close()
    print(f"per learner: {memory}")
    compared = [i for i, src in enumerate(code) if "NBVAL_IGNORE_OUTPUT" not in src and stored[i]]
    assert len(compared) >= 15  # the facts: counts, peaks, refusals, check.js's bounds, the claims
    for i in compared:
        assert ran[USERS[0]][i] == ran[USERS[1]][i] == stored[i], f"cell {i}: {code[i][:80]}"


async def _class(base: str, code: list[str]) -> tuple[dict[str, list[str]], str]:
    deadline = time.monotonic() + DEADLINE
    async with aiohttp.ClientSession() as session:
        hub = Hub(session, base)
        await hub.up(deadline)
        await asyncio.gather(*(hub.start_server(user, deadline) for user in USERS))
        uids = {user: pwd.getpwnam(user).pw_uid for user in USERS}
        idle = [rss_mb(list(processes_of(uid))) for uid in uids.values()]
        path = f"bulkhead-lab/{NOTEBOOK}"
        t0 = time.monotonic()
        ran = await asyncio.gather(*(hub.run_notebook(user, path, code, deadline) for user in USERS))
        wall = time.monotonic() - t0
        kernels = [[p for p, cmd in processes_of(uid).items() if "ipykernel" in cmd] for uid in uids.values()]
    memory = (
        f"idle server {max(idle):.0f} MB, kernel after notebook 04 {max(map(rss_mb, kernels)):.0f} MB; "
        f"notebook 04 took {wall:.0f} s, both at once, a kernel {max(map(cpu_seconds, kernels)):.1f} s of CPU"
    )
    return dict(zip(USERS, ran, strict=True)), memory
