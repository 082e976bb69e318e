"""Notebook 07's exercise 4, the deadline drop: a learner's ``take_next(queue, now, service)`` judged by
its contract, step by step against the course's own rule (section 2's ``may_start``, ``cannot finish``).

The contract. A free worker's turn in round ``now``; a call started now takes ``service`` rounds, so it
is answered in round ``now + service``, in time when that is at most its ``deadline``. From the front of
``queue`` (a deque of calls, oldest first) the step takes off every call that cannot finish in time (it
is *dropped*) and the first that can, which it returns; the calls behind that one stay, in order. When
none can (the queue empty, every call expired, ``service`` longer than any call has left) the queue is
emptied and the step returns None. It changes no call.

Properties, each compared call by call with :func:`course_takes` (which calls are dropped, which one is
taken, the queue left behind, every call's fields):

1. a grid: every queue of up to 3 calls whose time left is at a boundary the notebook names (long
   expired, expired just now, one round short of the service time, exactly it: answered at the deadline,
   one more, a fresh call's 30), for service times from 1 to past the 30-round timeout; an empty queue;
2. one step on each of :data:`EXAMPLES` generated queues (Hypothesis, shrunk when one breaks): any
   ``now``, up to 10 calls crowded around the service time and up to 150 more spread over 120 rounds;
3. section 2's storm (no fix) with the step in every worker, to 5 s after its slowdown: each of its
   steps as the course's.

A Not yet names the smallest failing queue and a replay line for a cell: ``exercises.replay_step(...)``
(:func:`replay_step`), which runs the learner's step on that queue beside the course's.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from itertools import combinations_with_replacement
from operator import attrgetter

from hypothesis import strategies as st

from bulkhead_lab.course.judges.contract import (
    Broke,
    Verdict,
    as_int,
    first_broken,
    named,
    returned,
    search,
    traced,
    untraced,
)
from bulkhead_lab.course.ui.trial import short_repr
from bulkhead_lab.queues.calls import ANSWERED, GONE, SENT, WAITING, Call
from bulkhead_lab.queues.dependency import Server, may_start
from bulkhead_lab.queues.rounds import QueueRun, run
from bulkhead_lab.queues.settings import SLOWDOWN_STOP, TIMEOUT, Dependency, Setup

NAME = "my_take_next"  # what a replay calls a step with no name of its own (a lambda)
Step = Callable[[deque[Call], int, int], object]  # (queue, now, service) -> the call to start, or None
Scenario = tuple[tuple[int, ...], int, int]  # (deadlines, oldest first; now; service)
CANNOT_FINISH = Dependency(deadline="cannot finish")  # the course's rule: section 2's may_start
STORM = Setup(rounds=SLOWDOWN_STOP + 500)  # section 2's storm, no fix, to 5 s after its slowdown ends
EXAMPLES = 80  # generated scenarios (Hypothesis), after the grid
FIELDS = tuple(f.name for f in fields(Call))
_fields = attrgetter(*FIELDS)  # a call's fields, as a tuple: what a step must leave as they were
OLDEST = 120  # rounds the oldest call in a queue has waited (90 past its deadline); also the grid's now
STATES = {WAITING: "WAITING", SENT: "SENT", ANSWERED: "ANSWERED", GONE: "GONE"}  # a call's state, named
SERVICES = (6, 22, 1, 5, 21, 29, 30, 31, 45)  # the grid's service times: the storm's 6 and 22 first


def grid() -> list[Scenario]:
    """Every queue of up to 3 calls (oldest first) in round :data:`OLDEST`, for each of :data:`SERVICES`,
    each call's time left one of: long expired, expired just now, one round left, the service time less a
    round, exactly the service time (answered at its deadline), one round more, a fresh call's 30; the
    fewest calls first, so the first that breaks is a smallest."""
    found: list[Scenario] = []
    for size in range(4):
        for service in SERVICES:
            telling = (service - 1, 0, -90, 1, -1, service, service + 1, TIMEOUT)  # the telling ones first
            lefts = tuple(dict.fromkeys(r for r in telling if TIMEOUT - OLDEST <= r <= TIMEOUT))
            for left in combinations_with_replacement(lefts, size):
                found.append((tuple(sorted(OLDEST + r for r in left)), OLDEST, service))
    return found


def take_next(queue: deque[Call], now: int, service: int) -> Call | None:
    """A free worker's turn in round ``now`` (a call started now takes ``service`` rounds): drop the
    calls at the front of ``queue`` that cannot finish by their caller's deadline, and return the
    first that can (None: every call waiting was dropped)."""
    while queue:
        call = queue.popleft()
        if now + service <= call.deadline:  # answered in round now + service: its caller still waits
            return call
    return None  # dropped: the dependency tells each caller still waiting at once


def course_takes(calls: Sequence[Call], now: int, service: int) -> int:
    """The index of the call the course's deadline drop takes from ``calls`` (oldest first), dropping
    those before it; ``len(calls)`` when it takes none and drops them all."""
    fits = (i for i, call in enumerate(calls) if may_start(CANNOT_FINISH, call, now, service, now))
    return next(fits, len(calls))


def queue_of(deadlines: Iterable[object], now: object) -> deque[Call]:
    """The dependency's queue in round ``now``: calls due at ``deadlines`` (oldest first), each made
    (and queued) 30 rounds before it; a call whose deadline has come is one its caller gave up on."""
    t = as_int(now, "now")
    queue: deque[Call] = deque()
    for due in deadlines:
        d = as_int(due, "a deadline")
        queue.append(
            Call(d - TIMEOUT, d, state=GONE if d <= t else SENT, sent=d - TIMEOUT, queued=d - TIMEOUT)
        )
    return queue


# --- describing a step ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Before:
    """A queue as a step found it: its ``calls`` (oldest first), their fields then, ``now``, ``service``."""

    calls: list[Call]
    fields: list[tuple[object, ...]]
    now: int
    service: int

    @classmethod
    def of(cls, queue: deque[Call], now: int, service: int) -> Before:
        calls = list(queue)
        return cls(calls, list(map(_fields, calls)), now, service)

    def due(self, i: int) -> int:
        return int(self.fields[i][1])  # type: ignore[call-overload]  # a Call's deadline, an int

    def at(self, x: object) -> int | None:
        return next((i for i, c in enumerate(self.calls) if c is x), None)

    def due_of(self, x: object) -> str:
        i = self.at(x)
        return (
            str(self.due(i)) if i is not None else str(x.deadline) if isinstance(x, Call) else short_repr(x)
        )

    def nth(self, i: int) -> str:
        return self.name(self.calls[i])

    def name(self, x: object) -> str:
        """``call 2 (due 126)``: a call of the queue by its place and its deadline (as they were)."""
        i = self.at(x)
        if i is None:
            return f"a call not from q (due {x.deadline})" if isinstance(x, Call) else short_repr(x)
        return f"call {i + 1} (due {self.due(i)})"

    def dues(self, items: Sequence[object]) -> str:
        """``[125, 126]``: the deadlines of a queue's calls (what else it holds, as itself), cut after 12."""
        shown = [self.due_of(x) for x in items[:12]]
        more = f", ... ({len(items)} calls)" if len(items) > 12 else ""
        return f"[{', '.join(shown)}{more}]"

    def case(self, step: object) -> str:
        n = len(self.calls)
        q = (
            f"= {n} call{'s' * (n != 1)} due at rounds {self.dues(self.calls)}, oldest first"
            if n
            else "empty"
        )
        return f"{named(step, NAME)}(q, now={self.now}, service={self.service}) with q {q}"

    def replay(self, step: object) -> str:
        dues = [self.due(i) for i in range(len(self.calls))]
        return f"exercises.replay_step({named(step, NAME)}, {dues}, now={self.now}, service={self.service})"

    def did(self, got: object, left: Sequence[object], course: bool = False) -> str:
        """What a step did (``course``: what the course's step does): dropped (taken off, not returned),
        returned, left."""
        kept = {id(x) for x in left}
        gone = [self.name(c) for c in self.calls if id(c) not in kept and c is not got]
        dropped = " and ".join(gone) if len(gone) <= 2 else f"{gone[0]} .. {gone[-1]} ({len(gone)} calls)"
        took = "None" if got is None else self.name(got)
        if course:
            return f"{f'drops {dropped}, ' if dropped else ''}returns {took} and leaves q = {self.dues(left)}"
        return f"returned {took}{f', dropped {dropped}' if dropped else ''} and left q = {self.dues(left)}"

    def why(self, got: object, left: Sequence[object]) -> str:
        """The first thing that differs from the course's step, in words that say why it matters."""
        end, kept, n = self.now + self.service, {id(x) for x in left}, len(self.calls)
        fits = [i for i in range(n) if end <= self.due(i)]
        at = self.at(got)
        if at is not None and end > self.due(at):
            late = f"{end - self.due(at)} round{'s' * (end - self.due(at) != 1)} after its caller gives up"
            gone = " (it has already gone)" if self.due(at) <= self.now else ""
            return f"{self.name(got)} is answered in round {end}, {late}{gone}"
        for i in fits:
            if id(self.calls[i]) not in kept and i != at:
                return f"{self.nth(i)} would be answered in round {end}, in time: dropped for nothing"
        if at is not None and id(got) in kept:
            return f"{self.name(got)} is still in q too: a worker would serve it twice"
        stale = [i for i in range(n) if end > self.due(i) and id(self.calls[i]) in kept]
        if stale:
            return f"{self.nth(stale[0])} cannot finish in time and is still in q: the drop takes it off"
        older = [i for i in fits if id(self.calls[i]) in kept]
        if older and (at is None or older[0] < at):
            return f"{self.nth(older[0])} is the first that can finish in time (round {end})"
        stranger = [x for x in left if self.at(x) is None]
        if stranger:
            return f"q holds {short_repr(stranger[0])}, which was not in it"
        return "q's calls are left in another order"

    def changed(self) -> str | None:
        """The first field of a call the step changed, as a line; None when it changed none."""
        for call, was in zip(self.calls, self.fields, strict=True):
            now = _fields(call)
            if now != was:
                name, old, new = next(x for x in zip(FIELDS, was, now, strict=True) if x[1] != x[2])
                return (
                    f"it changed {self.name(call)}'s {name} from {_shown(name, old)} to {_shown(name, new)}"
                )
        return None


def _shown(field: str, value: object) -> str:
    named = STATES.get(value) if field == "state" and isinstance(value, int) else None
    return named or short_repr(value)


# --- one step, checked ------------------------------------------------------------------------------


def _same(left: Sequence[object], want: Sequence[Call]) -> bool:
    return len(left) == len(want) and all(a is b for a, b in zip(left, want, strict=True))


def checked_step(step: Step, queue: deque[Call], now: int, service: int) -> tuple[Call | None, list[Call]]:
    """Run ``step`` on ``queue`` and compare what it did with the course's step: (the call it took or
    None, the calls it dropped), or :class:`Broke` naming what differs and a replay line."""
    seen = Before.of(queue, now, service)
    calls = seen.calls
    i = course_takes(calls, now, service)
    want, want_left = (calls[i] if i < len(calls) else None), calls[i + 1 :]

    def broke(got: str, why: str = "") -> Broke:
        expected = f"where the deadline drop {seen.did(want, want_left, course=True)}"
        return Broke(seen.case(step), got, expected + (f": {why}" if why else ""), seen.replay(step))

    got, fault = returned(traced, step, queue, now, service)
    if fault is not None:
        raise broke(fault)
    if got is not None and seen.at(got) is None:
        raise broke(f"it returned {seen.name(got)}, not a call from q or None")
    changed = seen.changed()
    if changed is not None:
        raise broke(changed, "it changes no call (the dependency tells a dropped call's caller itself)")
    left = list(queue)
    if got is not want or not _same(left, want_left):
        raise broke(f"it {seen.did(got, left)}", seen.why(got, left))
    return want, calls[:i]


@dataclass(frozen=True)
class Replayed:
    """What :func:`replay_step` found, shown as lines in a cell."""

    ok: bool
    text: str

    def __repr__(self) -> str:
        return self.text


def replay_step(step: Step, deadlines: Iterable[object], now: object, service: object) -> Replayed:
    """Run ``step`` once on :func:`queue_of` ``(deadlines, now)`` beside the course's deadline drop."""
    t, s = as_int(now, "now"), as_int(service, "service")
    queue = queue_of(deadlines, t)
    seen = Before.of(queue, t, s)
    try:
        took, dropped = checked_step(step, queue, t, s)
    except Broke as broke:
        return Replayed(False, f"{broke.case}:\n  {broke.got}\n  {broke.expected}")
    left = seen.calls[len(dropped) + 1 :] if took is not None else []
    return Replayed(True, f"{seen.case(step)}:\n  it {seen.did(took, left)}, as the deadline drop does")


# --- the properties ---------------------------------------------------------------------------------

NEAR = TIMEOUT + 2  # a call's time left drawn as NEAR - 1 .. NEAR + 1 is service - 1 .. service + 1


def scenarios() -> st.SearchStrategy[Scenario]:
    """``(deadlines, now, service)``: service 1 .. 45 rounds (past the 30-round timeout a third of the
    time); up to 10 calls, each with its time left drawn from 90 rounds past its deadline to the 30 of a
    call made now, or just around ``service`` (answered exactly at its deadline, or one round late); and
    up to 150 more spread over those 120 rounds."""
    left = st.lists(st.integers(TIMEOUT - OLDEST, NEAR + 1), max_size=10)
    spread = st.one_of(st.just(0), st.integers(1, 150))
    now = st.integers(OLDEST, OLDEST + 4000)
    return st.tuples(st.integers(1, TIMEOUT + 15), left, spread, now).map(_scenario)


def _scenario(drawn: tuple[int, list[int], int, int]) -> Scenario:
    service, left, spread, now = drawn
    lefts = [min(max(r - NEAR + service, TIMEOUT - OLDEST), TIMEOUT) if r > TIMEOUT else r for r in left]
    many = [now + TIMEOUT - OLDEST + i * OLDEST // spread for i in range(spread)]
    return tuple(sorted([*(now + r for r in lefts), *many])), now, service


def _one(step: Step, scenario: Scenario) -> None:
    deadlines, now, service = scenario
    checked_step(step, queue_of(deadlines, now), now, service)


class _Failed(Exception):
    """A step of the storm broke the contract: (the Broke, the step's scenario)."""


@dataclass(frozen=True)
class StormReplay:
    """Section 2's storm with a step in every worker: its ``run`` (None: a step broke the contract,
    ``broke``), and how many ``steps`` were checked."""

    run: QueueRun | None
    steps: int
    broke: Broke | None


def judged_storm(step: Step) -> StormReplay:
    """Section 2's storm with ``step`` in every worker, each of its steps checked as :func:`checked_step`
    checks one (the course's :func:`take_next` replays ``with_fix(STORM, "deadline drop")`` round for
    round)."""
    seen = [0]  # steps checked

    class Judged(Server):
        def serve(self, t: int, calls: list[Call], service: int) -> tuple[list[Call], list[Call]]:
            dropped: list[Call] = []
            self.take(t, service, dropped)
            for call in calls:
                call.sent = call.queued = t
                self.queue.append(call)
                if self.busy < self.settings.workers:  # the queue was empty: a free worker takes it now
                    self.take(t, service, dropped)
            if not self.queue:
                self.emptied = t
            return [], dropped  # the storm's queue has no bound: nothing refused

        def take(self, t: int, service: int, dropped: list[Call]) -> None:
            while self.busy < self.settings.workers and self.queue:
                seen[0] += 1
                before = list(self.queue)
                try:
                    got, gone = checked_step(step, self.queue, t, service)
                except Broke as broke:
                    raise _Failed(broke, (tuple(c.deadline for c in before), t, service)) from None
                dropped.extend(gone)
                if got is None:
                    return
                self.busy += 1
                self.ends[t + service].append(got)

    try:
        played = run(STORM, Judged)
    except _Failed as failed:
        return StormReplay(None, seen[0], _in_storm(step, *failed.args))
    return StormReplay(played, seen[0], None)


def _in_storm(step: Step, broke: Broke, scenario: Scenario) -> Broke:
    """The storm's failing step, said on the fewest of its queue's first calls that break it on a fresh
    queue; or, when none does (the step depends on its earlier calls), as it happened."""
    deadlines, now, service = scenario
    where = f"in section 2's storm (no fix, your step in every worker), round {now}"
    for k in range(1, len(deadlines) + 1):
        try:
            _one(step, (deadlines[:k], now, service))
        except Broke as small:
            first = (
                f"its queue's first {k} of {len(deadlines)} calls alone"
                if k < len(deadlines)
                else "its queue"
            )
            return Broke(f"{where}, {first}: {small.case}", small.got, small.expected, small.replay)
    fresh = (
        " (on a fresh queue of the same calls it does as the course does: it depends on its earlier calls)"
    )
    return Broke(f"{where}: {broke.case}", broke.got, broke.expected + fresh, None)


def verdict(step: Step) -> Verdict:
    """The smallest case where ``step`` breaks the contract, or what was checked."""
    on_grid, steps = grid(), 0
    with untraced():  # but the learner's step
        prop = functools.partial(_one, step)
        broke = first_broken(prop, on_grid) or search(prop, scenarios(), examples=EXAMPLES)
        if broke is None:
            storm = judged_storm(step)
            steps, broke = storm.steps, storm.broke
    if broke is not None:
        return Verdict.broke(broke)
    return Verdict.right(
        len(on_grid) + EXAMPLES,
        [
            "each step drops the calls at q's front that cannot finish by their deadline, returns the first "
            "that can (answered exactly at its deadline is in time) or None when none can (q empty, all "
            "expired, service past the timeout), leaves the calls behind it in order and changes no call, "
            "as the course's deadline drop does",
            f"then section 2's storm to round {STORM.rounds} with it in every worker: its {steps} steps each "
            "as the course's",
        ],
    )
