"""Notebook 02's exercise 4: does the learner's ``admit(order, free, room)`` make a round's admission?

The contract (notebook 02's prose): ``order`` is a round's arrivals, their flows in the shuffled order
(``0`` tracking, ``1`` event); ``free`` the pool's free slots; ``room`` = ``(tracking, event)``, how many
more slots each flow may take under its limit. Walking the order, an arrival takes a slot when its flow
has room left and a slot is free, else it is dropped; the function returns ``(tracking, event)``, the
slots each flow took, two whole numbers (numpy's too) in a tuple, a list or an array. The oracle is the
course's own admission, notebook 02's ``# @save`` cell :func:`bulkhead_lab.pool.rounds.admit`, asked the
same question on a scratch pool (:func:`lesson_takes`).

:func:`check` asks the learner's function every round of :data:`SCENARIOS`, generated once by a seeded
generator (empty rounds, rounds of one flow, up to 40 arrivals; no free slot, no room, more arrivals than
either; the bulkhead's shape, room adding up to the free slots, the single pool's, room past them, and
any), then the rounds of lesson 000's three days around the slowdown (:data:`WINDOW`), in order. When one
differs, Hypothesis (:func:`~bulkhead_lab.course.judges.contract.search` over :data:`ROUNDS`) looks for the
smallest round that does, named as a call to paste, with what came back, what the round admits, and each
arrival's fate in order.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from numbers import Integral, Real

from hypothesis import strategies as st

from bulkhead_lab.course.judges.contract import Broke, KeptState, Verdict, named, returned, search
from bulkhead_lab.course.ui.trial import a_function, short_repr
from bulkhead_lab.pool import arrivals, rounds
from bulkhead_lab.pool.params import LESSON_SPLIT, MODES, Params, split_label
from bulkhead_lab.pool.rounds import Pool, Slots

LISTED = 400  # generated rounds every check asks, drawn once
EXAMPLES = 100  # rounds Hypothesis draws to find the smallest failing one, once one fails
SHRINK_BUDGET = 0.4  # seconds Hypothesis may spend making it smaller
MOST = 40  # the most arrivals, free slots or room a generated round has
DAYS = (*(Params(split=LESSON_SPLIT, mode=mode) for mode in MODES), Params(split=None, mode="slowdown"))
WINDOW = range(990, 1100)  # the lesson's rounds asked of each day: the slowdown starts at round 1000
FLOWS = ("tracking", "event")


def lesson_takes(order: tuple[int, ...], free: int, room: tuple[int, int]) -> tuple[int, int]:
    """The course's own admission (notebook 02's ``admit``, run on a scratch pool of ``free`` slots whose
    flows have ``room`` left): the slots each flow takes, in the exercise's signature."""
    scratch = Pool(free, [Slots(room[0], 0, 0), Slots(room[1], 0, 0)])  # no calendar: nothing comes free
    return rounds.admit(scratch, 0, order, order.count(0), order.count(1))


@dataclass(frozen=True)
class Round:
    """One question: a round's ``order`` of arrivals, the pool's ``free`` slots, each flow's ``room``;
    ``where`` names a lesson's round (its day and number), empty for a generated one."""

    order: tuple[int, ...]
    free: int
    room: tuple[int, int]
    where: str = ""

    def call(self, name: str) -> str:
        return f"{name}({self.order!r}, {self.free!r}, {self.room!r})"

    @property
    def takes(self) -> tuple[int, int]:
        return lesson_takes(self.order, self.free, self.room)


def _round(drawn: tuple[int, int, int, int, int]) -> Round:
    """A round from flat draws (cheap to draw and to shrink): ``n`` arrivals whose flows are the low bits
    of ``flows`` (1 an event), the free slots and each flow's room."""
    n, flows, free, tracking, event = drawn
    return Round(tuple((flows >> i) & 1 for i in range(n)), free, (tracking, event))


COUNT = st.integers(0, MOST)
ROUNDS = st.tuples(COUNT, st.integers(0, 2**MOST - 1), COUNT, COUNT, COUNT).map(_round)


def _generated(rng: random.Random) -> Round:
    """A round: up to 12 arrivals (one in six times up to 40), one flow's share of them 0 to 1; free slots
    often fewer than the arrivals; room shaped as the bulkhead's (adding up to the free slots), the single
    pool's (each past them) or any."""
    n = rng.randint(0, MOST) if rng.random() < 1 / 6 else rng.randint(0, 12)
    share = rng.choice((0.0, 0.2, 0.5, 0.8, 1.0))
    order = tuple(0 if rng.random() < share else 1 for _ in range(n))
    free = rng.randint(0, MOST) if rng.random() < 0.2 else rng.randint(0, n + 2)
    shape = rng.choice(("bulkhead", "single", "any"))
    if shape == "bulkhead":
        tracking = rng.randint(0, free)
        return Round(order, free, (tracking, free - tracking))
    if shape == "single":
        return Round(order, free, (free + rng.randint(0, 8), free + rng.randint(0, 8)))
    return Round(order, free, (rng.randint(0, n + 2), rng.randint(0, n + 2)))


def listed(count: int = LISTED, seed: int = 36) -> tuple[Round, ...]:
    """The boundaries (no arrivals, no free slot, no room), then ``count`` rounds drawn by a seeded
    generator (:func:`_generated`), the same every run."""
    rng = random.Random(seed)
    edges = (
        Round((), 0, (0, 0)), Round((), 3, (2, 1)), Round((0,), 0, (1, 1)), Round((1,), 1, (1, 0)),
        Round((0, 1), 1, (1, 1)), Round((1, 0), 1, (1, 1)), Round((0, 0, 1), 3, (1, 2)),
        Round((1, 1, 0, 0), 2, (32, 32)), Round((0,) * 10, 32, (24, 8)), Round((1,) * 10, 8, (0, 8)),
    )  # fmt: skip
    return (*edges, *(_generated(rng) for _ in range(count)))


SCENARIOS = listed()


class _Enough(Exception):
    """Ends a recorded day once its window has passed."""


@functools.cache
def lesson_rounds() -> tuple[Round, ...]:
    """The rounds of :data:`WINDOW` on each of :data:`DAYS`, as the lesson plays them: the question each
    round asks its admission, in order (computed once, on the first check)."""
    asked: list[Round] = []
    for params in DAYS:
        day = f"{split_label(params.split)}, {params.mode} day"

        def recording(
            pool: Pool, t: int, order: tuple[int, ...], n_tracking: int, n_event: int, day: str = day
        ) -> tuple[int, int]:
            if t in WINDOW:
                tracking, event = pool.flows
                free = pool.total - tracking.busy - event.busy
                room = (tracking.limit - tracking.busy, event.limit - event.busy)
                asked.append(Round(order, free, room, f"{day}, round {t}"))
            if t >= WINDOW.stop:
                raise _Enough
            return rounds.admit(pool, t, order, n_tracking, n_event)

        try:
            rounds.run_through(params, rounds.lesson_pool(params), recording, stream=arrivals.stream(params))
        except _Enough:
            pass
    return tuple(asked)


class Wrong(Broke):
    """A round the learner's function got wrong: ``pair`` is what it returned, None when it raised or
    returned no pair of counts."""

    def __init__(self, round_: Round, name: str, got: str, pair: tuple[int, int] | None) -> None:
        self.round, self.name, self.pair = round_, name, pair
        case = f"{round_.where}: {round_.call(name)}" if round_.where else round_.call(name)
        super().__init__(case, got, f"where the round admits {round_.takes}", round_.call(name))


def _pair(got: object) -> tuple[int, int] | str:
    """``got`` as two slot counts, or what is wrong with it, in a few words."""
    if isinstance(got, (str, bytes, dict, set, frozenset)) or not hasattr(got, "__len__"):
        return "not two slot counts (tracking, event)"
    try:
        items = list(got)  # type: ignore[call-overload]  # a sized object: a tuple, a list, an array...
    except TypeError:
        return "not two slot counts (tracking, event)"
    if len(items) != 2:
        return f"{len(items)} values, not two slot counts (tracking, event)"
    for flow, n in zip(FLOWS, items, strict=True):
        if isinstance(n, Real) and not isinstance(n, (bool, Integral)) and float(n).is_integer():
            return f"{flow} is {short_repr(n)}, a float: a count of slots is an int"
        if isinstance(n, bool) or not isinstance(n, Integral):
            return f"{flow} is {short_repr(n)}, not a whole number"
        if n < 0:
            return f"{flow} is {n}: a flow takes 0 slots or more"
    return int(items[0]), int(items[1])


def _asked(fn: Callable[..., object], name: str, round_: Round) -> tuple[int, int]:
    """What ``fn`` says ``round_`` admits; :class:`Wrong` when it raises or returns no pair of counts."""
    got, fault = returned(fn, round_.order, round_.free, round_.room)
    if fault is not None:
        raise Wrong(round_, name, fault, None)
    pair = _pair(got)
    if isinstance(pair, str):
        raise Wrong(round_, name, f"it returned {short_repr(got)}: {pair}", None)
    return pair


def agrees(fn: Callable[..., object], name: str) -> Callable[[Round], None]:
    """The property: ``fn`` admits what the course's own admission does, in every round."""

    def prop(round_: Round) -> None:
        pair = _asked(fn, name, round_)
        if pair != round_.takes:
            raise Wrong(round_, name, f"it returned {pair}", pair)

    return prop


def walk(round_: Round) -> str:
    """Each arrival's fate, in order, as the contract has it: "tracking takes a slot, event is dropped
    (no free slot), ..." (arrivals alike in a row told once, with how many)."""
    free, taken, fates = round_.free, [0, 0], list[str]()
    for flow in round_.order:
        if taken[flow] >= round_.room[flow]:
            fates.append(f"{FLOWS[flow]} is dropped (no room left under its limit)")
        elif free:
            taken[flow], free = taken[flow] + 1, free - 1
            fates.append(f"{FLOWS[flow]} takes a slot")
        else:
            fates.append(f"{FLOWS[flow]} is dropped (no free slot)")
    runs = [(fate, len(list(alike))) for fate, alike in itertools.groupby(fates)]
    return ", ".join(fate if n == 1 else f"{n} x {fate}" for fate, n in runs) or "nobody arrives"


def _why(round_: Round, pair: tuple[int, int]) -> str:
    """What is wrong with ``pair`` for ``round_``, in its numbers, when it breaks a bound."""
    arrived = (round_.order.count(0), round_.order.count(1))
    for f in (0, 1):
        if pair[f] > arrived[f]:
            came = f"only {_many(arrived[f], FLOWS[f] + ' call')}" if arrived[f] else f"no {FLOWS[f]} call"
            return f"{came} arrived, so {FLOWS[f]} takes {arrived[f]} at most"
    for f in (0, 1):
        if pair[f] > round_.room[f]:
            return f"{FLOWS[f]} took {pair[f]}, past its room of {round_.room[f]} under its limit"
    if sum(pair) > round_.free:
        return f"{_many(sum(pair), 'slot')} taken in all, past the {_many(round_.free, 'free slot')}"
    return ""


def _many(n: int, what: str) -> str:
    """``n`` of ``what``, plural when ``n`` is not 1: '1 free slot', '3 tracking calls'."""
    return f"{n} {what}{'s' * (n != 1)}"


def explained(fn: Callable[..., object], wrong: Wrong) -> Broke:
    """``wrong`` (the smallest round found) with why: a bound broken, or each arrival's fate in order."""
    round_, pair = wrong.round, wrong.pair
    if pair is None:
        return wrong
    why = _why(round_, pair) or f"in order: {walk(round_)}"
    again = _again(fn, round_)
    if again not in (None, pair):
        why += f"; asked again now, it returns {again}: it depends on earlier calls"
    return Broke(wrong.case, wrong.got, f"{wrong.expected}: {why}", wrong.replay)


def _again(fn: Callable[..., object], round_: Round) -> tuple[int, int] | None:
    try:
        return _asked(fn, "", round_)
    except Wrong:
        return None


def smallest(prop: Callable[[Round], None], wrong: Wrong) -> Wrong:
    """The smallest failing round Hypothesis finds drawing from :data:`ROUNDS` (and shrinking what
    fails); ``wrong``, the round that failed, when it finds none (the deadline's Overtime passes)."""
    found = search(prop, ROUNDS, examples=EXAMPLES, shrink_budget=SHRINK_BUDGET)
    return found if isinstance(found, Wrong) else wrong


def properties(lesson: Sequence[Round]) -> tuple[str, ...]:
    return (
        "each returns the (tracking, event) slots the course's own admit takes: in the round's order, an "
        "arrival takes a slot while its flow has room and a slot is free",
        f"0 to {MOST} arrivals of one flow or both, no free slot, no room, more arrivals than either",
        f"then lesson 000's three days, rounds {WINDOW.start} to {WINDOW.stop - 1} ({len(lesson)} rounds), "
        "in order",
    )


def check(candidate: object) -> Verdict:
    """The verdict on ``candidate`` as ``admit(order, free, room)``: every round right, or the smallest
    round found that it gets wrong, explained; the learner's globals are as their cell left them after."""
    fn = a_function(candidate, "check(my_admit)")
    kept = KeptState(fn)
    try:
        return _judged(fn, kept)
    finally:
        kept.restore()


def _judged(fn: Callable[..., object], kept: KeptState) -> Verdict:
    prop = agrees(fn, named(fn, "my_admit"))
    lesson = lesson_rounds()
    for round_ in (*SCENARIOS, *lesson):
        try:
            prop(round_)
        except Wrong as wrong:
            changed = kept.changed()
            if changed is not None:  # its answer hangs on the rounds asked before: say so, replay from there
                return Verdict.broke(_remembers(fn, kept, wrong, changed))
            shown = smallest(prop, wrong) if round_ in SCENARIOS else wrong
            return Verdict.broke(explained(fn, shown))
    return Verdict.right(len(SCENARIOS), properties(lesson))


def _remembers(fn: Callable[..., object], kept: KeptState, wrong: Wrong, changed: str) -> Broke:
    """A round answered wrong by a function that keeps ``changed`` between calls: two rounds of the check
    that show it, asked from the state the learner's cell made, as a replay."""
    name = named(fn, "my_admit")
    for first, then in itertools.product(SCENARIOS[:20], SCENARIOS[:60]):
        kept.restore()
        try:
            _asked(fn, name, first)
            pair = _asked(fn, name, then)
        except Wrong:
            continue
        if pair != then.takes:
            asked = "; ".join(f"{name}{(r.order, r.free, r.room)}" for r in (first, then))
            return Broke(
                f"{asked} (right after your cell ran)",
                f"the second returned {pair}",
                f"where the round admits {then.takes}: your function keeps {changed} between calls, and a "
                "round's answer must depend on its arguments alone",
                asked,
            )
    return Broke(
        wrong.case, wrong.got, f"{wrong.expected}; your function keeps {changed} between calls", None
    )
