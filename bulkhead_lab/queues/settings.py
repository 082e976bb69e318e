"""What one run of the queueing model is made of, as plain frozen data: the dependency, its callers,
the trigger, and the arrivals.

Times are in lesson 000's rounds (100 rounds = 1 s). The defaults are chosen, and said so, so that
with no fix the storm outlives its trigger: the event flow's 97.22 calls/s (lesson 000's, 0.97 a
round) reach a dependency of 8 workers (lesson 000's 8 event slots) taking 6 rounds a call, 1.33
calls a round, so 73% busy on a healthy day; from round 1000 (lesson 000's failure round) to round
1500 it slows to 22 rounds a call (lesson 000's slowdown hold), 0.36 a round; callers give up after
30 rounds (300 ms) and make up to 3 attempts with the AWS SDK's full-jitter backoff (notebook 06's
callers). Three attempts of 0.97 a round are 2.9 a round: more than the healed dependency's 1.33.

A bad value is refused with one line naming the parameter and its range (``ValueError``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from bulkhead_lab.adaptive.pool import LimiterSpec
from bulkhead_lab.pool.params import CYCLE, EVENT_RATE, HOLD_EVENT, LESSON_SPLIT, SEED, SLOW, START, TOTAL
from bulkhead_lab.retries.budgets import Budget, RatioBudget, TokenBucket
from bulkhead_lab.retries.policy import JITTER_SEED, SRE_MAX_ATTEMPTS, Backoff, RetryPolicy
from bulkhead_lab.validation import check_choice, check_int, check_real, fail

WORKERS = TOTAL - LESSON_SPLIT  # 8: lesson 000's event compartment, here the dependency's workers
SERVICE = HOLD_EVENT  # 6 rounds (60 ms) a call on a healthy day
SLOW_SERVICE = SLOW  # 22 rounds while the dependency is slow
SLOWDOWN_START = START  # round 1000: lesson 000's failure round
SLOWDOWN_STOP = 1500  # our choice: the dependency heals 5 s later
TIMEOUT = 30  # rounds (300 ms): our callers' timeout, 5x a healthy call
ROUNDS = 4000  # lesson 000's 40 s run
MAX_ROUNDS = 100_000  # 1000 s of model time; keeps a run (and a slider's memo) small
MAX_RATE = 400.0  # calls/s: at most 4 new requests a round
MAX_SERVICE = 1000  # rounds (10 s) a call may take
QUEUE_TIMEOUT_TARGET = 0.5  # Fail at Scale's M = 5 ms, in rounds
QUEUE_TIMEOUT_INTERVAL = 10.0  # Fail at Scale's N = 100 ms, in rounds

Order = Literal["fifo", "lifo", "adaptive lifo"]
ORDERS: tuple[Order, ...] = ("fifo", "lifo", "adaptive lifo")
DeadlineRule = Literal["ignored", "expired", "cannot finish"]
DEADLINE_RULES: tuple[DeadlineRule, ...] = ("ignored", "expired", "cannot finish")


@dataclass(frozen=True)
class QueueTimeout:
    """Fail at Scale's CoDel-like queue timeout: a call may wait ``interval`` rounds in the queue if
    the queue was empty at some round of the last ``interval``, else only ``target`` (its fixed M and
    N). Inspired by CoDel, it is not RFC 8289's CoDel, whose control law drops at a growing rate
    while the delay stays above target; here the two timeouts never change."""

    target: float = QUEUE_TIMEOUT_TARGET
    interval: float = QUEUE_TIMEOUT_INTERVAL

    def __post_init__(self) -> None:
        check_real("target", self.target, 0.0, MAX_SERVICE)
        check_real("interval", self.interval, 0.0, MAX_SERVICE, low_open=True)


@dataclass(frozen=True)
class Dependency:
    """The called service: ``workers`` calls served at once, ``service`` rounds each; the rest wait.

    ``queue`` bounds the waiting calls (``None``: no bound); a call finding it full is refused at
    once. ``order`` is who a free worker takes: the oldest (``fifo``), the newest (``lifo``), or
    the oldest until a queue has stood ``interval`` rounds, then the newest (``adaptive lifo``,
    Fail at Scale's). ``deadline`` says what the dependency does with a call whose caller's deadline
    it knows (sent with the call): nothing, drop it when it has passed (``expired``), or drop it when
    the call ``cannot finish`` before it. ``queue_timeout`` drops calls that waited too long
    (:class:`QueueTimeout`).
    A dropped call's caller, if still waiting, hears of it at once, as of a refusal.
    """

    workers: int = WORKERS
    service: int = SERVICE
    queue: int | None = None
    order: Order = "fifo"
    deadline: DeadlineRule = "ignored"
    queue_timeout: QueueTimeout | None = None
    interval: int = int(QUEUE_TIMEOUT_INTERVAL)  # rounds a queue must stand before adaptive LIFO turns

    def __post_init__(self) -> None:
        check_int("workers", self.workers, 1, 10_000)
        check_int("service", self.service, 1, MAX_SERVICE)
        if self.queue is not None:
            check_int("queue", self.queue, 0, 1_000_000)
        check_choice("order", self.order, ORDERS)
        check_choice("deadline", self.deadline, DEADLINE_RULES)
        if self.queue_timeout is not None and not isinstance(self.queue_timeout, QueueTimeout):
            raise fail("queue_timeout", self.queue_timeout, "None or a QueueTimeout")
        check_int("interval", self.interval, 1, MAX_SERVICE)

    @property
    def capacity(self) -> float:
        """Calls a round it can serve: workers / service."""
        return self.workers / self.service


@dataclass(frozen=True)
class Bulkhead:
    """The callers' bulkhead (notebook 04's): at most ``limit`` calls in flight to the dependency,
    ``queue`` more waiting for a place, the rest refused at once. A place is held until the call is
    answered, refused or timed out, whichever comes first. ``limit`` may be an adaptive limit
    (:class:`~bulkhead_lab.adaptive.pool.LimiterSpec`), told of each call as it ends."""

    limit: int | LimiterSpec = WORKERS
    queue: int = WORKERS

    def __post_init__(self) -> None:
        if not isinstance(self.limit, LimiterSpec):
            check_int("limit", self.limit, 1, 10_000)
        check_int("queue", self.queue, 0, 1_000_000)


@dataclass(frozen=True)
class Callers:
    """Who calls: each attempt gives up after ``timeout`` rounds; a refused or timed-out attempt is
    retried under ``policy`` while ``budget`` allows (notebook 06's policies and budgets), through
    ``bulkhead`` if any; their backoff draws come from ``random.Random(seed)``."""

    timeout: int = TIMEOUT
    policy: RetryPolicy = RetryPolicy(SRE_MAX_ATTEMPTS, Backoff())
    budget: Budget | None = None
    bulkhead: Bulkhead | None = None
    seed: int = JITTER_SEED

    def __post_init__(self) -> None:
        check_int("timeout", self.timeout, 1, MAX_SERVICE)
        if not isinstance(self.policy, RetryPolicy):
            raise fail("policy", self.policy, "a RetryPolicy")
        if self.budget is not None and not isinstance(self.budget, (RatioBudget, TokenBucket)):
            raise fail("budget", self.budget, "None, a RatioBudget or a TokenBucket")
        if self.bulkhead is not None and not isinstance(self.bulkhead, Bulkhead):
            raise fail("bulkhead", self.bulkhead, "None or a Bulkhead")
        check_int("seed", self.seed, 0)


@dataclass(frozen=True)
class Slowdown:
    """The trigger: calls started in rounds ``start`` .. ``stop - 1`` take ``service`` rounds."""

    start: int = SLOWDOWN_START
    stop: int = SLOWDOWN_STOP
    service: int = SLOW_SERVICE

    def __post_init__(self) -> None:
        check_int("start", self.start, 0, MAX_ROUNDS)
        check_int("stop", self.stop, self.start, MAX_ROUNDS)
        check_int("service", self.service, 1, MAX_SERVICE)


@dataclass(frozen=True)
class Setup:
    """One run: the arrivals (lesson 000's seeded event flow at ``rate`` calls/s, for ``rounds``; or
    ``arrivals``, new requests per round, for a small example traced by hand), the dependency, its
    callers, and the trigger (``None``: the healthy day)."""

    dependency: Dependency = field(default_factory=Dependency)
    callers: Callers = field(default_factory=Callers)
    trigger: Slowdown | None = field(default_factory=Slowdown)
    rate: float = EVENT_RATE
    rounds: int = ROUNDS
    seed: int = SEED
    arrivals: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        rounds = check_int("rounds", self.rounds, 1, MAX_ROUNDS)
        if self.arrivals is not None:
            if len(self.arrivals) != rounds:
                raise fail("arrivals", self.arrivals, f"a tuple of {rounds} counts, one a round")
            for n in self.arrivals:
                check_int("arrivals per round", n, 0, 1000)
        check_real("rate", self.rate, 0.0, MAX_RATE)
        if self.trigger is not None:
            if not isinstance(self.trigger, Slowdown):
                raise fail("trigger", self.trigger, "None or a Slowdown")
            check_int("trigger stop", self.trigger.stop, self.trigger.start, rounds)
        for name, value, kind in (
            ("dependency", self.dependency, Dependency),
            ("callers", self.callers, Callers),
        ):
            if not isinstance(value, kind):
                raise fail(name, value, f"a {kind.__name__}")

    def with_(self, **changes: object) -> Setup:
        """A copy with some fields changed (and checked again)."""
        return replace(self, **changes)  # type: ignore[arg-type]

    @property
    def healthy(self) -> Setup:
        """The same run with no trigger."""
        return self.with_(trigger=None)

    @property
    def reference(self) -> Setup:
        """The healthy day a storm is measured against: the same requests, no slowdown, and the
        dependency and callers as they are with no fix (the defaults)."""
        return Setup(trigger=None, rate=self.rate, rounds=self.rounds, seed=self.seed, arrivals=self.arrivals)

    @property
    def per_round(self) -> float:
        """New requests a round: ``rate / 100``."""
        return self.rate / CYCLE

    def service_at(self) -> list[int]:
        """The service time of a call started in each round."""
        d, slow = self.dependency, self.trigger
        times = [d.service] * self.rounds
        if slow is not None:
            times[slow.start : slow.stop] = [slow.service] * (slow.stop - slow.start)
        return times


SRE_BUDGET = RatioBudget()  # the SRE book's 10% (notebook 06's)
