"""A learner's deadline drop, judged by behaviour: section 2's seeded storm (no fix) with the
learner's step in every worker of the dependency (notebook 07's exercise 4).

A *step* is ``take_next(queue, now, service) -> Call | None``: a free worker's turn in round
``now``, a call started now taking ``service`` rounds (answered in round ``now + service``, in time
if that is at most its ``deadline``, the round its caller gives up). It takes calls off ``queue``
(a deque, oldest first) and returns the one to start, or None. Every call it took off the queue and
did not return is *dropped*: its caller, if still waiting, hears of it at once, as with the course's
deadline drop. :func:`take_next` is the course's own step; with it the replay is, round for round,
:func:`~bulkhead_lab.queues.fixes.with_fix`'s ``deadline drop``.

:func:`verdict` replays the storm with a step and answers the first fact it breaks, in one line:

1. the step keeps the queue's calls whole: it returns a call it took off the queue or None, puts no
   call into the queue and changes no deadline (a worker would serve a call twice, or lose one);
2. no worker starts a call that ends after its caller gives up (work for no one: zero with the
   course's fix), naming the first round one did;
3. no call is dropped that a worker could have started then and finished by its deadline;
4. goodput is back within :data:`MARGIN` rounds of when the course's own deadline drop is back.

Pure and seeded: the same step gives the same verdict. Only the rounds' numbers are in its lines.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from bulkhead_lab.queues.calls import Call
from bulkhead_lab.queues.dependency import Server
from bulkhead_lab.queues.fixes import with_fix
from bulkhead_lab.queues.recovery import WINDOW, Storm, storm
from bulkhead_lab.queues.settings import Dependency, Setup

Step = Callable[[deque[Call], int, int], object]  # (queue, now, service) -> the call to start, or None
DEFAULT = Setup()  # section 2's storm: no fix
MARGIN = WINDOW  # rounds (200 ms, one recovery window) a step may be back later than the course's


def take_next(queue: deque[Call], now: int, service: int) -> Call | None:
    """A free worker's turn in round ``now`` (a call started now takes ``service`` rounds): drop the
    calls at the front of ``queue`` that cannot finish by their caller's deadline, and return the
    first that can (None: every call waiting was dropped)."""
    while queue:
        call = queue.popleft()
        if now + service <= call.deadline:  # answered in round now + service: its caller still waits
            return call
    return None  # dropped: the dependency tells each caller still waiting at once


class Broken(Exception):
    """The step broke the queue's calls (fact 1) or raised; the message is the one line that says how."""


@dataclass
class Notes:
    """What the replay saw of the step: the first late start and bad drop (round, round it ends or
    would end, deadline), and how many there were."""

    late: tuple[int, int, int] | None = None
    late_starts: int = 0
    bad_drop: tuple[int, int, int] | None = None
    bad_drops: int = 0
    dropped: int = 0


def _removed(before: list[Call], queue: deque[Call]) -> list[Call]:
    """The calls of ``before`` no longer in ``queue`` (the front's, at once, when only they went)."""
    k = len(before) - len(queue)
    if k >= 0 and (not queue or (queue[0] is before[k] and queue[-1] is before[-1])):
        return before[:k]
    now = {id(c) for c in queue}
    if len(now) != len(queue) or not now <= {id(c) for c in before}:
        raise Broken("put a call into the queue that was not waiting there: a worker would serve it twice.")
    return [c for c in before if id(c) not in now]


class StepServer(Server):
    """A :class:`~bulkhead_lab.queues.dependency.Server` whose free workers take through a step."""

    def __init__(self, dependency: Dependency, rounds: int, longest: int, step: Step, notes: Notes) -> None:
        super().__init__(dependency, rounds, longest)
        self.step, self.notes = step, notes
        self.deadlines: dict[int, int] = {}  # id -> deadline, of the calls in the queue

    def serve(self, t: int, calls: list[Call], service: int) -> tuple[list[Call], list[Call]]:
        """As :meth:`Server.serve`, FIFO, with the step deciding what each free worker starts or drops."""
        d, queue = self.settings, self.queue
        refused: list[Call] = []
        dropped: list[Call] = []
        self._take(t, service, dropped)
        for call in calls:
            call.sent = call.queued = t
            if d.queue is not None and len(queue) >= d.queue and (self.busy >= d.workers or queue):
                refused.append(call)  # its queue is full: refused at once
                continue
            queue.append(call)
            self.deadlines[id(call)] = call.deadline
            if self.busy < d.workers and len(queue) == 1:
                self._take(t, service, dropped)
        if not queue:
            self.emptied = t
        return refused, dropped

    def _take(self, t: int, service: int, dropped: list[Call]) -> None:
        """Free workers take through the step while calls wait and the step takes something."""
        queue, ends, notes = self.queue, self.ends[t + service], self.notes
        while self.busy < self.settings.workers and queue:
            before = list(queue)
            got = self._step(t, service)
            removed = _removed(before, queue)
            self._whole(t, got, removed)
            for call in removed:
                if call is got:
                    self.busy += 1
                    ends.append(call)
                    if t + service > call.deadline:
                        notes.late_starts += 1
                        notes.late = notes.late or (t, t + service, call.deadline)
                    continue
                dropped.append(call)
                notes.dropped += 1
                if t + service <= call.deadline:
                    notes.bad_drops += 1
                    notes.bad_drop = notes.bad_drop or (t, t + service, call.deadline)
            if not removed:
                break

    def _step(self, t: int, service: int) -> object:
        queue = self.queue
        try:
            return self.step(queue, t, service)
        except Exception as exc:  # the learner's code may raise anything: it is the verdict
            name = getattr(self.step, "__name__", "your function")
            why = (str(exc).splitlines() or [""])[0]
            raise Broken(
                f"in round {t} {name}(a queue of {len(queue)} call{'s' * (len(queue) != 1)}, {t}, "
                f"{service}) raised {type(exc).__name__}{': ' + why if why else ''}."
            ) from None

    def _whole(self, t: int, got: object, removed: list[Call]) -> None:
        """Fact 1: ``got`` is None or a call taken off the queue; no deadline changed."""
        if got is not None and not isinstance(got, Call):
            raise Broken(f"in round {t} it returned {repr(got)[:30]}, not a call from the queue or None.")
        if got is not None and not any(c is got for c in removed):
            where = "it left in the queue" if any(c is got for c in self.queue) else "not from the queue"
            raise Broken(f"in round {t} it returned a call {where}: a worker would serve it twice.")
        for call in removed:
            if self.deadlines.pop(id(call), call.deadline) != call.deadline:
                raise Broken(f"in round {t} it changed a call's deadline: its caller gives up when it did.")


@dataclass(frozen=True)
class Verdict:
    """A step's verdict: ``ok`` (every fact holds) and the one line that says why."""

    ok: bool
    says: str


def replay(step: Step, setup: Setup = DEFAULT) -> tuple[Storm, Notes]:
    """``setup``'s storm with ``step`` in every worker (raises :class:`Broken` for fact 1)."""
    notes = Notes()

    class Stepped(StepServer):
        def __init__(self, dependency: Dependency, rounds: int, longest: int) -> None:
            super().__init__(dependency, rounds, longest, step, notes)

    return storm(setup, server=Stepped), notes


def verdict(step: Step, setup: Setup = DEFAULT) -> Verdict:
    """The first fact ``step`` breaks on ``setup``'s storm, or what it achieved, in one line."""
    try:
        mine, notes = replay(step, setup)
    except Broken as broken:
        return Verdict(False, str(broken))
    own = storm(with_fix(setup, "deadline drop"))
    wasted = mine.run.trace.total("wasted")
    if notes.late is not None:
        start, end, deadline = notes.late
        late = end - deadline
        return Verdict(
            False,
            f"in round {start} a worker started a call that ends in round {end}, "
            f"{late} round{'s' * (late != 1)} after its caller gives up (round {deadline}): work for "
            f"no one, {'not expired yet but too late to finish' if deadline > start else 'already expired'} "
            f"({notes.late_starts} such starts; {wasted} calls served for no one).",
        )
    if notes.bad_drop is not None:
        at, end, deadline = notes.bad_drop
        return Verdict(
            False,
            f"in round {at} it dropped a call a worker could have started then and "
            f"finished in round {end}, by its caller's deadline (round {deadline}); "
            f"{notes.bad_drops} such calls dropped.",
        )
    return _recovered(mine, own, notes)


def _recovered(mine: Storm, own: Storm, notes: Notes) -> Verdict:
    """Fact 4: goodput back within :data:`MARGIN` rounds of the course's deadline drop."""
    back, theirs, stop = mine.recovery, own.recovery, mine.trigger.stop
    good, good_own = mine.after("goodput"), own.after("goodput")
    if back is None:
        return Verdict(
            False,
            f"goodput never came back after the slowdown's end (round {stop}): {good} "
            f"calls answered in time after it, where the course's deadline drop answers "
            f"{good_own} and is back after {theirs} rounds.",
        )
    if theirs is not None and back > theirs + MARGIN:
        return Verdict(
            False,
            f"goodput came back {back} rounds after the slowdown's end, more than "
            f"{MARGIN} after the course's deadline drop ({theirs}).",
        )
    none = storm(mine.run.setup).after("goodput")  # the package's own dependency, no fix
    return Verdict(
        True,
        f"goodput is back {back} rounds after the slowdown's end (the course's deadline "
        f"drop: {theirs}), no worker started a call for a caller who had gone, and the "
        f"{notes.dropped} calls dropped could not have finished in time: {good} answered in "
        f"time after the slowdown ({good_own} with the course's drop, {none} with no fix).",
    )
