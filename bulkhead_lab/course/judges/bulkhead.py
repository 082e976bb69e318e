"""Notebook 04's write-it-yourself bulkhead, judged by its contract over generated schedules.

The contract (section 4's prose; the course's :class:`~bulkhead_lab.live.bulkhead.Bulkhead` is its oracle):
never more than ``limit`` calls run nor ``queue`` wait; places go to the waiting calls in arrival order,
never to a newcomer (a place freed in the loop tick a newcomer arrives goes to the oldest waiter); a full
bulkhead refuses at once; a cancelled waiter leaves the line at once and costs no place; a running call
that raises anything (a BaseException too) or is cancelled gives its place back; each call returns what
its fn returned, or raises what it raised; two bulkheads at once are independent.

A *schedule* is a list of loop ticks, each a few events applied in one go: a call arrives (at ``a``, or at a
second bulkhead ``b``), a running call finishes, fails (ValueError) or is interrupted (a BaseException), a
call is cancelled. After a tick the loop settles: it runs :data:`SETTLE` steps, more than a place takes to be
handed over; after a tick marked ``/`` it runs one step only, so the next events come before what the last
ones set off has resumed. A generated schedule ends with every call finishing. The learner's bulkheads and the
course's run the same schedule side by side on one fresh loop: after every settled tick each call's state
(waiting, running, returned, raised, refused, cancelled) must be the same, no more than ``limit`` may ever
have run at once, and the calls that were waiting must have begun in the order they arrived. Each promise is
checked first on a schedule written out for it (``bulkhead_schedules.PROBES``), then on generated ones
(Hypothesis's bytes); a failing schedule is made smaller, a tick, an event or a size at a time, while it still
fails the same way, and the verdict tells it step by step with a replay line.

One leeway: a waiter handed a place, or cancelled, may count as waiting until its task resumes (asyncio's
Semaphore counts it; the course's drops it at once). So a newcomer that arrives in between may be let
wait where the course's refuses it, or refused where the course's does not if the calls that had not
begun yet filled the line as it arrived. After such a refusal the course's call is cancelled and the two
are compared on; after such a wait, that schedule is compared no further.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from hypothesis import strategies as st

from bulkhead_lab.course.judges.bulkhead_calls import Side
from bulkhead_lab.course.judges.bulkhead_schedules import (
    PROBES,
    Event,
    Plan,
    Tick,
    event_text,
    numbered,
    parse,
    plan,
    probes,
    smaller,
    written,
)
from bulkhead_lab.course.judges.contract import Broke, Verdict, error, run_loop, search
from bulkhead_lab.course.ui.trial import Fault, call, short_repr, trial
from bulkhead_lab.live.bulkhead import Bulkhead

EXAMPLES, EACH = 30, 3  # examples Hypothesis draws, schedules in each (its overhead is per example)
SCHEDULES = st.tuples(*[st.binary(min_size=14, max_size=42)] * EACH)  # each a schedule: see plan()
SETTLE = 6  # loop steps a tick settles in: a hand-over takes 3 at most in every candidate, and a wrapper more
SIMPLIFY = 0.4  # seconds spent making a failing schedule smaller, ending at the latest
LATEST = 1.5  # seconds after the check began (a trial stops the learner's code at 2 s)
PROPERTIES = (
    "never more than limit running nor queue waiting",
    "places handed to the waiting in arrival order, never to a newcomer",
    "a full bulkhead refuses at once",
    "a cancelled waiter leaves the line and costs no place",
    "a call that raises (a BaseException too) or is cancelled gives its place back",
    "each call returns its fn's result",
    "two bulkheads at once stay independent",
)


def differs(mine: Side, ours: Side) -> tuple[str, str, str] | None:
    """What the learner's did that the contract does not, what the contract does, and the kind of the
    difference (the same kind is what a simpler schedule must show); None if nothing."""
    if mine.overtime is not None:
        raise mine.overtime  # the trial's deadline passed inside the learner's code: stop here
    faulty = [c for c in mine.calls if c.fault]
    if faulty:
        return f"call {faulty[0].n}'s {faulty[0].fault}", "where execute is an async def: await it", "fault"
    if mine.over:
        return mine.over, f"where by the contract {ours.state()}", "over"
    for c, o in zip(mine.calls, ours.calls, strict=True) if mine.signature() != ours.signature() else ():
        if mine.status(c) != ours.status(o):
            return (
                f"call {c.n} {mine.words(c)} (then {mine.state()})",
                f"where by the contract call {o.n} {ours.words(o)} ({ours.state()})",
                f"{mine.status(c)} for {ours.status(o)}",
            )
    start, waited = mine.settled
    began = [n for n in mine.began[start:] if n in waited]  # since the last settled tick, of those waiting
    for box in range(len(mine.bulkheads)):
        order = [n for n in began if mine.calls[n - 1].box == box]
        if order != sorted(order):
            return (
                f"the waiting calls began{mine.at(box)} in the order {order}",
                f"where by the contract they begin first come, first served: {sorted(order)}",
                "order",
            )
    return None


def _resolve(events: Sequence[Event], ours: Side, picks: bool) -> list[Event]:
    """The events as concrete calls: a generated pick ``i`` is the i-th call (mod how many) running at the
    tick's start (finish, fail, interrupt), or waiting or running (cancel); an event with none is left out,
    as is one naming a call that is not (``picks`` False)."""
    done: list[Event] = []
    running: list[int] | None = None
    waiting: list[int] = []
    for kind, arg in events:
        if kind == "arrive" or arg == "all":
            done.append((kind, arg if kind != "arrive" or arg < len(ours.bulkheads) else 0))
        else:
            if running is None:  # as at the tick's start
                running = [c.n for c in ours.calls if c.entered and not c.left and not c.done]
                waiting = [c.n for c in ours.calls if not c.entered and not c.done and not c.tolerated]
            taken = {n for k, n in done if k != "arrive"}
            free = [n for n in (running if kind != "cancel" else sorted(running + waiting)) if n not in taken]
            if picks:
                done += [(kind, free[arg % len(free)])] if free else []
            else:  # a call named that cannot be finished (or cancelled) now is left out
                done += [(kind, arg)] if arg in free else []
    return done


def _apply(event: Event, sides: Sequence[Side]) -> None:
    kind, arg = event
    for side in sides:
        if kind == "arrive":
            side.arrive(arg)
        else:
            for n in range(1, len(side.calls) + 1) if arg == "all" else (arg,):
                side.apply(kind, n)


async def _settle() -> None:
    for _ in range(SETTLE):
        await asyncio.sleep(0)


def _match_leeway(mine: Side, ours: Side) -> int | None:
    """Cancel the course's waiting calls the learner's refused within the leeway (so the two compare on),
    and say how many; None when the two parted within it otherwise (no comparing further)."""
    allowed = []
    for c, o in [
        (c, o) for c, o in zip(mine.calls, ours.calls, strict=True) if c.seen or o.lagging or o.may_queue
    ]:
        if o.tolerated:
            continue
        if o.may_queue and ours.status(o) == "refused" and mine.status(c) in ("waiting", "running"):
            return None
        queue = ours.sizes[o.box][1]
        moving = o.lagging or c.stalled  # a waiter had a place, or had left, and had not resumed yet
        if moving and c.seen >= queue and mine.status(c) == "refused" != ours.status(o):
            allowed.append(o)
    if any(ours.status(o) != "waiting" for o in allowed):
        return None
    for o in allowed:
        o.tolerated = True
        if o.task is not None:
            o.task.cancel()
    return len(allowed)


@dataclass
class Run:
    """What a schedule did: its ticks as run (concrete calls), their texts, the first difference if any."""

    ticks: list[Tick] = field(default_factory=list)
    steps: list[tuple[str, bool]] = field(default_factory=list)  # (text, only one loop step followed)
    differs: tuple[str, str] | None = None  # what the learner's did, what the contract does
    kind: str = ""  # the kind of that difference


def _build(cls: type, planned: Plan) -> Side:
    sizes = [planned.sizes] + ([planned.twin] if planned.twin else [])
    made = [call(cls, *size) for size in sizes]  # a, then b: b's __init__ must not change a
    for bulkhead in made:
        if not callable(getattr(bulkhead, "execute", None)):
            raise Fault(f"{cls.__name__} has no execute(fn) method.")
    return Side(made, sizes)


async def _drive(cls: type, planned: Plan, texts: bool) -> Run:
    """Run ``planned`` through ``cls``'s bulkheads and the course's side by side, tick by tick (with each
    tick's text when ``texts``), up to the first difference."""
    done = Run()
    sizes = [planned.sizes] + ([planned.twin] if planned.twin else [])
    ours = Side([Bulkhead(*size) for size in sizes], sizes, oracle=True)
    mine = _build(cls, planned)
    said: dict[int, str] = {}
    for i, (events, step) in enumerate(planned.ticks):
        concrete = _resolve(events, ours, planned.picks)
        if not concrete:
            continue
        step = step and i < len(planned.ticks) - 1  # the last tick settles
        done.ticks.append((tuple(concrete), step))
        for event in concrete:
            _apply(event, (ours, mine))
        await (asyncio.sleep(0) if step else _settle())
        matched = _match_leeway(mine, ours)
        if matched is None:
            break
        if matched and not step:
            await _settle()  # the course's calls the leeway cancelled leave its line
        if not step:
            found = differs(mine, ours)
            done.differs, done.kind = (found[:2], found[2]) if found else (None, "")
            mine.settled = (len(mine.began), {c.n for c in mine.calls if not c.entered and not c.done})
        if texts:
            done.steps.append((_tick_text(concrete, mine, said, step, done.differs is not None), step))
        if done.differs is not None:
            _apply(("finish", "all"), (mine,))  # every call ends as it would, not cancelled with the loop
            await _settle()
            break
    return done


def _tick_text(events: Sequence[Event], mine: Side, said: dict[int, str], step: bool, last: bool) -> str:
    """The tick's events (an arrival named by its call's number), and then (unless ``step`` or ``last``)
    what changed since the last settled tick."""
    arrivals = iter([c.n for c in mine.calls if c.n not in said])
    texts = [event_text(e, len(mine.bulkheads), next(arrivals) if e[0] == "arrive" else 0) for e in events]
    changes = []
    for c in mine.calls:
        now, before = mine.status(c), said.get(c.n)
        if step:
            said.setdefault(c.n, "new")
            continue
        if now != before and now in ("waiting", "running", "refused"):
            verb = {"waiting": "waits", "running": "runs", "refused": "is refused"}[now]
            changes.append(f"call {c.n} {'starts' if before == 'waiting' else verb}")
        said[c.n] = now
    text = ", ".join(texts) + (" in one loop tick" if len(texts) > 1 else "")
    return text if step or last or not changes else f"{text} ({', '.join(changes)})"


def _case(cls: type, planned: Plan, done: Run) -> Broke:
    name, (limit, queue), twin = cls.__name__, planned.sizes, planned.twin
    header = f"a = {name}{planned.sizes}, b = {name}{twin}" if twin else f"{name}{planned.sizes}"
    got, expected = done.differs or ("", "")
    b = f", twin={twin}" if twin else ""
    replay = f'exercises.replay({name}, {limit}, {queue}, "{written(done.ticks)}"{b})'
    return Broke(f"{header}, step by step: {'; '.join(numbered(done.steps))}", got, expected, replay)


def run(cls: type, planned: Plan, texts: bool = False) -> Run:
    """``planned`` on a fresh loop (:func:`~.contract.run_loop`)."""
    return run_loop(lambda: _drive(cls, planned, texts))


def _fails(cls: type, planned: Plan) -> str:
    """How the learner's bulkhead parts from the contract on ``planned`` (the kind of the difference, or
    "fault" when it cannot be built for it); "" when it does not."""
    try:
        return run(cls, planned).kind
    except Fault:
        return "fault"


def _simplest(cls: type, planned: Plan, ended: float) -> Plan:
    """A schedule as simple as can be found by ``ended`` (a time.monotonic()) that still fails as failing
    ``planned`` does: its ticks as run, up to the first difference, then one simplification after another
    while one still fails so."""
    if planned.picks:
        planned = Plan(planned.sizes, planned.twin, tuple(run(cls, planned).ticks))
    kind = _fails(cls, planned)
    simpler = bool(kind)  # (a schedule that does not fail again is left as it is)
    while simpler and time.monotonic() < ended:
        simpler = False
        for candidate in smaller(planned):
            if time.monotonic() > ended:
                break
            if candidate.ticks and _fails(cls, candidate) == kind:
                planned, simpler = candidate, True
                break
    return planned


def _broke(cls: type, planned: Plan) -> Broke:
    """What failing ``planned`` says: its steps, what the learner's did, what the contract does, a replay."""
    try:
        done = run(cls, planned, texts=True)
    except Fault as fault:  # it could not be built at these sizes, or a scenario never ended
        made = f"{cls.__name__}{planned.sizes}" + (f", {cls.__name__}{planned.twin}" if planned.twin else "")
        said = str(fault).rstrip(".")
        return Broke(f"with {made}", said, "where limits 1..4 and queues 0..4 work")
    if done.differs is None:  # it failed once, and not again
        done.differs = (
            "it failed once and not when run again",
            "where the contract's calls depend on the schedule alone (keep no state on the class, use no "
            "randomness)",
        )
    return _case(cls, planned, done)


def judge(candidate: object) -> Verdict:
    """The learner's class against the contract: each promise's probe, then generated schedules (run it
    in a trial); a failure is made as simple as :data:`SIMPLIFY` seconds can (and :data:`LATEST` allow)."""
    if not isinstance(candidate, type):
        raise Fault(f"{short_repr(candidate)} is not a class: pass the class itself, e.g. check(MyBulkhead).")
    cls, ended = candidate, time.monotonic() + LATEST
    run(cls, Plan((1, 0), None, ()))  # one built: a class that cannot be is one line
    for probe in probes():
        if _fails(cls, probe):
            return Verdict.broke(_broke(cls, _simplest(cls, probe, min(ended, time.monotonic() + SIMPLIFY))))
    failed: list[Plan] = []
    ran = 0

    def holds(codes: tuple[bytes, ...]) -> None:
        nonlocal ran
        for planned in (plan(code) for code in codes):
            if len(planned.ticks) > 1:  # a schedule with a call in it
                ran += 1
                if _fails(cls, planned):
                    failed.append(planned)
                    raise Broke("", "", "")  # search stops at the first (see _simplest)

    if search(holds, SCHEDULES, examples=EXAMPLES, shrink_budget=0.0) is not None:
        return Verdict.broke(_broke(cls, _simplest(cls, failed[0], min(ended, time.monotonic() + SIMPLIFY))))
    return Verdict(
        True, f"checked {len(PROBES)} schedules written out and {ran} generated: {'; '.join(PROPERTIES)}."
    )


def replay(cls: type, limit: int, queue: int, schedule: str, twin: tuple[int, int] | None = None) -> None:
    """Print ``schedule`` (see :func:`parse`) run through ``cls(limit, queue)`` (and ``cls(*twin)`` as b)
    beside the course's bulkhead, tick by tick, up to the first where the two differ."""
    try:
        planned = Plan((limit, queue), twin, parse(schedule))
    except ValueError as wrong:
        print(f"{schedule!r}: {wrong}.")
        return
    outcome = trial(lambda: run(cls, planned, texts=True))
    print(outcome.printed, end="")  # what the learner's code printed, which a replay is for seeing
    name = getattr(cls, "__name__", short_repr(cls))
    name = f"{name}{planned.sizes}" + (f", b = {name}{twin}" if twin else "")
    done = outcome.value
    if not isinstance(done, Run):
        fault = isinstance(outcome.error, Fault)
        why = (
            "it was still running after 2 s"
            if outcome.timed_out
            else str(outcome.error).rstrip(".")
            if fault
            else error(outcome.error)
        )
        print(f"{name}: {why}.")
        return
    print(f"{name}, step by step:", *numbered(done.steps), sep="\n")
    if done.differs is None:
        print("Every step as the contract has it.")
        return
    got, expected = done.differs
    expected = expected.removeprefix("where by the contract ").removeprefix("where ")
    print(f"   yours: {got}\n   the contract: {expected}")
