"""What any ``erlang_b(load, slots)`` must give, checked by its values alone: notebook 01's exercise 4.

The learner's function is called on a grid of pools (:data:`SLOTS`, from no slots to 500) and loads
(:data:`LOADS`, from none to 400 erlangs) and compared with Erlang's loss formula by its recursion,
B(0) = 1, B(n) = A B(n-1) / (n + A B(n-1)) (:func:`bulkhead_lab.sizing.erlang_b`, whose arguments are
the other way round), within :data:`RELATIVE` of the value plus :data:`ABSOLUTE`. :func:`first_wrong`
answers the first grid point that fails in one line, naming the usual mistakes (a factorial formula
that overflows, a percent instead of a share, the Poisson tail, the arguments swapped), or None when
every point holds. Pure and deterministic: the course runs it in a trial, under a deadline.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from numbers import Real

from bulkhead_lab.sizing import erlang_b

ErlangB = Callable[[float, int], object]  # (load, slots) -> the share of calls refused
SLOTS = (0, 1, 2, 3, 5, 8, 13, 20, 50, 100, 200, 500)
LOADS = (0.0, 0.5, 2.0, 5.83, 20.0, 100.0, 400.0)
RELATIVE, ABSOLUTE = 1e-9, 1e-12  # the tolerance: |yours - B| <= RELATIVE * B + ABSOLUTE
NEAR = 1e-6  # how close a wrong value must be to a known mistake's to be named as it
RECURSION = "use the recursion B(0) = 1, B(n) = A·B(n-1) / (n + A·B(n-1))"


class Wrong(Exception):
    """A grid point failed; the message is the one line that says where and how."""


def grid() -> list[tuple[float, int]]:
    """Every ``(load, slots)`` judged, fewest slots first (so the first that fails is the smallest pool)."""
    return [(load, slots) for slots in SLOTS for load in LOADS]


def close(got: float, want: float, relative: float = RELATIVE, absolute: float = ABSOLUTE) -> bool:
    return abs(got - want) <= relative * abs(want) + absolute


def poisson_tail(load: float, slots: int, *, inclusive: bool) -> float:
    """P(N >= slots) (``inclusive``) or P(N > slots) for N Poisson with mean ``load``: the share of time
    that many calls would be in flight if no call were ever refused."""
    below = slots if inclusive else slots + 1
    if load == 0:
        return 0.0 if below > 0 else 1.0
    cdf = sum(math.exp(-load + k * math.log(load) - math.lgamma(k + 1)) for k in range(below))
    return max(0.0, 1.0 - cdf)


def _call(fn: ErlangB, load: float, slots: int) -> float:
    """``fn(load, slots)`` as a float, or :class:`Wrong` saying what it raised or returned instead."""
    shown = f"{getattr(fn, '__name__', 'your function')}({load!r}, {slots})"
    try:
        got = fn(load, slots)
    except OverflowError:
        raise Wrong(f"a factorial formula overflows at slots={slots} ({shown} raised OverflowError): "
                    f"{RECURSION}.") from None  # fmt: skip
    except Exception as exc:
        why = (str(exc).splitlines() or [""])[0]
        raise Wrong(f"{shown} raised {type(exc).__name__}{': ' + why if why else ''}.") from None
    if isinstance(got, bool) or not isinstance(got, Real):
        raise Wrong(f"{shown} returned {repr(got)[:30]}, not a number: return the share refused, 0 to 1.")
    value = float(got)
    if not math.isfinite(value):
        raise Wrong(
            f"a factorial formula overflows at slots={slots} ({shown} returned {value}): {RECURSION}."
        )
    return value


MISTAKES: dict[str, Callable[[float, int], float]] = {
    "a percent, not a fraction (0 to 1): 100 times B": lambda load, slots: 100 * erlang_b(slots, load),
    "the Poisson tail P(N>=slots), not Erlang-B": lambda load, slots: poisson_tail(
        load, slots, inclusive=True
    ),
    "the Poisson tail P(N>slots), not Erlang-B": lambda load, slots: poisson_tail(
        load, slots, inclusive=False
    ),
}
PROBES = tuple((load, slots) for slots in (1, 2, 5, 8) for load in (0.5, 2.0, 5.83))  # where each differs


def _mistake(fn: ErlangB) -> str | None:
    """The known mistake ``fn`` gives at every probe point, if one."""
    try:
        got = [_call(fn, load, slots) for load, slots in PROBES]
    except Wrong:
        return None
    for name, mistake in MISTAKES.items():
        if all(close(g, mistake(*p), NEAR, 1e-9) for g, p in zip(got, PROBES, strict=True)):
            return name
    return None


def _why(fn: ErlangB, load: float, slots: int, got: float, want: float) -> str:
    """What a wrong value at one grid point most likely is, in one line."""
    at = f"at load={load:g}, slots={slots} you returned {got:.10g}"
    mistake = _mistake(fn)
    if mistake is not None:
        return (
            f"{at}, Erlang-B gives {want:.10g}; at every point probed yours is {mistake}"
            f"{'' if 'percent' in mistake else ' (it counts calls a full pool refused as holding slots)'}."
        )
    if slots == 0:
        return f"{at}: a pool of no slots refuses every call, B = 1."
    if load == 0:
        return f"{at}: with no load nothing is refused, B = 0."
    return f"{at}, Erlang-B gives {want:.10g}."


def _first_wrong(fn: ErlangB) -> str | None:
    for load, slots in grid():
        want = erlang_b(slots, load)
        try:
            got = _call(fn, load, slots)
        except Wrong as wrong:
            return str(wrong)
        if not close(got, want):
            return _why(fn, load, slots, got, want)
    return None


def first_wrong(fn: ErlangB) -> str | None:
    """The first grid point where ``fn(load, slots)`` is not Erlang-B, in one line; None when none is."""
    wrong = _first_wrong(fn)
    if wrong is not None and _first_wrong(lambda load, slots: fn(slots, load)) is None:  # type: ignore[arg-type]
        return ("your function takes (slots, load), like sizing.erlang_b: this exercise's is erlang_b(load, "
                "slots); swap its arguments.")  # fmt: skip
    return wrong


def example() -> dict[str, float]:
    """The figures a right answer's line quotes: the grid, and lesson 000's 8 event slots at 5.83 erlangs."""
    return {"points": len(grid()), "most": max(SLOTS), "load": max(LOADS), "b8": erlang_b(8, 5.83)}
