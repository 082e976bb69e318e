"""A bulkhead: at most ``limit`` calls run, at most ``queue`` more wait, the rest are refused at once.

This is lesson 004's ``bulkhead(5, 5)`` (cockatiel's): a wall around one dependency that
limits how many calls to it may be in progress and how many may wait for a place. When
both are full, :class:`BulkheadRejectedError` is raised immediately, so the caller can
answer "busy, try again" in milliseconds instead of queueing without end.

A finished call hands its place straight to the oldest waiter (first come, first
served). A waiting or running task that is cancelled gives its place back.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..validation import check_int

T = TypeVar("T")

__all__ = ["Bulkhead", "BulkheadError", "BulkheadRejectedError"]


class BulkheadError(Exception):
    """Base of the bulkhead's own errors."""


class BulkheadRejectedError(BulkheadError):
    """Both the running places and the waiting places were full; the call never started."""

    def __init__(self, limit: int, queue: int, running: int, queued: int) -> None:
        self.limit, self.queue, self.running, self.queued = limit, queue, running, queued
        super().__init__(f"bulkhead full: {running}/{limit} running, {queued}/{queue} queued")


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
    ) -> None:
        self.limit = check_int("limit", limit, 1)
        self.queue = check_int("queue", queue, 0)
        self.on_reject = on_reject
        self.running = 0
        self.rejected = 0
        self._waiters: deque[asyncio.Future[None]] = deque()

    # --- what it reports ---------------------------------------------------------

    @property
    def queued(self) -> int:
        """Calls waiting for a running place."""
        return len(self._waiters)

    @property
    def execution_slots(self) -> int:
        """Free running places (cockatiel's ``executionSlots``)."""
        return self.limit - self.running

    @property
    def queue_slots(self) -> int:
        """Free waiting places (cockatiel's ``queueSlots``)."""
        return self.queue - self.queued

    def stats(self) -> dict[str, int]:
        """The numbers ``GET /admin/bulkhead`` shows, named as cockatiel names them."""
        return {
            "running": self.running,
            "queued": self.queued,
            "executionSlots": self.execution_slots,
            "queueSlots": self.queue_slots,
            "rejected": self.rejected,
        }

    def __repr__(self) -> str:
        return (
            f"Bulkhead(running {self.running}/{self.limit}, queued {self.queued}/{self.queue}, "
            f"rejected {self.rejected})"
        )

    # --- taking and giving back a place ---------------------------------------------

    async def acquire(self) -> None:
        """Take a running place, waiting in the queue if needed; refuse at once if both are full."""
        if self.running < self.limit and not self._waiters:
            self.running += 1
            return
        if len(self._waiters) >= self.queue:
            self.rejected += 1
            error = BulkheadRejectedError(self.limit, self.queue, self.running, self.queued)
            if self.on_reject is not None:
                self.on_reject(error)
            raise error
        place: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(place)
        try:
            await place
        except BaseException:
            if place.done() and not place.cancelled():
                self.release()  # the place was handed over just as we were cancelled: pass it on
            elif place in self._waiters:  # release() may already have skipped it
                self._waiters.remove(place)
            raise

    def release(self) -> None:
        """Give a running place back: to the oldest waiter if there is one, else free it."""
        while self._waiters:
            place = self._waiters.popleft()
            if not place.done():
                place.set_result(None)  # the waiter now owns this running place
                return
        if self.running <= 0:
            raise BulkheadError("release() without a matching acquire()")
        self.running -= 1

    async def __aenter__(self) -> Bulkhead:
        await self.acquire()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release()

    async def execute(self, fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        """Run ``await fn(*args, **kwargs)`` inside the bulkhead and return its result."""
        async with self:
            return await fn(*args, **kwargs)
