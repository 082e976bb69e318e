"""A round's admission of the learner's own, judged by replaying lesson 000's days (notebook 02, exercise 4).

The learner writes ``admit(order, free, room) -> (tracking, event)``: the round's arrivals (``order``,
their flows shuffled: 0 tracking, 1 event), the pool's free slots and each flow's room under its limit
(``(tracking, event)``) in, the slots each flow takes out. :func:`verdict` plays lesson 000's seeded
days (:data:`DAYS`: the bulkhead 24/8's healthy and slowdown days, the single pool's slowdown day)
through the course's own rounds (:func:`~bulkhead_lab.pool.rounds.run_through`) with the learner's
admission swapped in for notebook 02's ``admit``. Each round it asks the course's own admission too
(:func:`lesson_takes`, notebook 02's cell run on a scratch pool), and names the first day, round and
flow where the two differ; a replay that never differs must end on the lesson's counters, which it
quotes. Pure and deterministic: the course runs it in a trial, under a deadline.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bulkhead_lab.pool import arrivals, rounds
from bulkhead_lab.pool.params import LESSON_SPLIT, MODES, Counters, Params, split_label
from bulkhead_lab.pool.rounds import Pool, Slots

Takes = Callable[[tuple[int, ...], int, tuple[int, int]], object]  # (order, free, room) -> (tracking, event)
DAYS = (*(Params(split=LESSON_SPLIT, mode=mode) for mode in MODES), Params(split=None, mode="slowdown"))
FLOWS = ("tracking", "events")


class Broken(Exception):
    """A round differed from the lesson's, or the learner's function raised; the message says where."""


def lesson_takes(order: tuple[int, ...], free: int, room: tuple[int, int]) -> tuple[int, int]:
    """The course's own admission (notebook 02's ``admit``, run on a scratch pool of ``free`` slots whose
    flows have ``room`` left): the slots each flow takes, in the exercise's signature."""
    scratch = Pool(free, [Slots(room[0], 0, 0), Slots(room[1], 0, 0)])  # no calendar: nothing comes free
    return rounds.admit(scratch, 0, order, order.count(0), order.count(1))


def _read(got: object, day: str, t: int) -> tuple[int, int]:
    if isinstance(got, (tuple, list)) and len(got) == 2:
        tracking, event = got
        if all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (tracking, event)):
            return tracking, event
    raise Broken(f"{day}, round {t}: it returned {repr(got)[:30]}, not two slot counts (tracking, event).")


def _differs(day: str, t: int, order: tuple[int, ...], free: int, room: tuple[int, int],
             got: tuple[int, int], want: tuple[int, int]) -> str:  # fmt: skip
    f = 0 if got[0] != want[0] else 1
    arrived = order.count(f)
    why = f"{arrived} arrived, {free} slots free, {room[f]} under its limit"
    if got[f] > arrived:
        why += f": only {arrived} arrived"
    elif got[0] + got[1] > free:
        why += f": you admitted {got[0] + got[1]} in all, past the {free} free slots"
    elif got[f] > room[f]:
        why += ": past its compartment's limit"
    elif sum(got) == sum(want) and got[0] <= room[0] and got[1] <= room[1]:
        why += ": as many slots in all, shared out otherwise; the shuffled order decides who gets the last"
    elif got == (0, 0) and (len(order) > free or any(order.count(g) > room[g] for g in (0, 1))):
        why += ": the round did not all fit and you dropped all of it; the lesson's fills what it can first"
    return (
        f"{day}, round {t}, {FLOWS[f]}: you admitted {got[f]}, the lesson's round admits {want[f]} ({why})."
    )


def _apply(pool: Pool, t: int, order: tuple[int, ...], free: int, got: tuple[int, int]) -> None:
    """What notebook 02's ``admit`` does with a round's slot counts: the first arrivals of each flow take
    them, each refusal counts the slots standing free beside it, each taken slot comes free a hold later."""
    taken = [0, 0]
    for f in order:
        if taken[f] < got[f]:
            taken[f] += 1
            free -= 1
        else:
            pool.idle += free
    for f, slots in enumerate(pool.flows):
        slots.dropped += order.count(f) - got[f]
        slots.busy += got[f]
        if t + slots.hold < len(slots.ends):
            slots.ends[t + slots.hold] += got[f]


def replay(takes: Takes, params: Params) -> Counters:
    """``params``' day through the course's rounds with ``takes`` admitting; :class:`Broken` at the first
    round it differs from the lesson's (or raises)."""
    day = f"{split_label(params.split)}, {params.mode} day"

    def admits(pool: Pool, t: int, order: tuple[int, ...], n_tracking: int, n_event: int) -> tuple[int, int]:
        tracking, event = pool.flows
        free = pool.total - tracking.busy - event.busy
        room = (tracking.limit - tracking.busy, event.limit - event.busy)
        want = lesson_takes(order, free, room)
        try:
            said = takes(order, free, room)
        except Exception as exc:
            why = (str(exc).splitlines() or [""])[0]
            raise Broken(f"{day}, round {t}: admit({order}, {free}, {room}) raised "
                         f"{type(exc).__name__}{': ' + why if why else ''}.") from None  # fmt: skip
        got = _read(said, day, t)
        if got != want:
            raise Broken(_differs(day, t, order, free, room, got, want))
        _apply(pool, t, order, free, got)
        return got

    return rounds.run_through(params, rounds.lesson_pool(params), admits, stream=arrivals.stream(params))


@dataclass(frozen=True)
class Verdict:
    ok: bool
    line: str  # what broke, or the counters the replay ended on


def verdict(takes: Takes, days: Sequence[Params] = DAYS) -> Verdict:
    """Every day of ``days`` replayed with ``takes``: the first round that differs, or the counters."""
    runs: dict[Params, Counters] = {}
    for params in days:
        try:
            runs[params] = replay(takes, params)
        except Broken as broken:
            return Verdict(False, str(broken))
        if runs[params] != rounds.counters(params):  # cannot be, when every round matched: said, not hidden
            day = f"{split_label(params.split)}, {params.mode} day"
            return Verdict(False, f"{day}: every round matched, yet the counters differ: {runs[params]} "
                           f"against {rounds.counters(params)}.")  # fmt: skip
    bulk = " and ".join(str(runs[p].tracking_dropped) for p in days if p.split == LESSON_SPLIT)
    single = " and ".join(str(runs[p].tracking_dropped) for p in days if p.split is None)
    idle = runs[days[0]].idle
    modes = " and ".join(MODES)
    return Verdict(True, f"under {split_label(LESSON_SPLIT)} the tracking flow drops {bulk} on the {modes} "
                   f"days, with {idle} idle slots beside the healthy day's refusals; in one pool the "
                   f"slowdown drops {single}.")  # fmt: skip
