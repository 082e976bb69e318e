"""A bulkhead: at most ``limit`` calls run, at most ``queue`` more wait, the rest are refused at once.

This is lesson 004's ``bulkhead(5, 5)`` (cockatiel's): a wall around one dependency that
limits how many calls to it may be in progress and how many may wait for a place. When
both are full, :class:`BulkheadRejectedError` is raised immediately, so the caller can
answer "busy, try again" in milliseconds instead of queueing without end.

:class:`Bulkhead` is written in notebook 04 (section 4) and exported here from its cell:
a running count, a first-in-first-out line of waiters, a refusal when both are full, the
place given back when a call ends or raises (or is cancelled while it waits).

:class:`InstrumentedBulkhead` extends it with what the Order Service and the figures need,
without changing how a place is taken or given back: sizes checked in one line, refusals
counted, ``stats()`` as ``GET /admin/bulkhead`` shows them, a limit
that may move while calls run (:meth:`~InstrumentedBulkhead.set_limit`, what an adaptive
limiter does; a lower one cuts nothing off), and with ``timeline=True`` a
:class:`BulkheadPoint` ``(t, running, queued, rejected, limit)`` at every change, ``t`` in
seconds since its creation or its last :meth:`~InstrumentedBulkhead.reset`.
:func:`instrumented` adds the same to a notebook's own (edited) copy of the cell's class, so
the Order Service runs the learner's bulkhead.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from bulkhead_lab.validation import check_int

T = TypeVar("T")


MAX_TIMELINE = 200_000  # points a timeline keeps; past that it stops growing (and says so)


# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/04_fail_fast_queue.ipynb, section 4. A bulkhead in code
class BulkheadRejectedError(Exception):
    """The bulkhead was full, running places and waiting places alike: the call never started."""


class Bulkhead:
    """At most `limit` calls run at once, at most `queue` more wait in line; the rest are refused."""

    def __init__(self, limit: int, queue: int = 0) -> None:
        self.limit = limit
        self.queue = queue
        self.running = 0  # calls holding a running place
        self.waiting: deque[asyncio.Future[None]] = deque()  # one future per waiting call, oldest first

    async def execute(self, fn: Callable[[], Awaitable[T]]) -> T:
        """Run ``await fn()`` in a place of the bulkhead and return its result."""
        await self.acquire()
        try:
            return await fn()
        finally:
            self.release()  # the call ended or raised: its place is free again

    async def acquire(self) -> None:
        if self.running < self.limit and not self.waiting:
            self.running += 1  # a free place, and nobody waiting before us
            return
        if len(self.waiting) >= self.queue:
            raise BulkheadRejectedError(
                f"bulkhead full: {self.running}/{self.limit} running, {len(self.waiting)}/{self.queue} queued"
            )
        place = asyncio.get_running_loop().create_future()
        self.waiting.append(place)  # wait in line until release() hands us a place
        try:
            await place
        except asyncio.CancelledError:  # the caller gave up while waiting
            if place.done() and not place.cancelled():
                self.release()  # a place was handed to us just as we left: pass it on
            elif place in self.waiting:
                self.waiting.remove(place)
            raise

    def release(self) -> None:
        self.running -= 1
        self.admit()

    def admit(self) -> None:
        """Hand free running places to the waiting calls, oldest first."""
        while self.waiting and self.running < self.limit:
            place = self.waiting.popleft()  # first in, first out
            if not place.done():  # a call cancelled while waiting has left
                self.running += 1
                place.set_result(None)


# <<< saved cells


class BulkheadError(Exception):
    """Base of the instrumented bulkhead's own errors: a refusal naming its sizes, a release too many."""


class BulkheadFullError(BulkheadRejectedError, BulkheadError):
    """A refusal that says the sizes it found: ``limit``, ``queue``, calls ``running`` and ``queued``."""

    def __init__(self, limit: int, queue: int, running: int, queued: int) -> None:
        self.limit, self.queue, self.running, self.queued = limit, queue, running, queued
        super().__init__(f"bulkhead full: {running}/{limit} running, {queued}/{queue} queued")


class BulkheadPoint(NamedTuple):
    """The bulkhead at one change: seconds since its t0, calls running and waiting, refusals so far, limit."""

    t: float
    running: int
    queued: int
    rejected: int
    limit: int


class _Line(deque):
    """A bulkhead's waiting line that says when a call joins it (the one change inside ``acquire``)."""

    def __init__(self, joined: Callable[[], None], items: deque) -> None:
        super().__init__(items)
        self._joined = joined

    def append(self, item: Any) -> None:
        super().append(item)
        self._joined()


if TYPE_CHECKING:  # the mixin goes in front of a bulkhead class
    _Base = Bulkhead
else:
    _Base = object


class Instruments(_Base):
    """Counters, a timeline and a movable limit for a bulkhead class with the cell's parts
    (``limit``, ``queue``, ``running``, ``waiting``, ``acquire``, ``release``, ``admit``); every
    method calls the cell's own and records what changed. Use it through :func:`instrumented`."""

    def __init__(self, limit: int, queue: int = 0, *, timeline: bool = False) -> None:
        super().__init__(check_int("limit", limit, 1), check_int("queue", queue, 0))
        if not isinstance(getattr(self, "waiting", None), deque) or not isinstance(
            getattr(self, "running", None), int
        ):
            raise ValueError(f"{type(self).__name__} must keep `running` (a count) and `waiting` (a deque)")
        self.rejected = 0
        self.record_timeline = bool(timeline)
        self.timeline: list[BulkheadPoint] = []
        self.truncated = False  # the timeline reached MAX_TIMELINE points and stopped growing
        self.t0 = time.monotonic()
        self.waiting = _Line(self._record, self.waiting)
        self._record(self.t0)

    @property
    def queued(self) -> int:
        """Calls waiting for a running place."""
        return len(self.waiting)

    @property
    def execution_slots(self) -> int:
        """Free running places (cockatiel's ``executionSlots``; 0 while a lowered limit is exceeded)."""
        return max(0, self.limit - self.running)

    @property
    def queue_slots(self) -> int:
        """Free waiting places (cockatiel's ``queueSlots``)."""
        return self.queue - self.queued

    def stats(self) -> dict[str, int]:
        """The numbers ``GET /admin/bulkhead`` shows, named as cockatiel names them, and the limit."""
        return {
            "running": self.running,
            "queued": self.queued,
            "executionSlots": self.execution_slots,
            "queueSlots": self.queue_slots,
            "rejected": self.rejected,
            "limit": self.limit,
        }

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(running {self.running}/{self.limit}, queued {self.queued}/{self.queue}, "
            f"rejected {self.rejected})"
        )

    def _record(self, now: float | None = None) -> None:
        if not self.record_timeline:
            return
        if len(self.timeline) >= MAX_TIMELINE:
            self.truncated = True
            return
        t = (time.monotonic() if now is None else now) - self.t0
        point = BulkheadPoint(t, self.running, self.queued, self.rejected, self.limit)
        if self.timeline and self.timeline[-1][1:] == point[1:]:
            return  # nothing the figures draw has changed
        self.timeline.append(point)

    def reset(self) -> None:
        """Refusals back to 0 and a new timeline from now (running and waiting calls are the caller's)."""
        self.rejected = 0
        self.t0 = time.monotonic()
        self.timeline = []
        self.truncated = False
        self._record(self.t0)

    def set_limit(self, limit: int) -> None:
        """Move the limit: a higher one admits waiters at once, a lower one admits none until
        fewer than ``limit`` calls run (a running call is never cut off)."""
        limit = check_int("limit", limit, 1)
        if limit == self.limit:
            return
        self.limit = limit
        self.admit()
        self._record()

    async def acquire(self) -> None:
        """The cell's ``acquire``; its refusal (whatever it raised) counted, heard and raised as
        :class:`BulkheadFullError`; a waiter cancelled is recorded as gone from the line."""
        try:
            await super().acquire()
        except asyncio.CancelledError:
            self._record()
            raise
        except Exception:
            self.rejected += 1
            self._record()
            raise BulkheadFullError(self.limit, self.queue, self.running, self.queued) from None
        self._record()

    def release(self) -> None:
        """The cell's ``release``; one without a matching ``acquire`` is a :class:`BulkheadError`."""
        if self.running <= 0:
            raise BulkheadError("release() without a matching acquire()")
        super().release()
        self._record()

    async def execute(self, fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        """``await fn(*args, **kwargs)`` inside the bulkhead (the cell's ``execute``), and its result."""
        return await super().execute(functools.partial(fn, *args, **kwargs))

    async def __aenter__(self) -> Instruments:
        await self.acquire()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release()


class InstrumentedBulkhead(Instruments, Bulkhead):
    """Notebook 04's :class:`Bulkhead` with counters, a timeline, a movable limit (:class:`Instruments`)."""


NEEDS = ("execute", "acquire", "release", "admit")  # what Instruments calls of the class it extends


_MADE: dict[type, type[InstrumentedBulkhead]] = {}  # each class instrumented once (a few a notebook)


def instrumented(bulkhead: type) -> type[InstrumentedBulkhead]:
    """``bulkhead`` (notebook 04's class, or a notebook's own edited copy) with :class:`Instruments`
    in front; a class without the cell's parts is one :class:`ValueError` line naming what is missing."""
    if bulkhead is Bulkhead:
        return InstrumentedBulkhead
    if not isinstance(bulkhead, type):
        raise ValueError(f"bulkhead must be a bulkhead class like notebook 04's Bulkhead (got {bulkhead!r})")
    missing = [name for name in NEEDS if not callable(getattr(bulkhead, name, None))]
    if missing:
        raise ValueError(
            f"bulkhead {bulkhead.__name__} must have the cell's {', '.join(NEEDS)} (it has no {missing[0]})"
        )
    if bulkhead not in _MADE:
        if len(_MADE) >= 64:
            _MADE.clear()
        _MADE[bulkhead] = type(f"Instrumented{bulkhead.__name__}", (Instruments, bulkhead), {})
    return _MADE[bulkhead]
