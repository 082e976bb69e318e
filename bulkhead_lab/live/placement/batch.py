"""Lesson 003's scenario on real sockets: where the pool sits, and who pays for it.

Two dependencies on 127.0.0.1: notification (slow, 300 ms) and catalog (fast, 5 ms).
A batch sends ``calls`` concurrent calls to each, through :func:`~.pools.pools`'s
placement (a :data:`~.pools.Placement`), and reads back what each dependency saw: its
peak concurrency, and how many catalog calls finished before the first notification
answer (``catalogBefore``).

:func:`run_placement` starts both dependencies on free ports, runs one batch and
stops them; :func:`loan_app` is the lesson's loan service, answering ``GET /run`` with
one batch against dependencies already running (``python -m bulkhead_lab serve-pools``
serves it, see :mod:`.serve`).
:func:`outbound`, the batch's two call sites (the skipped one included), is written in notebook 03
(section 2) and exported here from its ``# @save`` cell.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web

from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.net.lag import LagWatch, watch_lag
from bulkhead_lab.live.net.server import (
    Progress,
    all_or_cancel,
    bad_request,
    check_fd_budget,
    check_planned,
    error_response,
)
from bulkhead_lab.live.placement.pools import (
    MAX_POOL_SLOTS,
    PLACEMENTS,
    SKIPPED,
    DependencyError,
    Placement,
    PoolTable,
    call,
    check_placement,
    pools,
)
from bulkhead_lab.validation import check_int, check_real, parse_int

CALLS = 40  # concurrent calls to each dependency in a batch, as in the lesson
MAX_CALLS = 1000
NOTIFICATION_LATENCY = 0.300  # seconds
CATALOG_LATENCY = 0.005
MAX_PLACEMENT_LATENCY = 10.0  # seconds, either dependency's; 1 slot x 40 calls x 10 s is already long
ROUNDING_MS = 500  # the protocol's duration is rounded to a multiple of this, like the lesson's
MAX_WAITING_RUNS = 2  # /run batches that may wait behind the running one; more are refused with 503
RUN_PARAMETERS = ("placement", "notif", "cat", "skip")


@dataclass
class PlacementResult:
    """One batch: the lesson's five fields plus what the plots need.

    ``notification`` and ``catalog`` are the peaks each dependency saw; ``duration_ms``
    is measured (not rounded); ``latencies_ms[name][j]`` is call ``j``'s time from
    the batch's start to its answer; ``timelines[name]`` is ``(seconds, open)``, for
    each dependency's ``name`` (notification, catalog).
    """

    placement: Placement
    notif: int
    cat: int
    skip: int
    n: int
    catalog_before: int
    notification: int
    catalog: int
    duration_ms: float
    notification_latency: float = NOTIFICATION_LATENCY
    catalog_latency: float = CATALOG_LATENCY
    latencies_ms: dict[str, list[float]] = field(default_factory=dict)
    timelines: dict[str, list[tuple[float, int]]] = field(default_factory=dict)
    lag: LagWatch | None = field(default=None, compare=False, repr=False)  # the batch's loop lag (net.lag)

    def protocol(self) -> dict[str, int]:
        """The loan service's JSON: ``{"n", "catalogBefore", "notification", "catalog", "duration"}``."""
        return {
            "n": self.n,
            "catalogBefore": self.catalog_before,
            "notification": self.notification,
            "catalog": self.catalog,
            "duration": rounded(self.duration_ms),
        }

    def ideal_ms(self) -> float:
        """The shortest this batch can take: ``ceil(calls / slots) x latency`` for the slower dependency."""
        return ideal_ms(
            self.placement,
            self.notif,
            self.cat,
            self.skip,
            self.n,
            self.notification_latency,
            self.catalog_latency,
        )


def rounded(duration_ms: float) -> int:
    """Round to 500 ms as the lesson's ``Math.round(ms / 500) * 500`` (halves go up)."""
    return int(math.floor(duration_ms / ROUNDING_MS + 0.5)) * ROUNDING_MS


def ideal_ms(
    placement: Placement,
    notif: int,
    cat: int,
    skip: int = 0,
    calls: int = CALLS,
    notification_latency: float = NOTIFICATION_LATENCY,
    catalog_latency: float = CATALOG_LATENCY,
) -> float:
    """``ceil(calls / slots) x latency``: pooled calls go in waves of ``slots``, skipped calls
    need no slot (one wave). Under one shared pool both dependencies' calls take their waves
    from the same ``notif + cat`` slots, so their times add; under a pool each, the slower one
    counts."""
    slow_ms, fast_ms = notification_latency * 1000, catalog_latency * 1000
    pooled = calls - skip
    skipped_ms = slow_ms if skip else 0.0
    if placement == "single":
        slots = notif + cat
        return max(math.ceil(pooled / slots) * slow_ms + math.ceil(calls / slots) * fast_ms, skipped_ms)
    return max(math.ceil(pooled / notif) * slow_ms, math.ceil(calls / cat) * fast_ms, skipped_ms)


def batch_sockets(placement: Placement, notif: int, cat: int, skip: int, calls: int) -> int:
    """File descriptors a batch holds at once: both ends of every connection it may open."""
    pooled = calls - skip
    if placement == "single":
        connections = min(notif + cat, pooled + calls)
    else:
        connections = min(notif, pooled) + min(cat, calls)
    return 2 * (connections + skip) + 2  # client and server end of each, and two listening sockets


# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/03_pool_placement.ipynb, section 2. Where the pool sits in the code
def outbound(
    notification: Dependency, catalog: Dependency, pool_for: PoolTable, j: int, skip: int
) -> tuple[Coroutine[Any, Any, float], Coroutine[Any, Any, float]]:
    """Call site ``j`` of each stream, each given the pool ``pool_for`` hands it; the first ``skip``
    notification call sites pass ``SKIPPED`` instead (the lesson's ``agent: false``: no pool at all)."""
    return (
        call(notification.port, "/send", SKIPPED if j < skip else pool_for(notification.port)),
        call(catalog.port, "/book", pool_for(catalog.port)),
    )


# <<< saved cells


async def run_batch(
    notification: Dependency,
    catalog: Dependency,
    placement: Placement = "separate",
    notif: int = 4,
    cat: int = 4,
    skip: int = 0,
    calls: int = CALLS,
    on_progress: Progress | None = None,
) -> PlacementResult:
    """Send ``calls`` concurrent calls to each running dependency and read their peaks (values checked
    already: :func:`run_placement`, :func:`parse_run_query`).

    The first ``skip`` notification call sites use no pool. A dependency that fails
    mid-batch raises :class:`~.pools.DependencyError`; every other call is cancelled
    and every pool closed before it propagates.
    """
    tally = _Tally(calls, on_progress)
    async with pools(placement, notif, cat, notification.port, catalog.port) as pool_for:
        for dep in (notification, catalog):
            dep.reset_counts()
        t0 = time.monotonic()
        sites = [outbound(notification, catalog, pool_for, j, skip) for j in range(calls)]
        async with watch_lag() as lag:  # a starved machine, if a fact comes out NO (net.lag)
            await all_or_cancel(
                [tally.notification(j, slow) for j, (slow, _) in enumerate(sites)]
                + [tally.catalog(j, fast) for j, (_, fast) in enumerate(sites)]
            )
        duration_ms = (time.monotonic() - t0) * 1000
    return PlacementResult(
        placement=placement,
        notif=notif,
        cat=cat,
        skip=skip,
        n=calls,
        catalog_before=tally.before,
        notification=notification.peak,
        catalog=catalog.peak,
        duration_ms=duration_ms,
        notification_latency=notification.routes[0].latency,
        catalog_latency=catalog.routes[0].latency,
        latencies_ms=tally.latencies,
        timelines={"notification": list(notification.timeline), "catalog": list(catalog.timeline)},
        lag=lag,
    )


class _Tally:
    """A batch's answers as they come: each call's time, and how many catalog calls were back before
    the first notification answer (``before``; -1 until that answer)."""

    def __init__(self, calls: int, on_progress: Progress | None) -> None:
        self.calls = calls
        self.on_progress = on_progress
        self.latencies: dict[str, list[float]] = {"notification": [0.0] * calls, "catalog": [0.0] * calls}
        self.catalog_done = 0
        self.finished = 0
        self.before = -1

    def _answered(self, name: Literal["notification", "catalog"], j: int, seconds: float) -> None:
        self.latencies[name][j] = seconds * 1000
        self.finished += 1
        if self.on_progress is not None:
            self.on_progress(self.finished, 2 * self.calls)

    def notification(self, j: int, pending: Coroutine[Any, Any, float]) -> asyncio.Task[None]:
        async def answered() -> None:
            self._answered("notification", j, await pending)
            if self.before < 0:
                self.before = self.catalog_done

        return _task(answered(), pending)

    def catalog(self, j: int, pending: Coroutine[Any, Any, float]) -> asyncio.Task[None]:
        async def answered() -> None:
            self._answered("catalog", j, await pending)
            self.catalog_done += 1

        return _task(answered(), pending)


def _task(answered: Coroutine[Any, Any, None], pending: Coroutine[Any, Any, float]) -> asyncio.Task[None]:
    """``answered`` as a task; a call cancelled before it began is closed (never left unawaited)."""
    task = asyncio.ensure_future(answered)
    task.add_done_callback(lambda _: pending.close())
    return task


async def run_placement(
    placement: Placement = "separate",
    notif: int = 4,
    cat: int = 4,
    skip: int = 0,
    calls: int = CALLS,
    *,
    notification_latency: float = NOTIFICATION_LATENCY,
    catalog_latency: float = CATALOG_LATENCY,
    on_progress: Progress | None = None,
    allow_long: bool = False,
) -> PlacementResult:
    """Start notification and catalog on free 127.0.0.1 ports, run one batch, stop both.

    Nothing stays listening afterwards, whether the batch ends, fails or is cancelled.
    Every value is checked before anything starts; a batch planned to take over two
    minutes (:func:`ideal_ms`) needs ``allow_long=True``, and one that needs more sockets
    than ``ulimit -n`` allows is refused with one line saying how to raise it.
    """
    placement, notif, cat = check_placement(placement, notif, cat)
    calls = check_int("calls", calls, 1, MAX_CALLS)
    skip = check_int("skip", skip, 0, calls)
    check_real("notification_latency", notification_latency, 0.0, MAX_PLACEMENT_LATENCY)
    check_real("catalog_latency", catalog_latency, 0.0, MAX_PLACEMENT_LATENCY)
    planned = ideal_ms(placement, notif, cat, skip, calls, notification_latency, catalog_latency) / 1000
    how = (
        f"ceil(calls / slots) x latency: {calls} calls to each, notif {notif} and cat {cat} slots, "
        f"{notification_latency:g} s and {catalog_latency:g} s"
    )
    check_planned(planned, how, allow_long)
    check_fd_budget(
        f"a batch of {calls} calls to each dependency", batch_sockets(placement, notif, cat, skip, calls)
    )
    async with (
        Dependency("notification", notification_latency, timeline=True) as notification,
        Dependency("catalog", catalog_latency, timeline=True) as catalog,
    ):
        return await run_batch(notification, catalog, placement, notif, cat, skip, calls, on_progress)


# -- the loan service: the lesson's GET /run, one batch per request -------------------------


def parse_run_query(query: dict[str, str]) -> tuple[Placement, int, int, int]:
    """``placement``, ``notif``, ``cat``, ``skip`` from ``/run``'s query; one-line ValueError if bad.

    Digits are ASCII digits (:func:`~bulkhead_lab.validation.parse_int`, the rule of every
    route); a missing parameter is named as missing, an unknown one (a typo) is refused.
    """
    unknown = sorted(set(query) - set(RUN_PARAMETERS))
    if unknown:
        raise ValueError(f"{unknown[0]} is not a parameter of /run: it takes {', '.join(RUN_PARAMETERS)}")
    placement = query.get("placement")
    if placement is None:
        raise ValueError(f"placement is missing: it must be one of {', '.join(PLACEMENTS)}")
    notif = parse_int("notif", query.get("notif"), 1, MAX_POOL_SLOTS)
    cat = parse_int("cat", query.get("cat"), 1, MAX_POOL_SLOTS)
    placement, notif, cat = check_placement(placement, notif, cat)
    skip = query.get("skip")
    return placement, notif, cat, 0 if skip is None else parse_int("skip", skip, 0, CALLS)


def loan_app(notification: Dependency, catalog: Dependency) -> web.Application:
    """The loan service: ``GET /run?placement=&notif=&cat=&skip=`` runs one batch, one at a time;
    ``GET /admin/runs`` says how many are running and waiting.

    At most :data:`MAX_WAITING_RUNS` batches wait behind the running one; more are HTTP 503
    at once. A batch whose client disconnects is cancelled (waiting or running), so batches
    nobody waits for any more never delay the next client.
    """
    lock = asyncio.Lock()
    waiting = 0

    async def run(request: web.Request) -> web.Response:
        nonlocal waiting
        try:
            placement, notif, cat, skip = parse_run_query(dict(request.query))
        except ValueError as exc:
            return bad_request(str(exc))
        if lock.locked() and waiting >= MAX_WAITING_RUNS:
            return error_response(
                503, f"busy, try again: one batch is running and {waiting} are waiting, the most /run queues"
            )
        waiting += 1
        try:
            await lock.acquire()  # batches share the dependencies' counters
        finally:
            waiting -= 1
        try:
            result = await run_batch(notification, catalog, placement, notif, cat, skip)
        except DependencyError as exc:
            return error_response(502, str(exc))
        finally:
            lock.release()
        return web.Response(text=json.dumps(result.protocol()), content_type="application/json")

    async def runs(request: web.Request) -> web.Response:
        return web.json_response(
            {"running": int(lock.locked()), "waiting": waiting, "most_waiting": MAX_WAITING_RUNS}
        )

    app = web.Application()
    app.router.add_get("/run", run)
    app.router.add_get("/admin/runs", runs)
    return app
