"""One run of the queueing model: lesson 000's seeded arrivals, the callers, their bulkhead (if any)
and the dependency, round by round, and what each round counted.

Round ``t``, in this order:

1. **answers:** calls whose service ends at ``t`` free their workers; each is *goodput* if its
   caller still waits (answered in time), else *wasted* work;
2. **timeouts:** callers give up on calls made ``timeout`` rounds ago and still unanswered (in the
   dependency's queue, in service, or waiting for a bulkhead place); each may be retried;
3. **calls:** the round's new requests (lesson 000's event arrivals) and the retries due now are
   *offered*; through the bulkhead (if any) they are sent, wait for a place, or are refused;
4. **the dependency:** free workers take waiting calls (dropping what its rules drop), then the
   sent calls start, wait in its queue, or are refused (a full queue); a refused or dropped call
   whose caller still waits is a failure at once: it may be retried.

The arrivals depend only on the seed, the rate and the rounds (:func:`arrivals`, kept by
:mod:`bulkhead_lab.memo`), never on the dependency or the callers: every fix replays the same
stream. Pure and seeded: the same :class:`~bulkhead_lab.queues.settings.Setup` gives the same run.
"""

from __future__ import annotations

from dataclasses import dataclass

from bulkhead_lab.collector import collector_paused
from bulkhead_lab.memo import ROUNDS_BUDGET, Memo
from bulkhead_lab.pool.arrivals import stream
from bulkhead_lab.pool.params import Params
from bulkhead_lab.queues.bulkhead import ANSWERED_IN_TIME, TIMED_OUT, TURNED_AWAY, Places
from bulkhead_lab.queues.callers import Clients
from bulkhead_lab.queues.calls import SENT, Call
from bulkhead_lab.queues.dependency import Server
from bulkhead_lab.queues.settings import Setup

SERIES = (
    "offered",  # calls made: new requests and retries
    "retries",  # of them, retries
    "served",  # calls whose service ended
    "goodput",  # of them, answered in time for a caller still waiting
    "wasted",  # of them, served for a caller who had already given up
    "refused",  # refused at once: the dependency's queue or the bulkhead was full
    "dropped",  # taken off the dependency's queue unserved (a deadline rule or the queue timeout)
    "queue",  # calls waiting in the dependency's queue at the round's end
    "waiting",  # calls whose callers wait for them at the round's end (in flight, or in line)
    "gave_up",  # requests that ended unanswered (no attempt left, or the budget said no)
    "limit",  # the bulkhead's limit at the round's end (0: no bulkhead)
)


@dataclass(frozen=True)
class Trace:
    """Per round, each of :data:`SERIES`: what the round counted."""

    offered: tuple[int, ...]
    retries: tuple[int, ...]
    served: tuple[int, ...]
    goodput: tuple[int, ...]
    wasted: tuple[int, ...]
    refused: tuple[int, ...]
    dropped: tuple[int, ...]
    queue: tuple[int, ...]
    waiting: tuple[int, ...]
    gave_up: tuple[int, ...]
    limit: tuple[int, ...]

    @property
    def rounds(self) -> int:
        return len(self.offered)

    def total(self, name: str, start: int = 0, stop: int | None = None) -> int:
        """One series summed over rounds ``start`` .. ``stop - 1``."""
        return sum(getattr(self, name)[start:stop])


@dataclass(frozen=True)
class QueueRun:
    """One run: its setup and its trace."""

    setup: Setup
    trace: Trace


def arrivals(rate: float, rounds: int, seed: int) -> tuple[int, ...]:
    """Lesson 000's seeded event arrivals per round at ``rate`` calls/s (its stream, its generator,
    kept by :func:`bulkhead_lab.pool.arrivals.stream`)."""
    return stream(Params(event_rate=rate, rounds=rounds, seed=seed)).event


@collector_paused  # full collections found nothing the run made, and cost a quarter of its time
def run(setup: Setup, server: type[Server] = Server, clients: type[Clients] = Clients) -> QueueRun:
    """One run of ``setup`` (``server`` and ``clients``: the classes that play the dependency and the
    callers, the package's own unless a notebook cell hands its own)."""
    times, rounds = setup.service_at(), setup.rounds
    dependency = server(setup.dependency, rounds, max(times))
    originals = setup.arrivals or arrivals(setup.rate, rounds, setup.seed)
    callers = clients(setup.callers, originals)
    bulkhead = setup.callers.bulkhead
    places = None if bulkhead is None else Places(bulkhead, setup.seed)
    rows = [[0] * rounds for _ in SERIES]
    offered, retries, served, goodput, wasted, refused_, dropped_, queue, waiting, _, limit = rows
    for t in range(rounds):
        done = dependency.finish(t)
        good = [call for call in done if call.state == SENT] if done else done
        for call in good:
            if places is not None:
                places.release(call, t, ANSWERED_IN_TIME)
            callers.answer(call, t)
        for call in callers.timeouts(t):
            if places is not None:
                places.release(call, t, TIMED_OUT)
            callers.fail(call, t)
        calls = callers.calls(t)
        sent, refused = (calls, []) if places is None else places.admit(calls)
        for call in refused:
            callers.fail(call, t)
        turned, dropped = dependency.serve(t, sent, times[t])
        if turned or dropped:
            _turn_away(callers, places, t, turned + dropped)
        n, m = len(done), len(good)
        offered[t] = len(calls)
        retries[t] = offered[t] - originals[t]
        served[t], goodput[t], wasted[t] = n, m, n - m
        refused_[t], dropped_[t] = len(refused) + len(turned), len(dropped)
        queue[t], waiting[t] = len(dependency.queue), callers.waiting
        if places is not None:
            limit[t] = places.limit
    rows[SERIES.index("gave_up")] = callers.gave_up
    return QueueRun(setup, Trace(*(tuple(values) for values in rows)))


_queue_runs: Memo[Setup, QueueRun] = Memo(
    "queue_runs", 128, budget=ROUNDS_BUDGET, weigh=lambda r: len(SERIES) * r.trace.rounds
)


def kept_run(setup: Setup) -> QueueRun:
    """:func:`run` with the package's classes, kept for the next ask (slider moves replay it)."""
    return _queue_runs.get(setup, lambda: run(setup))


def _turn_away(callers: Clients, places: Places | None, t: int, calls: list[Call]) -> None:
    """Calls the dependency refused or dropped: a caller still waiting hears of it now."""
    for call in calls:
        if call.waiting:
            if places is not None:
                places.release(call, t, TURNED_AWAY)
            callers.fail(call, t)
