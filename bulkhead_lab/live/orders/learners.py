"""A learner's code inside a live run: notebook 05's limiter moving the Order Service's limit
(:func:`limiter_run`, exercise 3) and notebook 06's budget in the outside client (:func:`budget_run`,
exercise 4). Each is a :func:`~.load.run_orders` against services of its own; what the
learner's code does wrong stops the run at once, every service closed: one :class:`LearnersFault`.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from bulkhead_lab.live.bulkhead import InstrumentedBulkhead
from bulkhead_lab.live.net.server import cancel_all
from bulkhead_lab.live.orders.adaptive import AdaptiveControl, AdaptiveSettings
from bulkhead_lab.live.orders.load import run_orders
from bulkhead_lab.live.orders.results import OrdersRun
from bulkhead_lab.live.orders.retrying import CLIENTS, LIMIT, QUEUE
from bulkhead_lab.live.orders.service import OrderSettings
from bulkhead_lab.live.orders.steady import SteadyLoad
from bulkhead_lab.retries.budgets import RetryBudget


class LearnersFault(Exception):
    """What a learner's code did wrong in a live run, in one line; the run stopped."""


# --- a learner's limiter around the live Payment (notebook 05, exercise 3) ------------------------


class LearnersLimit:
    """A learner's limiter (``on_sample(rtt, inflight, dropped)`` returning the new limit) as the live
    service's :class:`~.adaptive.AdaptiveControl` keeps it; what it raises or returns that is not a whole
    limit of at least 1 is kept in :attr:`fault` (one line) and the limit stays where it was."""

    timed = False
    baseline = 0.0

    def __init__(self, learner: Any, initial: int) -> None:
        self.learner, self.limit = learner, initial
        self.fault: str | None = None

    def tick(self, now: float) -> None:
        """Not timed: the time changes nothing."""

    def on_sample(self, rtt: float, inflight: int, dropped: bool = False) -> int:
        if self.fault is not None:
            return self.limit
        try:
            got = self.learner.on_sample(rtt, inflight, dropped)
        except Exception as exc:
            why = (str(exc).splitlines() or [""])[0]
            self.fault = f"on_sample raised {type(exc).__name__}" + (f": {why}." if why else ".")
            return self.limit
        if isinstance(got, bool) or not isinstance(got, (int, float)) or not got >= 1:
            self.fault = f"on_sample returned {got!r:.30} live: return the new limit, at least 1."
            return self.limit
        self.limit = int(got)
        return self.limit


class LearnersSpec:
    """Builds a :class:`LearnersLimit` around ``make()`` (the learner's class with its settings)."""

    algorithm = "yours"

    def __init__(self, make: Callable[[], Any], initial: int) -> None:
        self.make, self.initial = make, initial
        self.built: list[LearnersLimit] = []

    def build(self) -> LearnersLimit:
        self.built.append(LearnersLimit(self.make(), self.initial))
        return self.built[-1]

    def fault(self) -> str | None:
        return next((b.fault for b in self.built if b.fault), None)


@dataclass(frozen=True)
class LearnersSettings(AdaptiveSettings):
    """The adaptive Order Service (its pools sized as AIMD's) with a learner's limiter moving its limit."""

    algorithm: str = "AIMD"
    learner: LearnersSpec | None = None

    def limit_control(self, bulkhead: InstrumentedBulkhead) -> AdaptiveControl:
        return AdaptiveControl(self.learner or self.spec(), bulkhead)


async def limiter_run(learner: Any, settings: tuple[int, int, int], load: SteadyLoad) -> OrdersRun:
    """:func:`~.load.run_orders` of ``load`` against the adaptive Order Service, its limit moved by
    ``learner(*settings)`` (initial, min_limit, max_limit). A fault stops the run at once, every
    service closed: :class:`LearnersFault`, one line."""
    spec = LearnersSpec(lambda: learner(*settings), settings[0])
    running = asyncio.ensure_future(run_orders(LearnersSettings(learner=spec), load))
    try:
        while not running.done() and spec.fault() is None:
            await asyncio.wait({running}, timeout=0.01)  # polling the learner's limiter for a fault
    finally:  # a fault, or this run cancelled: the run ends and closes its services
        await cancel_all([running])
    if spec.fault() is not None:
        raise LearnersFault(spec.fault())
    return running.result()


# --- a learner's budget in the live client (notebook 06, exercise 4) ------------------------------


class GuardedBudget(RetryBudget):
    """A learner's budget as the live client keeps it: each of the loop's calls passed on; what it
    raises, or a ``can_retry`` answer that is neither true nor false, is one :class:`LearnersFault`."""

    def __init__(self, learner: object) -> None:
        super().__init__(1.0)
        self.learner = learner

    def _ask(self, method: str) -> object:
        try:
            return getattr(self.learner, method)()
        except Exception as exc:
            why = (str(exc).splitlines() or [""])[0]
            said = f"{type(exc).__name__}: {why}" if why else type(exc).__name__
            raise LearnersFault(f"{type(self.learner).__name__}.{method}() raised {said}.") from None

    def on_request(self) -> None:
        self._ask("on_request")

    def can_retry(self) -> bool:
        """The learner's answer as the loop's ``if`` reads it (``bool``: 1.0 and numpy's True are true);
        a coroutine or a value with no truth is a :class:`LearnersFault`."""
        got = self._ask("can_retry")
        if inspect.isawaitable(got):
            if inspect.iscoroutine(got):
                got.close()  # never awaited, never warned about
            raise LearnersFault("can_retry() returned a coroutine: write a plain def, not an async def.")
        try:
            return bool(got)
        except Exception:
            raise LearnersFault(f"can_retry() returned {got!r:.30}: neither true nor false.") from None

    def on_retry(self) -> None:
        self._ask("on_retry")


async def budget_run(learner: object) -> OrdersRun:
    """The SRE client's run (:data:`CLIENTS`' third: 3 attempts, the AWS SDK's backoff) with ``learner``
    (a built budget) counting instead of the SRE 10%. A misbehaving budget raises :class:`LearnersFault`
    with every order cancelled and every service closed, as a failed :func:`~.retrying.side_by_side` does."""
    settings = OrderSettings("limited", limit=LIMIT, queue=QUEUE)
    return await run_orders(settings, replace(CLIENTS[2], budget=GuardedBudget(learner)))
