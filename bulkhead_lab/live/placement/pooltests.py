"""Lesson 003's three pool tests (``test/pool.test.mjs``), run against the live loan service.

As in the lesson, every assertion is about what a dependency counted, read from the loan
service's ``GET /run`` answer (``catalogBefore``, ``notification``, ``catalog``): "a pool
test can only be written by counting how many connections the other side sees". Here the
seven ``/run`` batches run at the same time, each on a loan service and two dependencies of
its own on free 127.0.0.1 ports (:func:`pool_test_sends`); the one whose ``catalogBefore`` must be
40 runs alone until its first notification answer (:data:`TIMED`). The result prints the lesson's TAP lines
(:meth:`PoolTestRun.tap`): ``ok 1 - ...`` through ``# fail 0``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import parse_qsl

import aiohttp

from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.net.key import key_headers
from bulkhead_lab.live.net.lag import LagWatch
from bulkhead_lab.live.net.server import LoopbackServer, Progress
from bulkhead_lab.live.net.side_by_side import Experiment
from bulkhead_lab.live.placement.batch import (
    CALLS,
    CATALOG_LATENCY,
    NOTIFICATION_LATENCY,
    ideal_ms,
    loan_app,
    parse_run_query,
)

Run = Callable[[str], Awaitable[dict]]  # GET /run?<query> -> its JSON

#: Each test's ``/run`` queries, in the order pool.test.mjs sends them.
QUERIES: tuple[tuple[str, ...], ...] = (
    ("placement=single&notif=4&cat=4&skip=0", "placement=separate&notif=4&cat=4&skip=0"),
    ("placement=separate&notif=4&cat=4&skip=0", "placement=separate&notif=4&cat=4&skip=8"),
    tuple(f"placement=separate&notif={n}&cat=4&skip=0" for n in (1, 4, 40)),
)
RUNS = sum(len(q) for q in QUERIES)  # seven /run batches in all
#: pool.test.mjs's three test names, in order (lesson 003, Testability).
TEST_NAMES = (
    "pool per dependency saves the neighboring stream",
    "a skipped call site exceeds the pool limit",
    "the pool limit binds only its own dependency",
)
#: The sends (test, send) whose assertion is ``catalogBefore`` 40, a race against the clock (forty
#: 5-ms calls before the first 300-ms answer): each runs alone until that answer.
TIMED = frozenset({(0, 1)})


class AssertionFailed(AssertionError):
    """An ``assert.equal`` that did not hold; the message names the query, the field and both values."""


async def _equal(run: Run, query: str, key: str, expected: int) -> None:
    got = (await run(query))[key]
    if got != expected:
        raise AssertionFailed(f"/run?{query} answered {key} {got}, expected {expected}")


async def neighbour_saved(run: Run) -> None:
    """pool per dependency saves the neighboring stream."""
    single, separate = QUERIES[0]
    await _equal(run, single, "catalogBefore", 0)
    await _equal(run, separate, "catalogBefore", CALLS)


async def skipped_exceeds(run: Run) -> None:
    """a skipped call site exceeds the pool limit."""
    separate, skipped = QUERIES[1]
    await _equal(run, separate, "notification", 4)
    await _equal(run, skipped, "notification", 12)  # 4 + 8


async def binds_its_own(run: Run) -> None:
    """the pool limit binds only its own dependency."""
    for query in QUERIES[2]:
        await _equal(run, query, "catalog", 4)


TESTS = (neighbour_saved, skipped_exceeds, binds_its_own)


@dataclass
class PoolTestRun:
    """The three tests' outcomes: ``failures[i]`` is test ``i + 1``'s failed assertion, or None."""

    failures: list[str | None] = field(default_factory=list)
    lag: LagWatch | None = field(default=None, compare=False, repr=False)  # its batches' loop lag (net.lag)

    @property
    def passed(self) -> int:
        return sum(f is None for f in self.failures)

    def tap(self) -> str:
        """The lines the lesson greps from node's TAP reporter: ``ok``/``not ok`` and the three counts."""
        lines = []
        for i, (name, failure) in enumerate(zip(TEST_NAMES, self.failures, strict=True), start=1):
            lines.append(f"ok {i} - {name}" if failure is None else f"not ok {i} - {name}\n#   {failure}")
        lines += [
            f"# tests {len(self.failures)}",
            f"# pass {self.passed}",
            f"# fail {len(self.failures) - self.passed}",
        ]
        return "\n".join(lines)


class _Answered:
    """Counts the calls the dependencies answered (each fall of a dependency's ``open``), over every
    loan service's dependencies at once, for a progress bar."""

    def __init__(self, on_progress: Progress | None, total: int) -> None:
        self.on_progress = on_progress
        self.total = total
        self.answered = 0
        self._open: dict[int, int] = {}

    def __call__(self, dep: Dependency) -> None:
        if dep.open < self._open.get(id(dep), 0):
            self.answered += 1
            if self.on_progress is not None:
                self.on_progress(min(self.answered, self.total), self.total)
        self._open[id(dep)] = dep.open


Reply = tuple[int, str]  # one /run answer: HTTP status and body


async def _one_run(query: str, answered: _Answered, settled: asyncio.Event | None = None) -> Reply:
    """``GET /run?<query>`` once, on a loan service and two dependencies of its own, then stop all
    three; ``settled`` is set at notification's first answer."""
    opened = 0

    def on_notification(dep: Dependency) -> None:
        nonlocal opened
        if settled is not None and dep.open < opened:
            settled.set()
        opened = dep.open
        answered(dep)

    async with (
        Dependency("notification", NOTIFICATION_LATENCY, on_change=on_notification) as notification,
        Dependency("catalog", CATALOG_LATENCY, on_change=answered) as catalog,
        LoopbackServer(loan_app(notification, catalog), name="loan port", service="loan service") as loan,
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None)) as session,
        session.get(f"{loan.url}/run?{query}", headers=key_headers(loan.url)) as response,
    ):
        return response.status, await response.text()


def _replayed(query_replies: list[tuple[str, Reply]]) -> Run:
    """A test's ``run``: its sends' answers, in the order it sends them."""
    pending = list(query_replies)

    async def run(query: str) -> dict:
        sent, (status, body) = pending.pop(0)
        if sent != query:
            raise AssertionFailed(f"/run?{query} was sent where the test's order has /run?{sent}")
        if status != 200:
            raise AssertionFailed(f"/run?{query} answered HTTP {status}: {body.strip()}")
        return json.loads(body)

    return run


def planned_seconds(query: str) -> float:
    """The shortest a ``/run?<query>`` batch can take (:func:`~.batch.ideal_ms`)."""
    return ideal_ms(*parse_run_query(dict(parse_qsl(query)))) / 1000


def pool_test_sends(on_progress: Progress | None = None) -> list[Experiment[Reply]]:
    """The three tests' seven ``/run`` batches, in the order pool.test.mjs sends them, each to be
    run on a loan service of its own (the :data:`TIMED` ones alone until notification's first
    answer); ``on_progress(answered, total)`` counts all seven's calls."""
    answered = _Answered(on_progress, RUNS * 2 * CALLS)
    sends = []
    for t, queries in enumerate(QUERIES):
        for k, q in enumerate(queries):
            settled = asyncio.Event() if (t, k) in TIMED else None
            run = _one_run(q, answered, settled)
            seconds = planned_seconds(q)
            sends.append(Experiment(run, seconds, settled is not None, settled))
    return sends


async def judge(replies: Sequence[Reply]) -> PoolTestRun:
    """Each test's assertions on its sends' answers (``replies``: the seven, in the order sent).

    A test stops at its first failed assertion, as node's ``assert`` does; the next test still runs.
    """
    answers = iter(replies)
    result = PoolTestRun()
    for test, queries in zip(TESTS, QUERIES, strict=True):
        run = _replayed([(q, next(answers)) for q in queries])
        try:
            await test(run)
        except AssertionFailed as failed:
            result.failures.append(str(failed))
        else:
            result.failures.append(None)
    return result
