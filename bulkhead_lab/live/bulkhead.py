"""A bulkhead: at most ``limit`` calls run, at most ``queue`` more wait, the rest are refused at once.

This is lesson 004's ``bulkhead(5, 5)`` (cockatiel's): a wall around one dependency that
limits how many calls to it may be in progress and how many may wait for a place. When
both are full, :class:`BulkheadRejectedError` is raised immediately, so the caller can
answer "busy, try again" in milliseconds instead of queueing without end.

A finished call hands its place straight to the oldest waiter (first come, first
served). A waiting or running task that is cancelled gives its place back.

The limit may move while calls run (:meth:`Bulkhead.set_limit`, what an adaptive limiter
does, :mod:`.orders.adaptive`): a higher limit admits waiters at once; a lower one stops
admitting until enough running calls have finished (nothing running is cut off).

``timeline=True`` records a :class:`BulkheadPoint` ``(t, running, queued, rejected,
limit)`` at every change, ``t`` in seconds since :attr:`Bulkhead.t0` (its creation or
its last :meth:`Bulkhead.reset`): the queue the figures draw.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple, TypeVar

from bulkhead_lab.validation import check_int

T = TypeVar("T")

__all__ = ["Bulkhead", "BulkheadError", "BulkheadPoint", "BulkheadRejectedError", "MAX_TIMELINE"]

MAX_TIMELINE = 200_000  # points a timeline keeps; past that it stops growing (and says so)


class BulkheadError(Exception):
    """Base of the bulkhead's own errors."""


class BulkheadRejectedError(BulkheadError):
    """Both the running places and the waiting places were full; the call never started."""

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


class Bulkhead:
    """Bounded concurrency (``limit`` running) plus a bounded waiting queue (``queue`` waiting).

    Use ``async with bulkhead: ...`` or ``await bulkhead.execute(fn, *args)``.
    ``on_reject`` (optional) is called with each :class:`BulkheadRejectedError` before it is raised.
    """

    def __init__(
        self,
        limit: int,
        queue: int = 0,
        *,
        on_reject: Callable[[BulkheadRejectedError], None] | None = None,
        timeline: bool = False,
    ) -> None:
        self.limit = check_int("limit", limit, 1)
        self.queue = check_int("queue", queue, 0)
        self.on_reject = on_reject
        self.running = 0
        self.rejected = 0
        self.record_timeline = bool(timeline)
        self.timeline: list[BulkheadPoint] = []
        self.truncated = False  # the timeline reached MAX_TIMELINE points and stopped growing
        self.t0 = time.monotonic()
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._record(self.t0)

    # --- what it reports ---------------------------------------------------------

    @property
    def queued(self) -> int:
        """Calls waiting for a running place."""
        return len(self._waiters)

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
            f"Bulkhead(running {self.running}/{self.limit}, queued {self.queued}/{self.queue}, "
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

    # --- the limit ---------------------------------------------------------------------

    def set_limit(self, limit: int) -> None:
        """Move the limit: a higher one admits waiters at once, a lower one admits none until
        fewer than ``limit`` calls run (a running call is never cut off)."""
        limit = check_int("limit", limit, 1)
        if limit == self.limit:
            return
        self.limit = limit
        self._admit()
        self._record()

    def _admit(self) -> None:
        """Hand free running places to the oldest waiters."""
        while self._waiters and self.running < self.limit:
            place = self._waiters.popleft()
            if not place.done():
                self.running += 1
                place.set_result(None)  # the waiter now owns this running place

    # --- taking and giving back a place ---------------------------------------------

    async def acquire(self) -> None:
        """Take a running place, waiting in the queue if needed; refuse at once if both are full."""
        if self.running < self.limit and not self._waiters:
            self.running += 1
            self._record()
            return
        if len(self._waiters) >= self.queue:
            self.rejected += 1
            self._record()
            error = BulkheadRejectedError(self.limit, self.queue, self.running, self.queued)
            if self.on_reject is not None:
                self.on_reject(error)
            raise error
        place: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(place)
        self._record()
        try:
            await place
        except BaseException:
            if place.done() and not place.cancelled():
                self.release()  # the place was handed over just as we were cancelled: pass it on
            elif place in self._waiters:  # release() may already have skipped it
                self._waiters.remove(place)
                self._record()
            raise

    def release(self) -> None:
        """Give a running place back: to the oldest waiter if the limit allows, else free it."""
        if self.running <= 0:
            raise BulkheadError("release() without a matching acquire()")
        self.running -= 1
        self._admit()
        self._record()

    async def __aenter__(self) -> Bulkhead:
        await self.acquire()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release()

    async def execute(self, fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        """Run ``await fn(*args, **kwargs)`` inside the bulkhead and return its result."""
        async with self:
            return await fn(*args, **kwargs)
