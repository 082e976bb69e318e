"""A learner's soft partition, judged by behaviour: lesson 000's healthy and slowdown days replayed
with the learner's admission rule (notebook 09's exercise 4).

A *partition* is ``partition(reserved, total) -> admits``, like
:func:`~bulkhead_lab.compartments.partitions.soft_partition`: ``admits(flow, busy)`` says whether a
call of ``flow`` (0 tracking, 1 events) may take a slot while each flow holds ``busy[flow]``.
:func:`verdict` builds it for :data:`RESERVED` of lesson 000's 32 slots (the notebook's 7/8 of 24/8,
4 shared), plays both days with it (:func:`~bulkhead_lab.compartments.partitions.by_rule`, the
lesson's own rounds), and compares every answer with the course's rule in the same state:

- the first answer that differs is named, with its day and round: a call let into *a reserve another
  flow used* (the flow's own reserve full, the shared slots all borrowed), a call refused while its own
  reserve had a free slot, or *a shared slot never lent* (refused while the overflow had one free);
- a rule that answers, all day, as ``busy[flow] < reserved[flow]`` is named a hard split (no sharing),
  one that answers as ``sum(busy) < total`` a single pool (no reserve);
- the verdict: each flow's drops on each day within :data:`TOLERANCE` of the course's rule's.

Letting a call in while every slot is busy, raising, or answering anything but True or False ends
the replay with one line. Pure: the lesson's seeded days, the same rule, the same verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from bulkhead_lab.compartments import partitions
from bulkhead_lab.compartments.stops import DAYS
from bulkhead_lab.pool import arrivals
from bulkhead_lab.pool.params import Counters
from bulkhead_lab.pool.rounds import Admit, Pool, run_through

Partition = Callable[[tuple[int, ...], int], object]  # (reserved, total) -> admits(flow, busy)
RESERVED, TOTAL = (21, 7), 32  # section 1's example: 7/8 of 24/8 reserved, 4 slots shared
TOLERANCE = 0.05  # each flow's drops on each day may be this share away from the course's rule's
FLOWS = ("tracking", "event")


class Broken(Exception):
    """The rule raised, answered something else than True or False, or overfilled the pool."""


@dataclass(frozen=True)
class Verdict:
    """A partition's verdict: ``ok`` (the drops are the course's) and the one line that says why."""

    ok: bool
    says: str


@dataclass
class Notes:
    """What the replay saw: the first answer unlike the course's rule's, and which simpler rule matched."""

    first: str | None = None
    answers: int = 0
    differ: int = 0  # answers unlike the course's rule's
    hard: bool = True  # every answer was busy[flow] < reserved[flow]
    single: bool = True  # every answer was sum(busy) < total
    day: str = ""
    round: int = 0
    drops: dict[str, Counters] = field(default_factory=dict)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 30 else text[:27] + "..."


def _rule(partition: Partition) -> Callable[[int, list[int]], object]:
    name = getattr(partition, "__name__", "your function")
    try:
        admits = partition(RESERVED, TOTAL)
    except Exception as exc:  # the learner's code may raise anything: it is the verdict
        why = (str(exc).splitlines() or [""])[0]
        raise Broken(
            f"{name}({RESERVED}, {TOTAL}) raised {type(exc).__name__}{': ' + why if why else ''}."
        ) from None
    if not callable(admits) or isinstance(admits, type):
        raise Broken(
            f"{name}({RESERVED}, {TOTAL}) returned {_shown(admits)}, not a function admits(flow, busy)."
        )
    return admits


def _differs(flow: int, busy: list[int], said: bool) -> str:
    """Why the course's rule answers otherwise in this state (on the course's own path so far)."""
    other, shared = 1 - flow, TOTAL - sum(RESERVED)
    borrowed = sum(max(0, b - r) for b, r in zip(busy, RESERVED, strict=True))
    held = f"{FLOWS[0]} held {busy[0]}, events {busy[1]}"
    if said:
        return (
            f"it let a{'n' * flow} {FLOWS[flow]} call take a slot of {FLOWS[other]}'s reserve ({held}; "
            f"all {shared} shared slots borrowed): a reserve another flow used."
        )
    if busy[flow] < RESERVED[flow]:
        return (
            f"it refused a{'n' * flow} {FLOWS[flow]} call while its own reserve had a free slot ({held}, "
            f"of {RESERVED[0]} and {RESERVED[1]} reserved)."
        )
    return (
        f"it refused a{'n' * flow} {FLOWS[flow]} call while {shared - borrowed} of the {shared} shared "
        f"slots {'was' if shared - borrowed == 1 else 'were'} free ({held}): a shared slot never lent."
    )


def _watched(admits: Callable[[int, list[int]], object], notes: Notes) -> partitions.Rule:
    """``admits`` as the replay's rule: each answer checked, and compared with the course's rule."""
    own = partitions.soft_partition(RESERVED, TOTAL)
    name = getattr(admits, "__name__", "admits")

    def rule(flow: int, busy: list[int]) -> bool:
        where = f"in round {notes.round} of the {notes.day} day"
        try:
            said = admits(flow, list(busy))
        except Exception as exc:  # the learner's code may raise anything: it is the verdict
            why = (str(exc).splitlines() or [""])[0]
            raise Broken(
                f"{where} {name}({flow}, {busy}) raised {type(exc).__name__}{': ' + why if why else ''}."
            ) from None
        if not isinstance(said, bool):
            raise Broken(f"{where} {name}({flow}, {busy}) returned {_shown(said)}, not True or False.")
        notes.answers += 1
        notes.hard &= said == (busy[flow] < RESERVED[flow])
        notes.single &= said == (sum(busy) < TOTAL)
        if said != own(flow, busy):
            notes.differ += 1
            notes.first = notes.first or f"{where} {_differs(flow, busy, said)}"
        if said and sum(busy) >= TOTAL:
            first = notes.first if notes.differ > 1 else None
            held = f"{FLOWS[0]} held {busy[0]}, events {busy[1]}"
            raise Broken(
                f"{first + ' Then ' if first else ''}{where} it let a{'n' * flow} {FLOWS[flow]} call in "
                f"with all {TOTAL} slots busy ({held}): there is no slot to take."
            )
        return said

    return rule


def _numbered(inner: Admit, notes: Notes) -> Admit:
    """``inner``, noting each round's number for the lines that name it."""

    def admits(pool: Pool, t: int, order: tuple[int, ...], n_tracking: int, n_event: int) -> tuple[int, int]:
        notes.round = t
        return inner(pool, t, order, n_tracking, n_event)

    return admits


def replay(partition: Partition) -> Notes:
    """Both days with ``partition``'s rule for :data:`RESERVED` (raises :class:`Broken`)."""
    notes = Notes()
    for day, params in DAYS.items():
        notes.day = day
        admits = _numbered(partitions.by_rule(_watched(_rule(partition), notes)), notes)
        pool = partitions.rule_pool(params)
        notes.drops[day] = run_through(params, pool, admits, stream=arrivals.stream(params))
    return notes


def _drops(c: Counters) -> tuple[int, int]:
    return c.tracking_dropped, c.event_dropped


def _compared(notes: Notes) -> tuple[bool, str]:
    """Whether each flow's drops on each day are within :data:`TOLERANCE` of the course's rule's, and
    the drops in words, the course's in brackets."""
    close, parts = True, []
    for day, params in DAYS.items():
        mine, own = _drops(notes.drops[day]), _drops(partitions.soft_counters(params, RESERVED))
        close &= all(abs(m - o) <= TOLERANCE * o for m, o in zip(mine, own, strict=True))
        parts.append(f"on the {day} day {mine[0]} tracking and {mine[1]} event calls ({own[0]} and {own[1]})")
    return close, "it drops " + ", ".join(parts) + ", the course's soft partition's in brackets"


def verdict(partition: Partition) -> Verdict:
    """What ``partition``'s rule does on lesson 000's two days, against the course's rule, in one line."""
    try:
        notes = replay(partition)
    except Broken as broken:
        return Verdict(False, str(broken))
    close, drops = _compared(notes)
    shared = TOTAL - sum(RESERVED)
    if close:
        same = (
            f"{notes.differ} of its {notes.answers} answers differ"
            if notes.differ
            else (f"all {notes.answers} of its answers are")
        )
        return Verdict(
            True,
            f"with {RESERVED[0]}/{RESERVED[1]} reserved and {shared} shared, {drops}: each within "
            f"{TOLERANCE:.0%}; {same} the course's rule's.",
        )
    kind = ""
    if notes.single:
        kind = "a single pool: no reserve is kept, any call takes any free slot; "
    elif notes.hard:
        kind = f"a hard split: the {shared} shared slots are never lent, to either flow; "
    return Verdict(
        False, f"{kind}{notes.first or ''} Over both days {drops}: not all within {TOLERANCE:.0%}."
    )
