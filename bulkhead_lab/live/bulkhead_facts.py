"""What any bulkhead must do, checked by behaviour alone: the facts of cockatiel's own bulkhead tests.

cockatiel's ``src/BulkheadPolicy.test.ts`` (github.com/connor4312/cockatiel, commit
f475a690eedbb9dc7e495b6e4b0f42105c195ec3) runs functions through ``bulkhead(2)`` and
``bulkhead(2, 2)`` and asserts who entered and left when, what each call returned and which was
rejected; ``src/BulkheadPolicy.ts`` is the policy they pin. :func:`first_failed_fact` asserts the
same of a bulkhead with ``async execute(fn)``, at lesson 004's sizes (5 running, 5 waiting),
then at cockatiel's ``bulkhead(2)`` and ``bulkhead(1)``:

- the first ``limit`` calls run at once, and no more than ``limit`` ever run at once;
- the next ``queue`` calls wait (none refused), and the call past ``limit + queue`` is refused
  at once: any exception its ``execute`` raises before a place frees counts, whatever its type;
- waiting calls start first come, first served, one for each place freed;
- each call returns its function's result, and one whose function raised gives its place back.

It watches only its own calls (which function has entered and not left, which ``execute`` has
returned or raised), never the bulkhead's attributes. Every call is held by a gate the check
opens, so a right answer does not depend on timing; waits have bounds, so a wrong one is found
in well under a second. It answers the first fact that fails in one line, or None when all hold.
The course runs it on a learner's class (``fail_fast_queue.exercises.write_bulkhead``) and the
tests run it on :class:`~.bulkhead.Bulkhead` itself.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from typing import Any

Make = Callable[[int, int], Any]  # (limit, queue) -> a bulkhead
LIMIT, QUEUE = 5, 5  # lesson 004's bulkhead(5, 5)
WAIT = 0.5  # s: the longest the check waits for something that must happen
QUIET = 0.03  # s: how long it watches for something that must not happen


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th ... 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


class Result:
    """What call ``n``'s function returns: an object only that call's function can return."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __repr__(self) -> str:
        return f"the result of call {self.n}"


class Broken(Exception):
    """A fact failed; the message is the one line that says which."""


class Calls:
    """Calls through one bulkhead, each held inside its function until :meth:`open` lets it end."""

    def __init__(self, bulkhead: Any, limit: int) -> None:
        execute = getattr(bulkhead, "execute", None)
        if not callable(execute):
            raise Broken(f"{type(bulkhead).__name__} has no execute(fn) method.")
        self.execute, self.limit = execute, limit
        self.gates: list[asyncio.Event] = []
        self.tasks: list[asyncio.Task[Any]] = []
        self.entered: list[int] = []  # call numbers (from 1) in the order their functions began
        self.inside = self.peak = 0
        self.stopped: BaseException | None = None  # a deadline raised into a call (not an Exception)

    async def until(self, condition: Callable[[], bool], seconds: float = WAIT) -> bool:
        """Let the calls run until ``condition()`` holds (True) or ``seconds`` pass (False).

        A deadline raised into a call's code (a caller's, such as a check's trial) ends the check
        at once: the learner's code may not be watched past it.
        """
        end = time.monotonic() + seconds
        while not condition():
            if self.stopped is not None:
                raise self.stopped
            if time.monotonic() > end:
                return False
            await asyncio.sleep(0.001)
        if self.stopped is not None:
            raise self.stopped
        return True

    async def quiet(self) -> None:
        """Let the calls run a moment in which nothing is expected to happen."""
        await self.until(lambda: False, QUIET)

    def submit(self, raises: bool = False) -> int:
        """Start one more call (its function raises once let go when ``raises``); its number."""
        n = len(self.tasks) + 1
        gate = asyncio.Event()
        self.gates.append(gate)

        async def fn() -> Result:
            self.entered.append(n)
            self.inside += 1
            self.peak = max(self.peak, self.inside)
            try:
                await gate.wait()
            finally:
                self.inside -= 1
            if raises:
                raise LookupError(f"call {n}'s function failed")
            return Result(n)

        async def call() -> Any:
            awaitable = self.execute(fn)
            if not inspect.isawaitable(awaitable):
                raise Broken(f"execute(fn) returned {type(awaitable).__name__}, not something to await.")
            try:
                return await awaitable
            except (Exception, asyncio.CancelledError):
                raise
            except BaseException as stop:  # a deadline raised into the learner's code
                self.stopped = stop
                raise

        self.tasks.append(asyncio.ensure_future(call()))
        return n

    async def start(self, count: int = 1, raises: bool = False) -> list[int]:
        """Start ``count`` more calls, one at a time, each given its moment to enter, wait or be refused
        (one at a time: a call whose code never yields is stopped before the next is started)."""
        started = []
        for _ in range(count):
            n = self.submit(raises)
            await self.until(lambda: n in self.entered or self.task(n).done(), 0.002)  # noqa: B023
            started.append(n)
        return started

    def task(self, n: int) -> asyncio.Task[Any]:
        return self.tasks[n - 1]

    def refused(self, n: int) -> bool:
        """Call ``n``'s ``execute`` raised before its function began."""
        t = self.task(n)
        return t.done() and not t.cancelled() and t.exception() is not None and n not in self.entered

    def error(self, n: int) -> str:
        exc = self.task(n).exception()
        if isinstance(exc, Broken):
            raise exc
        text = str(exc).splitlines()[0] if str(exc) else ""
        return f"{type(exc).__name__}: {text}" if text else type(exc).__name__

    def over_limit(self) -> None:
        if self.peak > self.limit:
            raise Broken(f"{self.peak} calls ran at once; the limit was {self.limit}.")

    async def close(self) -> None:
        for gate in self.gates:
            gate.set()
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def _run_at_once(calls: Calls, limit: int) -> None:
    """The first ``limit`` calls all run."""
    await calls.start(limit)
    await calls.until(lambda: len(calls.entered) >= limit or any(t.done() for t in calls.tasks))
    for n in range(1, limit + 1):
        if calls.refused(n):
            raise Broken(
                f"the {ordinal(n)} call was refused ({calls.error(n)}) though a running place was free."
            )
        if calls.task(n).done() and n not in calls.entered:
            raise Broken(f"the {ordinal(n)} call returned without running its function.")
    if len(calls.entered) < limit:
        raise Broken(
            f"only {len(calls.entered)} of the first {limit} calls ran at once; the limit was {limit}."
        )


async def _queue_then_refuse(calls: Calls, limit: int, queue: int) -> None:
    """The next ``queue`` calls wait; the one after them is refused at once."""
    await calls.start(queue)
    await calls.quiet()
    calls.over_limit()
    for n in range(limit + 1, limit + queue + 1):
        if calls.refused(n):
            raise Broken(
                f"the {ordinal(n)} call was refused ({calls.error(n)}) though a waiting place was free."
            )
    [past] = await calls.start()
    await calls.until(lambda: calls.task(past).done() or past in calls.entered)
    calls.over_limit()
    if not calls.refused(past):
        raise Broken(f"the {ordinal(past)} call waited instead of being refused.")


async def _end_in_turn(calls: Calls, waiting: list[int]) -> None:
    """Let each running call end, oldest first: it returns its result, and the oldest waiter starts."""
    done: set[int] = set()
    while len(done) < len(calls.entered):
        n = next(k for k in calls.entered if k not in done)
        before = len(calls.entered)
        calls.gates[n - 1].set()
        if not await calls.until(calls.task(n).done):
            raise Broken(f"the {ordinal(n)} call's function ended, but execute never returned.")
        done.add(n)
        if calls.task(n).exception() is not None:
            raise Broken(f"the {ordinal(n)} call raised {calls.error(n)} instead of returning its result.")
        result = calls.task(n).result()
        if not (isinstance(result, Result) and result.n == n):
            raise Broken(f"the {ordinal(n)} call returned {result!r}, not its function's result.")
        if waiting:
            await calls.until(lambda: len(calls.entered) > before)  # noqa: B023 (awaited at once)
            calls.over_limit()
            if len(calls.entered) == before:
                raise Broken(f"the {ordinal(waiting[0])} call never started after the {ordinal(n)} ended.")
            started = calls.entered[before]
            if started != waiting[0]:
                raise Broken(
                    f"waiting calls started out of order: the {ordinal(started)} before the "
                    f"{ordinal(waiting[0])} (first come, first served)."
                )
            waiting.pop(0)


async def _raise_gives_back(make: Make) -> None:
    """Through bulkhead(1): a call whose function raises raises it, and the next call runs."""
    calls = Calls(make(1, 0), 1)
    try:
        [failing] = await calls.start(raises=True)
        await calls.until(lambda: failing in calls.entered or calls.task(failing).done())
        if calls.refused(failing):
            raise Broken(f"a call through an empty bulkhead(1, 0) was refused ({calls.error(failing)}).")
        calls.gates[0].set()
        if not await calls.until(calls.task(failing).done):
            raise Broken("a call whose function raised never returned.")
        if calls.task(failing).exception() is None:
            raise Broken("a call whose function raised returned instead of raising its error.")
        [nxt] = await calls.start()
        await calls.until(lambda: nxt in calls.entered or calls.task(nxt).done())
        if calls.refused(nxt):
            raise Broken("a call that raised kept its place: the next call was refused.")
        if nxt not in calls.entered:
            raise Broken("a call that raised kept its place: the next call waited.")
    finally:
        await calls.close()


async def first_failed_fact(make: Make) -> str | None:
    """The first of cockatiel's facts ``make(limit, queue)``'s bulkheads break, in one line; None if none.

    ``make`` builds the bulkhead under test (whatever it raises is the caller's to report).
    """
    try:
        for limit, queue in ((LIMIT, QUEUE), (2, 0)):
            calls = Calls(make(limit, queue), limit)
            try:
                await _run_at_once(calls, limit)
                await _queue_then_refuse(calls, limit, queue)
                await _end_in_turn(calls, list(range(limit + 1, limit + queue + 1)))
            finally:
                await calls.close()
        await _raise_gives_back(make)
    except Broken as broken:
        return str(broken)
    return None
