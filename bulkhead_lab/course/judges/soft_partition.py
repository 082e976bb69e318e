"""Notebook 09's exercise 4: does the learner's ``partition(reserved, total)`` build a soft partition?

The contract: ``partition(reserved, total)`` returns a rule ``admits(flow, busy)`` for two flows (0 and 1)
where ``busy[f]`` is what flow ``f`` holds. A call may take a free slot of its own flow's reserve; past
it, a slot of the shared rest (``total - sum(reserved)``) while one is free; else it is refused. Its
answer in every state the pool can reach (what each flow holds beyond its reserve adds up to no more
than the shared rest) is the answer of section 1's rule
(:func:`~bulkhead_lab.compartments.partitions.soft_partition`), for both flows; whatever ``bool`` reads as
true or false is an answer. The rule only reads ``busy`` (the pool counts the slot it gives), and two
rules built one after the other keep their own reserves.

:func:`check` builds the learner's rule for generated pools (0 to :data:`MOST` slots reserved per flow, 0
to :data:`MOST` shared) and asks it about every reachable state, the smallest first (a flow at 0, a
reserve exactly used up, the shared slots all borrowed are all among them): one answer unlike section
1's is Not yet, named with the pool, the state, the answer expected and why, and a line to replay it.
Then it asks about every state of lesson 000's pool with 21/7 reserved of 32, so the lesson's healthy
and slowdown days run as they do with section 1's rule.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import product

from hypothesis import strategies as st

from bulkhead_lab.compartments.partitions import soft_partition
from bulkhead_lab.course.judges.contract import Broke, Verdict, as_bool, first_broken, named, returned, search
from bulkhead_lab.course.ui.trial import Fault, a_function, short_repr

SMALL, MOST = 3, 10  # every pool up to SMALL reserved per flow and shared; then pools up to MOST
EXAMPLES = 12  # generated pools past the small ones
NAME = "my_soft_partition"  # what a replay calls a partition with no name of its own (a lambda)
Rule = Callable[[int, list[int]], object]


@dataclass(frozen=True)
class Pool:
    """Two flows' reserves and the shared rest; ``total`` is what ``partition`` is given."""

    reserved: tuple[int, int]
    shared: int

    @property
    def total(self) -> int:
        return sum(self.reserved) + self.shared

    def borrowed(self, busy: tuple[int, int]) -> int:
        return sum(max(0, b - r) for b, r in zip(busy, self.reserved, strict=True))

    def states(self) -> Iterator[tuple[int, int]]:
        """Every state the pool can reach, the fewest slots busy first."""
        r0, r1 = self.reserved
        found = [
            (b0, b1)
            for b0 in range(r0 + self.shared + 1)
            for b1 in range(r1 + self.shared + 1)
            if self.borrowed((b0, b1)) <= self.shared
        ]
        return iter(sorted(found, key=lambda b: (sum(b), b)))

    def built(self, name: str) -> str:
        return f"{name}({self.reserved}, {self.total})"


LESSON = Pool((21, 7), 4)  # section 1's example: 7/8 of lesson 000's 24/8 reserved, 4 of 32 shared
SMALL_POOLS = sorted(
    (Pool((r0, r1), shared) for r0, r1, shared in product(range(SMALL + 1), repeat=3)),
    key=lambda p: (p.total, p.reserved, p.shared),
)  # the fewest slots first: the first that breaks is the smallest
POOLS = st.tuples(st.integers(0, MOST), st.integers(0, MOST), st.integers(0, MOST)).map(
    lambda d: Pool((d[0], d[1]), d[2])
)


def why(pool: Pool, flow: int, busy: tuple[int, int]) -> str:
    """Why section 1's rule answers as it does in ``busy``, in the pool's numbers."""
    own, held, other = pool.reserved[flow], busy[flow], 1 - flow
    left, free = pool.shared - pool.borrowed(busy), pool.total - sum(busy)
    reserve = f"flow {flow} holds {held} with {own} reserved"
    if held < own:
        return f"{reserve}, so a slot of its own reserve is free"
    if left > 0:
        return f"{reserve}, and {left} of the {pool.shared} shared slots {'is' if left == 1 else 'are'} free"
    if pool.total == 0:
        return "the pool has no slot"
    if free == 0:
        return "its one slot is busy" if pool.total == 1 else f"all {pool.total} slots are busy"
    rest = "no slot is shared" if pool.shared == 0 else f"all {pool.shared} shared slots are borrowed"
    slots = "free slot is" if free == 1 else f"{free} free slots are"
    return f"{reserve} and {rest}: the {slots} flow {other}'s reserve"


def _built(fn: Callable[..., object], pool: Pool) -> Callable[..., object]:
    """The rule ``fn`` builds for ``pool``, or a :class:`Broke` naming the call."""
    built = pool.built(named(fn, NAME))
    rule, fault = returned(fn, pool.reserved, pool.total)
    if fault is not None:  # said of the call the case names: "raised TypeError: ..."
        raise Broke(built, fault.removeprefix("it "), "where it returns a rule admits(flow, busy)", built)
    if inspect.iscoroutinefunction(rule):
        raise Broke(built, "returned an async def", "where the rule is a plain def admits(flow, busy)", built)
    if isinstance(rule, type) or not callable(rule):
        raise Broke(
            built,
            f"returned {short_repr(rule)}",
            "where it returns a rule, a function admits(flow, busy)",
            built,
        )
    return rule


def _one(
    rule: Callable[..., object], right: Rule, pool: Pool, flow: int, busy: tuple[int, int], setup: str
) -> Broke | None:
    """A :class:`Broke` when ``rule`` answers ``(flow, busy)`` otherwise than ``right``, changes ``busy`` or
    raises, else None. ``setup`` built the rule: a call, or ``a = ...; b = ...`` (then ``a`` is asked)."""
    passed = list(busy)
    said, fault = returned(rule, flow, passed)
    try:
        answer = fault is None and as_bool(said, "the answer")
    except Fault as no_answer:
        fault = str(no_answer).rstrip(".")
    if fault is not None:
        wrong: tuple[str, str] = (fault.removeprefix("it "), "where the rule answers True or False")
    elif passed != list(busy):
        wrong = (f"it changed busy to {passed}", "where the rule only reads it")
    elif answer != (expected := bool(right(flow, list(busy)))):
        wrong = (
            f"it answered {short_repr(said)}",
            f"where section 1's rule answers {expected}: {why(pool, flow, busy)}",
        )
    else:
        return None
    if ";" in setup:  # two rules built
        asked = f"a({flow}, {list(busy)})"
        return Broke(f"with two rules built, {setup}; {asked}", *wrong, f"{setup}; {asked}")
    return Broke(
        f"admits = {setup}, asked admits({flow}, {list(busy)})", *wrong, f"{setup}({flow}, {list(busy)})"
    )


def agrees(fn: Callable[..., object], pool: Pool) -> int:
    """Every reachable state of ``pool`` asked of ``fn``'s rule ``a``, for both flows, with a rule ``b``
    (the flows' reserves swapped, one more shared) built after it: a :class:`Broke` at the first answer
    unlike section 1's (see :func:`_named` for which case it names), else the number of states."""
    name, other = named(fn, NAME), Pool((pool.reserved[1], pool.reserved[0]), pool.shared + 1)
    first = _built(fn, pool)
    _built(fn, other)
    right = soft_partition(pool.reserved, pool.total)
    both = f"a = {pool.built(name)}; b = {other.built(name)}"
    asked: list[tuple[int, list[int]]] = []
    for busy in pool.states():
        for flow in (0, 1):
            if broke := _one(first, right, pool, flow, busy, both):
                raise _named(fn, pool, right, asked, (flow, busy)) or broke
            asked.append((flow, list(busy)))
    return len(asked) // 2


def _named(
    fn: Callable[..., object],
    pool: Pool,
    right: Rule,
    asked: list[tuple[int, list[int]]],
    at: tuple[int, tuple[int, int]],
) -> Broke | None:
    """The case to name for a wrong answer ``at`` (flow, busy): a rule built alone and asked only that,
    when it answers wrong too; else one built alone and asked everything ``asked`` before, when it does
    (its answers hang on what it was asked before); else None (the second rule built changed the first)."""
    built, (flow, busy) = pool.built(named(fn, NAME)), at
    if alone := _one(_built(fn, pool), right, pool, flow, busy, built):
        return alone
    again = _built(fn, pool)
    for f, b in asked:
        if returned(again, f, list(b))[1] is not None:
            return None
    if broke := _one(again, right, pool, flow, busy, built):
        before = f"admits = {built}; [admits(f, b) for f, b in {asked}]"
        those = "that question" if len(asked) == 1 else f"those {len(asked)} questions"
        return Broke(
            f"admits = {built}, asked (flow, busy) {asked} in turn, then ({flow}, {list(busy)})",
            f"{broke.got} after {those}",
            f"{broke.expected} (an answer hangs on the flow and busy alone)",
            f"{before}; admits({flow}, {list(busy)})",
        )
    return None


def check(candidate: object) -> Verdict:
    """The verdict on ``candidate`` as ``partition(reserved, total)`` (a function, or a class whose
    instances are the rule): section 1's answer in every state of every small pool, of generated larger
    ones and of lesson 000's, or the smallest case that breaks."""
    fn = candidate if isinstance(candidate, type) else a_function(candidate, "check(my_soft_partition)")
    pools, states = 0, 0

    def counted(pool: Pool) -> None:
        nonlocal pools, states
        pools, states = pools + 1, states + agrees(fn, pool)

    broke = (
        first_broken(counted, SMALL_POOLS)
        or search(counted, POOLS, examples=EXAMPLES)
        or first_broken(counted, (LESSON,))
    )
    if broke:
        return Verdict.broke(broke)
    return Verdict.right(
        pools,
        (
            f"every pool of 0 to {SMALL} slots reserved per flow and 0 to {SMALL} shared, pools of up to "
            f"{MOST} each, and lesson 000's 21/7 of 32",
            f"in each of their {states} reachable states (a flow at 0, a reserve just used up, the shared "
            "slots all borrowed among them) both flows' answers are section 1's rule's, so lesson 000's "
            "two days run as with it",
            "a rule keeps its own reserves when another is built after it",
            "busy is left as passed",
        ),
    )
