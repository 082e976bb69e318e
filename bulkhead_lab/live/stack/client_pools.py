"""Your client already has a bulkhead: what size? 50 calls at once through real clients, counted live.

Each client runs with its **defaults** against a counting :class:`~bulkhead_lab.live.net.dependency.
Dependency` of its own (a slow one: 1 s), then **configured** as the course's bulkhead, a limit per
dependency. The defaults are read from the installed libraries themselves (:func:`defaults`), never
typed: aiohttp's ``TCPConnector`` (``limit`` 100, ``limit_per_host`` 0), httpx's ``Limits``
(``max_connections`` 100) and its pool timeout, requests / urllib3's ``HTTPAdapter`` (``pool_maxsize``
10, ``pool_block`` False: a pool that is full opens another connection anyway and throws it away
after, which urllib3 logs as "Connection pool is full, discarding connection"), and Node's
``http.globalAgent`` (``maxSockets`` Infinity) where ``node`` is installed.

Every client presents its run's key (:func:`~bulkhead_lab.live.net.key.key_headers`); Node gets it on
its standard input, never on its command line.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import logging
import shutil
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import aiohttp
import httpx
import requests
import requests.adapters

from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.net.key import key_headers
from bulkhead_lab.live.net.server import all_or_cancel

CALLS = 50  # calls sent at once through each client
LIMIT = 10  # the course's bulkhead: a limit per dependency
DEFAULT_LATENCY = 1.0  # seconds each call is held with the defaults: all 50 overlap even on a busy machine
LIMITED_LATENCY = 0.5  # seconds with a limit of 10: five waves, 2.5 s, inside httpx's 5 s pool timeout
#: What an httpx.AsyncClient uses when given no limits and no timeout (its signature's defaults).
HTTPX_LIMITS: httpx.Limits = inspect.signature(httpx.AsyncClient).parameters["limits"].default
HTTPX_TIMEOUT: httpx.Timeout = inspect.signature(httpx.AsyncClient).parameters["timeout"].default
HTTPX_MAX = HTTPX_LIMITS.max_connections
NODE_SECONDS = 30.0  # the most a node run may take before it is stopped


@dataclass(frozen=True)
class ClientRun:
    """One client's run: its name, the setting that bounds it and its value, the calls sent and answered,
    the most the dependency counted at once, connections urllib3 threw away, or why it did not run."""

    client: str
    setting: str
    value: str
    calls: int
    answered: int
    peak: int
    discarded: int = 0
    skipped: str | None = None

    @property
    def bound(self) -> bool:
        return self.skipped is None and self.peak < self.calls


def defaults() -> dict[str, str]:
    """Each client's pool default, read from the installed library (Node's from ``node`` itself)."""
    connector = inspect.signature(aiohttp.TCPConnector.__init__).parameters
    limits, timeout = HTTPX_LIMITS, httpx.Timeout(HTTPX_TIMEOUT)
    adapter = inspect.signature(requests.adapters.HTTPAdapter.__init__).parameters
    per_host, maxsize, block = (
        connector["limit_per_host"].default,
        adapter["pool_maxsize"].default,
        adapter["pool_block"].default,
    )
    return {
        "aiohttp": f"limit={connector['limit'].default}, limit_per_host={per_host}",
        "httpx": f"max_connections={limits.max_connections}, pool timeout {timeout.pool:g} s",
        "requests": f"pool_maxsize={maxsize}, pool_block={block}",
        "node": node_default(),
    }


def node_default() -> str:
    """``http.globalAgent.maxSockets`` of the installed node, or why there is none."""
    if shutil.which("node") is None:
        return "node is not installed here"
    import subprocess

    out = subprocess.run(
        ["node", "-e", "process.stdout.write(String(require('http').globalAgent.maxSockets))"],
        capture_output=True, text=True, timeout=NODE_SECONDS,
    )  # fmt: skip
    return f"maxSockets={out.stdout.strip() or '?'}"


async def _aiohttp(url: str, limit: int | None) -> int:
    connector = aiohttp.TCPConnector() if limit is None else aiohttp.TCPConnector(limit_per_host=limit)
    async with aiohttp.ClientSession(connector=connector, headers=key_headers(url)) as session:

        async def one() -> int:
            async with session.get(f"{url}/call") as r:
                await r.read()
                return r.status

        return sum(s == 200 for s in await all_or_cancel(one() for _ in range(CALLS)))


async def _httpx(url: str, limit: int | None) -> int:
    limits = HTTPX_LIMITS if limit is None else httpx.Limits(max_connections=limit)
    async with httpx.AsyncClient(limits=limits, headers=key_headers(url)) as client:

        async def one() -> int:
            return (await client.get(f"{url}/call")).status_code

        return sum(s == 200 for s in await all_or_cancel(one() for _ in range(CALLS)))


_RUNS = itertools.count()


class _Discarded(logging.Handler):
    """Counts urllib3's "Connection pool is full, discarding connection" (and keeps it off stderr)."""

    def __init__(self, threads: str) -> None:
        super().__init__(logging.WARNING)
        self.threads = threads  # the name prefix of this run's threads: two runs may log at once
        self.count = 0
        self.lock_ = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        if (record.threadName or "").startswith(
            self.threads
        ) and "discarding connection" in record.getMessage():
            with self.lock_:
                self.count += 1


def _requests_blocking(url: str, limit: int | None, block: bool) -> tuple[int, int]:
    """50 threads through one requests.Session: (answered, connections discarded)."""
    log = logging.getLogger("urllib3.connectionpool")
    threads = f"bulkhead-lab-requests-{next(_RUNS)}-"
    counter, propagate = _Discarded(threads), log.propagate
    log.addHandler(counter)
    log.propagate = False
    try:
        with requests.Session() as session:
            adapter = (
                requests.adapters.HTTPAdapter(pool_block=block)
                if limit is None
                else requests.adapters.HTTPAdapter(pool_maxsize=limit, pool_block=block)
            )
            session.mount("http://", adapter)
            headers = key_headers(url)
            with ThreadPoolExecutor(CALLS, thread_name_prefix=threads) as pool:
                codes = list(
                    pool.map(lambda _: session.get(f"{url}/call", headers=headers, timeout=30).status_code,
                             range(CALLS))
                )  # fmt: skip
        return sum(c == 200 for c in codes), counter.count
    finally:
        log.removeHandler(counter)
        log.propagate = propagate if not log.handlers else log.propagate


NODE_SCRIPT = r"""
const http = require('http');
let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const cfg = JSON.parse(input);
  const agent = cfg.maxSockets === null ? http.globalAgent : new http.Agent({ maxSockets: cfg.maxSockets });
  let ok = 0, done = 0;
  for (let i = 0; i < cfg.calls; i++) {
    http.get(cfg.url + '/call', { agent, headers: cfg.headers }, (res) => {
      res.resume();
      res.on('end', () => { if (res.statusCode === 200) ok++; if (++done === cfg.calls) finish(); });
    }).on('error', () => { if (++done === cfg.calls) finish(); });
  }
  function finish() { console.log(JSON.stringify({ ok })); agent.destroy(); }
});
"""


async def _node(url: str, limit: int | None) -> int:
    proc = await asyncio.create_subprocess_exec(
        "node", "-e", NODE_SCRIPT,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    sent = json.dumps({"url": url, "calls": CALLS, "maxSockets": limit, "headers": key_headers(url)})
    try:
        out, _ = await asyncio.wait_for(proc.communicate(sent.encode()), NODE_SECONDS)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    try:
        return int(json.loads(out.decode().strip().splitlines()[-1])["ok"])
    except (ValueError, IndexError, KeyError):
        return 0


Caller = Callable[[str, "int | None"], Awaitable[int]]


async def _counted(client: str, setting: str, value: str, call: Caller, limit: int | None) -> ClientRun:
    latency = DEFAULT_LATENCY if limit is None else LIMITED_LATENCY
    async with Dependency(f"{client} dependency", latency) as dep:
        answered = await call(dep.url, limit)
        return ClientRun(client, setting, value, CALLS, answered, dep.peak)


async def _requests(limit: int | None, block: bool) -> ClientRun:
    latency = DEFAULT_LATENCY if limit is None and not block else LIMITED_LATENCY
    name = "requests" if block is False else "requests, pool_block=True"
    async with Dependency(f"{name} dependency", latency) as dep:
        answered, discarded = await asyncio.to_thread(_requests_blocking, dep.url, limit, block)
        size = 10 if limit is None else limit
        return ClientRun(name, "pool_maxsize", str(size), CALLS, answered, dep.peak, discarded)


def _skipped(client: str, setting: str, why: str) -> Awaitable[ClientRun]:
    async def run() -> ClientRun:
        return ClientRun(client, setting, "-", CALLS, 0, 0, skipped=why)

    return run()


def runs(configured: bool) -> list[Awaitable[ClientRun]]:
    """The runs of one table: every client with its defaults, or each with a limit of :data:`LIMIT`."""
    limit = LIMIT if configured else None
    said = defaults()
    node = (
        _counted("node", "maxSockets", str(LIMIT) if configured else "Infinity", _node, limit)
        if shutil.which("node")
        else _skipped("node", "maxSockets", "node is not installed here")
    )
    return [
        _counted("aiohttp", "limit_per_host" if configured else "limit",
                 str(LIMIT) if configured else said["aiohttp"].split(",")[0].split("=")[1], _aiohttp, limit),
        _counted("httpx", "max_connections", str(LIMIT) if configured else str(HTTPX_MAX), _httpx, limit),
        _requests(limit, block=configured),
        *([] if configured else [_requests(None, block=True)]),
        node,
    ]  # fmt: skip


async def both_tables() -> tuple[list[ClientRun], list[ClientRun]]:
    """Every client with its defaults and configured, all at once (about 3 s): the two tables' rows."""
    defaults_runs, configured_runs = runs(False), runs(True)
    every = await all_or_cancel([*defaults_runs, *configured_runs])
    return every[: len(defaults_runs)], every[len(defaults_runs) :]
