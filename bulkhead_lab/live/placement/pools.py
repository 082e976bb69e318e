"""Caller pools: where a call gets its connection, and how many there are.

aiohttp's :class:`~aiohttp.ClientSession` over a ``TCPConnector(limit=n)`` is the
analogue of Node's ``new Agent({ maxTotalSockets: n })``: at most ``n`` requests hold a
connection at once, the rest wait for one. Lesson 003's point is that *where* the
pools are defined is one small block, chosen in one place (:func:`pools`), and a call
site only names which pool it uses. Passing :data:`SKIPPED` instead of a pool is the
lesson's ``agent: false``: the call opens its own connection and no limit applies.

:func:`pool` and :func:`pools` are written in notebook 03 (section 2) and exported here from its
``# @save`` cell; every live batch runs them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import Literal, get_args

import aiohttp

from bulkhead_lab.live.net.key import key_headers
from bulkhead_lab.live.net.server import LOOPBACK
from bulkhead_lab.validation import check_choice, check_int

#: Where lesson 003's pools sit: one shared by both dependencies, or one each.
Placement = Literal["single", "separate"]
PLACEMENTS: tuple[Placement, ...] = get_args(Placement)
MAX_POOL_SLOTS = 1000  # connections per pool (or bulkhead places); more is no longer a limit worth the name
SKIPPED = None  # a call site that uses no pool at all: its own connection, like Node's `agent: false`
NO_TIMEOUT = aiohttp.ClientTimeout(total=None)  # a call waits for its slot as long as Node's would


class DependencyError(RuntimeError):
    """A call to a dependency failed (refused, cut off, or not 2xx); the message is one line."""


class PoolTable:
    """What :func:`pools` returns: ``pool_for(port)`` gives the pool for that dependency.

    It owns its sessions; close it (``async with``) so no connection outlives the run.
    """

    def __init__(
        self, lookup: Callable[[int], aiohttp.ClientSession], owned: Iterable[aiohttp.ClientSession]
    ):
        self._lookup = lookup
        self.owned = tuple(owned)

    def __call__(self, port: int) -> aiohttp.ClientSession:
        return self._lookup(port)

    def limits(self) -> list[int]:
        """The connection limit of every pool in the table."""
        return [s.connector.limit for s in self.owned if s.connector is not None]

    async def close(self) -> None:
        for session in self.owned:
            await session.close()

    async def __aenter__(self) -> PoolTable:
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()


def check_placement(placement: object, notif: object, cat: object) -> tuple[Placement, int, int]:
    """Refuse an unknown placement or a pool size outside 1..1000 with one line.

    Under ``single`` the one pool has ``notif + cat`` connections, so their sum is bounded
    too, and the message names both (not the pool's ``limit``, which the caller never typed).
    """
    p = check_choice("placement", placement, PLACEMENTS)
    n = check_int("notif", notif, 1, MAX_POOL_SLOTS)
    c = check_int("cat", cat, 1, MAX_POOL_SLOTS)
    if p == "single" and n + c > MAX_POOL_SLOTS:
        raise ValueError(
            f"notif + cat must be at most {MAX_POOL_SLOTS} under placement single, one pool of both "
            f"(got {n} + {c} = {n + c})"
        )
    return p, n, c


# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/03_pool_placement.ipynb, section 2. Where the pool sits in the code
def pool(limit: int) -> aiohttp.ClientSession:
    """A pool of at most ``limit`` connections in use at once (Node's ``maxTotalSockets``)."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=limit), timeout=NO_TIMEOUT)


def pools(placement: Placement, notif: int, cat: int, notification: int, catalog: int) -> PoolTable:
    """Lesson 003's pool definition: one shared pool of ``notif + cat`` connections, or a
    pool each (``notif`` for the ``notification`` port, ``cat`` for ``catalog``)."""
    # >>> pool definition: two placements, same total slots
    if placement == "single":
        a = pool(notif + cat)
        return PoolTable(lambda port: a, [a])
    t = {notification: pool(notif), catalog: pool(cat)}
    return PoolTable(t.__getitem__, t.values())
    # <<<


# <<< saved cells


async def call(port: int, path: str, via: aiohttp.ClientSession | None) -> float:
    """GET ``http://127.0.0.1:port/path`` through the pool ``via`` and read the whole answer.

    ``via`` :data:`SKIPPED` (None) opens a connection of its own outside every pool.
    Returns the seconds the call took, waiting for a slot included. A refused,
    cut-off or non-2xx call raises :class:`DependencyError` with one line.
    """
    url = f"http://{LOOPBACK}:{port}{path}"
    t0 = time.monotonic()
    try:
        if via is SKIPPED:
            connector = aiohttp.TCPConnector(limit=0, force_close=True)
            async with aiohttp.ClientSession(connector=connector, timeout=NO_TIMEOUT) as own:
                await _get(own, url)
        else:
            await _get(via, url)
    except aiohttp.ClientError as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DependencyError(f"GET {url} failed: {reason}") from exc
    return time.monotonic() - t0


async def _get(session: aiohttp.ClientSession, url: str) -> None:
    async with session.get(url, headers=key_headers(url)) as response:
        await response.read()
        if response.status >= 400:
            raise DependencyError(f"GET {url} answered HTTP {response.status}")
