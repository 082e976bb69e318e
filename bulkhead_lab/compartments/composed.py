"""A time limiter and a semaphore bulkhead composed both ways, as resilience4j composes them.

Where a timeout sits decides what it frees. In asyncio (notebook 08, section 3) the timeout cancels
the awaited call inside the semaphore, so the permit comes back with the timeout. resilience4j
(version 2.4.0, commit f1c3be8e79d09c70d457b2f89c3f89d03f1b5720) does not cancel a
``CompletionStage``; its two decorators, ported here call for call onto a virtual clock:

- ``Bulkhead.decorateCompletionStage`` (``resilience4j-bulkhead/.../bulkhead/Bulkhead.java``) takes a
  permit (``tryAcquirePermission``, else ``BulkheadFullException`` at once), calls the supplier, and
  releases the permit (``onComplete``, ``SemaphoreBulkhead.java``: ``semaphore.release()``) in a
  ``whenComplete`` on the stage the supplier returned; the caller gets a promise of its own.
- ``TimeLimiterImpl.decorateCompletionStage`` (``resilience4j-timelimiter/.../internal/
  TimeLimiterImpl.java``) schedules ``Timeout.of``: at the timeout it calls
  ``completeExceptionally(TimeoutException)`` on the future the supplier returned, and cancels
  nothing (its ``cancelRunningFuture`` is read only by the ``Future`` path); it returns that
  future's ``whenComplete`` stage.

``Decorators.ofCompletionStage(...)`` wraps in the order the ``with...`` calls come
(``resilience4j-all/.../decorators/Decorators.java``), so the last is outermost; Spring Boot's
default aspect order puts the time limiter (``LOWEST_PRECEDENCE - 2``) outside the bulkhead
(``LOWEST_PRECEDENCE - 1``). Time limiter outside: the timeout completes the bulkhead's promise,
and the permit stays taken until the work ends. Bulkhead outside: the timeout completes the work's
own future, the bulkhead releases the permit, and the work runs on outside any limit.
Pure: a virtual clock, no threads, no I/O.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

Order = Literal["time limiter outside", "bulkhead outside"]
ORDERS: tuple[Order, ...] = ("time limiter outside", "bulkhead outside")
LATENCY, TIMEOUT, SECOND_AT = 2.0, 0.2, 0.5  # s: the work, the time limit, when a second call comes


class Clock:
    """A virtual clock: callbacks run in time order, ties in the order they were scheduled."""

    def __init__(self) -> None:
        self.now = 0.0
        self._events: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = 0

    def at(self, t: float, fn: Callable[[], None]) -> None:
        self._seq += 1
        heapq.heappush(self._events, (t, self._seq, fn))

    def run(self) -> None:
        while self._events:
            self.now, _, fn = heapq.heappop(self._events)
            fn()


class Stage:
    """The few ``CompletableFuture`` methods the two decorators use."""

    def __init__(self) -> None:
        self.done = False
        self.error: str | None = None
        self._then: list[Callable[[str | None], None]] = []

    def complete(self, error: str | None = None) -> bool:
        """``complete`` (``error`` None) or ``completeExceptionally``: only the first call counts."""
        if self.done:
            return False
        self.done, self.error = True, error
        for fn in self._then:
            fn(error)
        return True

    def when_complete(self, action: Callable[[str | None], None]) -> Stage:
        """A new stage that completes as this one did, after ``action`` ran."""
        after = Stage()

        def run(error: str | None) -> None:
            action(error)
            after.complete(error)

        if self.done:
            run(self.error)
        else:
            self._then.append(run)
        return after


class SemaphoreBulkhead:
    def __init__(self, permits: int) -> None:
        self.permits = permits
        self.freed_at: list[float] = []

    def decorate(self, clock: Clock, supplier: Callable[[], Stage]) -> Callable[[], Stage]:
        """``Bulkhead.decorateCompletionStage``."""

        def call() -> Stage:
            promise = Stage()
            if self.permits == 0:
                promise.complete("BulkheadFullException")
                return promise
            self.permits -= 1

            def on_complete(error: str | None) -> None:
                self.permits += 1
                self.freed_at.append(clock.now)
                promise.complete(error)

            supplier().when_complete(on_complete)
            return promise

        return call


def time_limited(clock: Clock, timeout: float, supplier: Callable[[], Stage]) -> Callable[[], Stage]:
    """``TimeLimiterImpl.decorateCompletionStage``: at the timeout, complete the supplier's future
    exceptionally (``Timeout.of``); cancel nothing."""

    def call() -> Stage:
        future = supplier()

        def timeout_of() -> None:  # Timeout.of: completes the future if it is not done yet
            future.complete("TimeoutException")

        clock.at(clock.now + timeout, timeout_of)
        return future.when_complete(lambda error: None)

    return call


@dataclass(frozen=True)
class Composed:
    """What one order did: when the first caller had its answer, when its permit came back, when its
    work ended, what a second call got, and the most works running at once."""

    order: Order
    answered: float
    answer: str
    permit_back: float
    work_ended: float
    second_call: str
    most_running: int


def compose(order: Order) -> Composed:
    """One permit; a call whose work takes :data:`LATENCY` under a :data:`TIMEOUT`; a second call at
    :data:`SECOND_AT` (after the timeout, before the work ends)."""
    clock, bulkhead = Clock(), SemaphoreBulkhead(1)
    running, ends = [0, 0], []  # now, most

    def work() -> Stage:  # the dependency call: an async client's future, completed when it answers
        stage = Stage()
        running[0] += 1
        running[1] = max(running)

        def answer() -> None:
            running[0] -= 1
            ends.append(clock.now)
            stage.complete()

        clock.at(clock.now + LATENCY, answer)
        return stage

    if order == "time limiter outside":
        call = time_limited(clock, TIMEOUT, bulkhead.decorate(clock, work))
    else:
        call = bulkhead.decorate(clock, time_limited(clock, TIMEOUT, work))
    seen: dict[str, Any] = {}

    def first() -> None:
        stage = call()
        stage.when_complete(lambda error: seen.update(answered=clock.now, answer=error or "its answer"))

    def second() -> None:
        stage = call()
        seen["second"] = "refused at once" if stage.error == "BulkheadFullException" else "admitted"

    clock.at(0.0, first)
    clock.at(SECOND_AT, second)
    clock.run()
    return Composed(
        order, seen["answered"], seen["answer"], bulkhead.freed_at[0], ends[0], seen["second"], running[1]
    )


def both() -> tuple[Composed, ...]:
    """:func:`compose` in both orders."""
    return tuple(compose(order) for order in ORDERS)
