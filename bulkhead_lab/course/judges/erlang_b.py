"""Notebook 01's exercise 4: does the learner's ``erlang_b(load, slots)`` keep Erlang's loss formula?

The contract: offered ``load`` erlangs (any real number from 0 up, whole or fractional), a pool of
``slots`` slots (any whole number from 0 up) refuses the share B of calls, a number from 0 to 1, the value
of Erlang's recursion B(0) = 1, B(n) = A B(n-1) / (n + A B(n-1)) (:func:`bulkhead_lab.sizing.erlang_b`,
its arguments the other way round), within :data:`RELATIVE` of it plus :data:`ABSOLUTE`. No slots refuse
every call, no load refuses none. Python's numbers and numpy's go in and may come back.

:func:`check` calls the learner's function on :data:`SCENARIOS`, generated once by a seeded generator
(pools of 0 to :data:`SLOTS_MAX` slots, more often small; loads of 0 to :data:`LOAD_MAX` erlangs, often near
the pool's size, where Erlang-B is neither 0 nor 1), then :data:`ANCHORS`. When one breaks the contract,
Hypothesis (:func:`~bulkhead_lab.course.judges.contract.search` over :data:`CASES`) looks for the smallest
case that does, named as a call to paste, with what came back, what Erlang-B is and, when the value says
so, the known mistake: a float overflowed (``load**slots``, ``slots!``), a percent, the Poisson tail, the
arguments swapped, numpy's numbers refused. (Hypothesis draws each scenario through many calls, which the
trial's tracer slows threefold: it only shrinks; the seeded list gives the breadth within the deadline.)
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from numbers import Real

import numpy as np
from hypothesis import strategies as st

from bulkhead_lab.course.judges.contract import Broke, Verdict, named, returned, search
from bulkhead_lab.course.ui.trial import a_function, short_repr
from bulkhead_lab.sizing import erlang_b

SLOTS_MAX = 3000  # the largest pool generated
LOAD_MAX = 3000.0  # the largest load generated, in erlangs
RELATIVE, ABSOLUTE = 1e-9, 1e-15  # the tolerance: |yours - B| <= RELATIVE * B + ABSOLUTE
NEAR = 1e-6  # how close a wrong value must be to a known mistake's to be named as it
LISTED = 250  # scenarios every check calls, drawn once
EXAMPLES = 120  # scenarios Hypothesis draws to find the smallest failing one, once one fails
EXP_MAX = math.log(sys.float_info.max)  # e**709.78 is the largest float


@dataclass(frozen=True)
class Case:
    """One call: ``load`` erlangs offered to ``slots`` slots, passed as numpy's scalars when ``numpy``."""

    load: float
    slots: int
    numpy: bool = False

    def args(self) -> tuple[float, int]:
        if self.numpy:
            return np.float64(self.load), np.int64(self.slots)
        return self.load, self.slots

    def call(self, name: str) -> str:
        load, slots = self.args()
        return f"{name}({load!r}, {slots!r})"

    def replay(self, name: str) -> str:
        """One line for a notebook 01 cell: the learner's call beside section 3's ``erlang_b``."""
        numpy = "import numpy as np; " if self.numpy else ""
        return f"{numpy}{self.call(name)}, erlang_b({self.slots}, {self.load!r})"

    @property
    def b(self) -> float:
        return erlang_b(self.slots, self.load)


ANCHORS = (
    Case(0.0, 0), Case(2.5, 0), Case(0.0, 1), Case(5.83, 8), Case(5.83, 8, numpy=True), Case(800.0, 1000),
    Case(1000.0, 800), Case(3000.0, 3000), Case(2999.99, 1), Case(171.5, 171), Case(745.5, 760),
    Case(0.01, 2),
)  # fmt: skip


def close(got: float, want: float, relative: float = RELATIVE, absolute: float = ABSOLUTE) -> bool:
    return abs(got - want) <= relative * abs(want) + absolute


def _case(drawn: tuple[int, int, int, int, int, int, bool]) -> Case:
    """A case from flat draws (cheap to draw): a small pool, or one in three times any pool; a load by
    ``kind``: hundredths of an erlang (0), near the pool's size (1: ``spread`` hundredths of its square
    root off it, where Erlang-B is neither 0 nor 1), sevenths (2: a fraction with every digit) or whole
    erlangs (3); and whether numpy's scalars are passed."""
    small, big, size, code, kind, spread, numpy = drawn
    slots = big if size == 0 else small
    near = max(0.0, round(slots + spread / 100 * math.sqrt(max(slots, 1)), 2))
    load = (code / 100, near, code / 700, float(code // 100))[kind]
    return Case(load, slots, numpy)


LOAD_CODES = 100 * int(LOAD_MAX)
CASES = st.tuples(
    st.integers(0, 64),
    st.integers(0, SLOTS_MAX),
    st.integers(0, 2),
    st.integers(0, LOAD_CODES),
    st.integers(0, 3),
    st.integers(-300, 300),
    st.booleans(),
).map(_case)


def listed(count: int = LISTED, seed: int = 36) -> tuple[Case, ...]:
    """``count`` cases drawn by a seeded generator (the same every run), then :data:`ANCHORS`: pools
    small (0, 1 and 2 often) or, one in ten times, of 100 to 3000 slots; loads of 0.01 to 3000 erlangs
    spread evenly over their orders of magnitude, whole, in hundredths or sevenths, none, or near the
    pool's size; a third passed as numpy's scalars."""
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        slots = rng.choice((0, 1, 2)) if rng.random() < 0.1 else rng.randint(0, 64)
        if rng.random() < 0.1:
            slots = round(10 ** rng.uniform(2, math.log10(SLOTS_MAX)))
        scale = 10 ** rng.uniform(-2, math.log10(LOAD_MAX))
        load = rng.choice((
            round(scale, 2), float(round(scale)), round(scale * 7) / 7, 0.0,
            abs(round(slots + rng.uniform(-3, 3) * math.sqrt(max(slots, 1)), 2)),
            abs(round(slots + rng.uniform(-3, 3) * math.sqrt(max(slots, 1)), 2)),
        ))  # fmt: skip
        cases.append(Case(min(load, LOAD_MAX), slots, rng.random() < 1 / 3))
    return (*cases, *ANCHORS)


def poisson_tail(load: float, slots: int, *, inclusive: bool) -> float:
    """P(N >= slots) (``inclusive``) or P(N > slots), N Poisson with mean ``load``: the share of time that
    many calls would be in flight if no call were ever refused (a mistake's value, not Erlang-B's)."""
    first = slots if inclusive else slots + 1
    if load == 0:
        return 1.0 if first == 0 else 0.0

    def pmf(k: int) -> float:
        return math.exp(-load + k * math.log(load) - math.lgamma(k + 1))

    if first <= load:
        return max(0.0, 1.0 - math.fsum(pmf(k) for k in range(first)))
    total, k = 0.0, first
    while (term := pmf(k)) > 1e-18 * total or k == first:
        total, k = total + term, k + 1
    return total


def _shown(got: float, want: float) -> tuple[str, str]:
    """``got`` and ``want`` with as many digits as it takes to tell them apart (4 at least)."""
    for digits in (4, 6, 8, 10, 12, 17):
        a, b = f"{got:.{digits}g}", f"{want:.{digits}g}"
        if a != b:
            break
    return a, b


def _about(log: float) -> str:
    """e**log written as a power of ten, to two digits: 1.8e+308 (beyond what a float can hold)."""
    tens = math.floor(log / math.log(10))
    return f"{10 ** (log / math.log(10) - tens):.3g}e+{tens}"


def _overflow(case: Case, *, zero: bool = False) -> str:
    """What passes the largest float (or underflows to 0) at ``case``, in its numbers; empty if nothing.
    A value of 0 (``zero``) comes of a sum past it or an underflow only (a term past it gives inf or nan)."""
    load, slots = case.load, case.slots
    said = []
    if load > 1:
        logs = [k * math.log(load) - math.lgamma(k + 1) for k in range(slots + 1)]
        top = max(logs)
        total = top + math.log(math.fsum(math.exp(x - top) for x in logs))
        if top > EXP_MAX and not zero:
            first = next(k for k, x in enumerate(logs) if x > EXP_MAX)
            said.append(f"{load:g}**k / k! passes it from k = {first}")
        elif top <= EXP_MAX < total:
            said.append(f"the sum of {load:g}**k / k! for k = 0..{slots} is about {_about(total)}")
    if load > 1 and slots * math.log(load) > EXP_MAX and not zero:
        said.append(f"{load:g}**{slots} is about {_about(slots * math.log(load))}")
    if math.lgamma(slots + 1) > EXP_MAX and not zero:
        said.append(f"{slots}! is about {_about(math.lgamma(slots + 1))}")
    if said:
        return f"{'; '.join(said[:2])}: past the largest float, {sys.float_info.max:.4g}"
    return f"math.exp(-{load:g}) is 0.0 (it underflows)" if load > 745 else ""


def _boundary(case: Case) -> str:
    if case.slots == 0:
        return ": a pool of no slots refuses every call"
    return ": with no load nothing is refused" if case.load == 0 else ""


def _named(case: Case, got: float, want: float) -> str:
    """The known mistake ``got`` is at ``case``, in the case's numbers; empty when it is none of them."""
    overflow = _overflow(case, zero=got == 0) if got == 0 or not math.isfinite(got) else ""
    if overflow or not math.isfinite(got):
        return f": {overflow}" if overflow else f": {got} is no share"
    if got > 1 and close(got, 100 * want, NEAR, 1e-9):
        return ": yours is 100 times it, a percent; a share refused is from 0 to 1"
    if not 0 <= got <= 1:
        return ": a share refused is from 0 to 1"
    if boundary := _boundary(case):
        return boundary
    for inclusive, sign in ((True, ">="), (False, ">")):
        if close(got, poisson_tail(case.load, case.slots, inclusive=inclusive), NEAR, 1e-12):
            return (
                f": yours is the Poisson tail P(N {sign} {case.slots}), N the calls in flight averaging "
                f"{case.load:g} if no call were ever refused; Erlang-B's refused calls never hold a slot"
            )
    return ""


class Wrong(Broke):
    """A case that broke the contract: ``value`` is what came back (None when it raised or was no number,
    ``error`` then what it raised, if it did)."""

    def __init__(self, case: Case, name: str, got: str, value: float | None, error: object = None) -> None:
        self.scenario, self.name, self.value, self.error = case, name, value, error
        super().__init__(case.call(name), got, f"where Erlang-B is {case.b:.4g}", case.replay(name))


def _value(fn: Callable[..., object], name: str, case: Case) -> float:
    """``fn``'s value at ``case``, as a float; :class:`Wrong` when it raises or returns no number."""
    got, fault = returned(fn, *case.args())
    if fault is not None:
        raise Wrong(case, name, fault, None, got)
    if isinstance(got, bool) or not isinstance(got, (Real, Decimal)):
        raise Wrong(case, name, f"it returned {short_repr(got)}, not a number", None)
    return float(got)


def _float(fn: Callable[..., object], args: tuple[object, ...]) -> float | None:
    """``fn(*args)`` as a float, None when it raises or returns no number."""
    got, fault = returned(fn, *args)
    number = fault is None and isinstance(got, (Real, Decimal)) and not isinstance(got, bool)
    return float(got) if number else None  # type: ignore[arg-type]


def _gives(fn: Callable[..., object], args: tuple[object, ...], want: float) -> bool:
    """``fn(*args)`` is ``want`` (within the tolerance), whatever it raises or returns."""
    got = _float(fn, args)
    return got is not None and close(got, want)


def _swapped(fn: Callable[..., object], case: Case) -> bool:
    """``fn`` gives Erlang-B when called ``(slots, load)``: at ``case`` and at two more pools."""
    return all(_gives(fn, (p.slots, p.load), p.b) for p in (case, Case(5.83, 8), Case(2.0, 5)))


def _again(fn: Callable[..., object], case: Case, got: float) -> str:
    """When calling ``fn`` at ``case`` again now gives another value: one clause saying so."""
    now = _float(fn, case.args())
    if now is None:
        return ""
    same = now == got or (math.isnan(now) and math.isnan(got))
    return "" if same else f"; called again now it returns {now!r}: its value depends on earlier calls"


def agrees(fn: Callable[..., object], name: str) -> Callable[[Case], None]:
    """The property: ``fn`` at a case is Erlang-B there, within the tolerance."""

    def prop(case: Case) -> None:
        got = _value(fn, name, case)
        if not close(got, case.b):
            raise Wrong(case, name, f"it returned {got!r}", got)

    return prop


def _note(fn: Callable[..., object], wrong: Wrong) -> str:
    """What the smallest case's failure most likely is, as a clause after "where Erlang-B is ..."."""
    case, got, error = wrong.scenario, wrong.value, wrong.error
    if case.numpy and _gives(fn, (case.load, case.slots), case.b):
        plain = Case(case.load, case.slots).call(wrong.name)
        return f"; with Python's numbers, {plain} is right: numpy's are numbers too (np.int64 is no int)"
    if _swapped(fn, case):
        return (
            f"; called the other way round, {wrong.name}({case.slots}, {case.load!r}) is Erlang-B: yours "
            "takes (slots, load), this exercise's takes (load, slots)"
        )
    if got is not None:
        return _named(case, got, case.b) or _again(fn, case, got)
    if isinstance(error, (OverflowError, ZeroDivisionError)) and (overflow := _overflow(case)):
        return f": {overflow}"
    if isinstance(error, RecursionError):
        limit = sys.getrecursionlimit()
        return f": {case.slots} calls deep, one a slot, pass Python's recursion limit ({limit})"
    return _boundary(case) if isinstance(error, (ArithmeticError, ValueError)) else ""


def explained(fn: Callable[..., object], wrong: Wrong) -> Broke:
    """``wrong`` (the smallest case found) with its numbers shown to the digits that differ and what its
    value most likely is: a known mistake, the arguments swapped, a value depending on earlier calls."""
    deep = Case(wrong.scenario.load, sys.getrecursionlimit(), wrong.scenario.numpy)
    if isinstance(wrong.error, RecursionError) and wrong.scenario != deep:
        try:  # the judge's own calls took some of the stack: show a pool that fails in a notebook too
            _value(fn, wrong.name, deep)
        except Wrong as deeper:
            wrong = deeper if isinstance(deeper.error, RecursionError) else wrong
    case, got = wrong.scenario, wrong.value
    yours, erlang = _shown(got, case.b) if got is not None else ("", f"{case.b:.4g}")
    said = f"it returned {yours}" if got is not None else wrong.got
    return Broke(wrong.case, said, f"where Erlang-B is {erlang}{_note(fn, wrong)}", wrong.replay)


PROPERTIES = (
    f"each value within {RELATIVE:g} (relative) of Erlang-B's recursion, for pools of 0 to {SLOTS_MAX} "
    f"slots and loads of 0 to {LOAD_MAX:g} erlangs, whole and fractional, many near the pool's size",
    "no slots refuse every call (B = 1), no load refuses none (B = 0)",
    "Python's numbers and numpy's in, any real number out",
)


SCENARIOS = listed()


def check(candidate: object) -> Verdict:
    """The verdict on ``candidate`` as ``erlang_b(load, slots)``: every listed case kept, or the smallest
    case found that breaks the contract, explained."""
    fn = a_function(candidate, "check(my_erlang_b)")
    prop = agrees(fn, named(fn, "my_erlang_b"))
    for case in SCENARIOS:
        try:
            prop(case)
        except Wrong as wrong:  # the smallest failing case Hypothesis finds (the deadline's Overtime passes)
            found = search(prop, CASES, examples=EXAMPLES)
            return Verdict.broke(explained(fn, found if isinstance(found, Wrong) else wrong))
    return Verdict.right(len(SCENARIOS), PROPERTIES)
