"""What every write-it-yourself judge shares: a contract checked over generated scenarios, and a verdict.

A judge states its mechanism's promises as *properties*: a function of one generated scenario that runs
the learner's code on it and raises :class:`Broke` (what was called, what came back, what the contract
expects, a one-line replay) when a promise does not hold. :func:`search` runs a property over a fixed
number of scenarios drawn by Hypothesis (``derandomize=True``: the same scenarios, so the same verdict,
on every run) and, when one breaks, shrinks it to the smallest failing scenario it can find within a
time budget (on a busy machine the case named may be a larger one that breaks the same way).
:class:`Verdict` is what the exercise shows: ``Right:`` with what was checked, or ``Not yet:`` with the
smallest case.

A learner's call, whatever it does: :func:`returned` (what came back, or the line saying it raised or
gave a coroutine), :func:`named` (the name a replay calls it by). Numbers are numbers: :func:`as_int`,
:func:`as_real` and :func:`as_bool` accept any :class:`numbers.Integral` / :class:`numbers.Real` (numpy
scalars included) and whatever ``bool`` would.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import inspect
import math
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, TypeVar

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from bulkhead_lab.course.ui.trial import Fault, Overtime, short_repr
from bulkhead_lab.live.sync import close_loop, new_loop

T = TypeVar("T")
EXITS = (Exception, SystemExit, KeyboardInterrupt, GeneratorExit)  # what a learner's call may raise
SHRINK_BUDGET = 0.6  # seconds a judge may spend making a failing scenario smaller, after finding it


class Broke(Exception):
    """One scenario broke a promise: ``case`` (what was called, in what order), ``got`` (what came back),
    ``expected`` (what the contract expects) and ``replay`` (one line to paste into a cell), or ``None``."""

    def __init__(self, case: str, got: str, expected: str, replay: str | None = None) -> None:
        super().__init__(case)
        self.case, self.got, self.expected, self.replay = case, got, expected, replay

    def line(self) -> str:
        """The Not yet line: the case, what came back, what was expected, and the replay."""
        replay = f" Replay: {self.replay}" if self.replay else ""
        return f"{self.case.strip().rstrip('.:')}: {self.got}, {self.expected}.{replay}"


@dataclass(frozen=True)
class Verdict:
    """What a judge found: ``ok`` and the line's text (without its ``Right:`` / ``Not yet:``)."""

    ok: bool
    says: str

    @classmethod
    def right(cls, scenarios: int, properties: Sequence[str]) -> Verdict:
        """``Right:`` naming how many scenarios were checked and which properties held in all of them."""
        return cls(True, f"checked {scenarios} generated scenarios: {'; '.join(properties)}.")

    @classmethod
    def broke(cls, broke: Broke) -> Verdict:
        return cls(False, broke.line())


class Stuck(BaseException):
    """One call into the learner's code ran past its budget (no ``except Exception`` stops it)."""


_TRACE = threading.local()  # this thread's trial tracer, deadline and budget, while a judge runs untraced


@contextlib.contextmanager
def untraced(deadline: float = math.inf, budget: float | None = None) -> Iterator[None]:
    """Within: the judge's and Hypothesis's own work untraced (the trial's tracer, there to stop a learner's
    endless loop, makes it about three times slower), the learner's calls through :func:`traced` traced;
    with a ``budget``, each of them :class:`Stuck` past that many seconds of CPU time."""
    _TRACE.outer, _TRACE.deadline, _TRACE.budget = sys.gettrace(), deadline, budget
    sys.settrace(None)
    try:
        yield
    finally:
        sys.settrace(_TRACE.outer)
        _TRACE.outer = None


def traced(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` under the trial's tracer when :func:`untraced` switched it off; with a budget, the
    learner's frames (as the trial's tracer tells them) raise :class:`Stuck` past it and the trial's
    :class:`Overtime` past the deadline."""
    outer = getattr(_TRACE, "outer", None)
    if outer is None:
        return fn(*args)
    if _TRACE.budget is None:
        sys.settrace(outer)
    else:
        deadline, until = _TRACE.deadline, min(time.thread_time() + _TRACE.budget, _TRACE.deadline)

        def line(frame: Any, event: str, arg: Any) -> Any:
            if time.thread_time() > until:
                raise Overtime("the deadline passed") if time.thread_time() > deadline else Stuck()
            return line

        sys.settrace(lambda frame, event, arg: line if outer(frame, event, arg) is not None else None)
    try:
        return fn(*args)
    finally:
        sys.settrace(None)


class _Enough(BaseException):
    """Raised out of Hypothesis's shrinker once the shrink budget is spent (the last failure stands)."""


def search(
    prop: Callable[[T], None],
    scenarios: st.SearchStrategy[T],
    *,
    examples: int,
    shrink_budget: float = SHRINK_BUDGET,
) -> Broke | None:
    """Run ``prop`` on ``examples`` scenarios drawn from ``scenarios`` (the same ones every run); the
    :class:`Broke` of the smallest failing scenario found within ``shrink_budget`` seconds of the first
    failure, or None when every scenario held. A :class:`Fault` raised by ``prop`` (the learner's code
    raised, returned nonsense) counts as a failure, its line as ``got``; so does one not repeated."""
    found: list[Broke] = []
    overtime: list[Overtime] = []
    stop_at = math.inf
    tracer = sys.gettrace()  # the trial's, which stops a learner's endless loop: on around each scenario only

    def fails(scenario: T) -> bool:
        nonlocal stop_at
        if found and time.monotonic() > stop_at:
            raise _Enough
        sys.settrace(tracer)
        try:
            prop(scenario)
            return False
        except Broke as why:
            broke = why
        except Fault as fault:
            said = str(fault).rstrip(".")
            broke = Broke(f"on {short_repr(scenario)}", said, "where the contract expects no fault")
        except Overtime as late:  # the trial's deadline: out of Hypothesis as it is, never wrapped by it
            overtime.append(late)
            raise _Enough from None
        finally:
            sys.settrace(None)
        if not found:
            stop_at = time.monotonic() + shrink_budget
        found.append(broke)
        return True

    rules = settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=(Phase.generate, Phase.shrink),  # no "explain" phase: it traces, as the trial's deadline does
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )
    sys.settrace(None)  # Hypothesis's own work, untraced: under the tracer it takes about three times as long
    try:
        find(scenarios, fails, settings=rules)
    except (Exception, _Enough) as stopped:  # NoSuchExample: none failed; else the last failure found stands
        if not found and not isinstance(stopped, (NoSuchExample, _Enough)):
            raise
    finally:
        sys.settrace(tracer)
    if overtime:
        raise overtime[0]
    return found[-1] if found else None


def first_broken(prop: Callable[[T], None], scenarios: Iterable[T]) -> Broke | None:
    """The :class:`Broke` of the first of ``scenarios`` (a fixed list: the boundaries, a tour) on which
    ``prop`` breaks, or None when it holds on every one."""
    for scenario in scenarios:
        try:
            prop(scenario)
        except Broke as broke:
            return broke
    return None


def run_loop(scenario: Callable[[], Awaitable[T]], seconds: float = 1.0) -> T:
    """Run one asynchronous scenario on a fresh event loop of its own, in this thread, at most ``seconds``;
    whatever it leaves (tasks, their exceptions, async generators) is cancelled and retrieved before the
    loop closes, so nothing is reported later in another cell. A scenario past ``seconds`` is a Fault."""
    loop = new_loop()
    try:
        return loop.run_until_complete(asyncio.wait_for(_awaited(scenario), seconds))
    except asyncio.TimeoutError:
        raise Fault(f"a scenario was still running after {seconds:g} s") from None
    finally:
        close_loop(loop)


async def _awaited(scenario: Callable[[], Awaitable[T]]) -> T:
    return await scenario()


def error(exc: BaseException | None) -> str:
    """``ValueError: no``: ``exc``'s type and the first line of what it said, if it said anything."""
    text = (str(exc).splitlines() or [""])[0]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def raised(exc: BaseException) -> str:
    """``it raised ValueError: no``: a learner's call that raised."""
    return f"it raised {error(exc)}"


def returned(fn: Callable[..., object], *args: object) -> tuple[object, str | None]:
    """What came of ``fn(*args)`` and None; or, when it raised, the exception and the line saying so
    (:func:`raised`); or None and a line when it returned a coroutine (closed: never warned about)."""
    try:
        got = fn(*args)
    except EXITS as exc:
        return exc, raised(exc)
    if inspect.iscoroutine(got):
        got.close()
        return None, "it returned a coroutine: write a plain def, not an async def"
    return got, None


def named(fn: object, default: str) -> str:
    """The name a replay line calls ``fn`` by: its own when it is one (not ``<lambda>``), else ``default``."""
    name = getattr(fn, "__name__", "")
    return name if isinstance(name, str) and name.isidentifier() else default


def as_int(value: object, what: str) -> int:
    """``value`` as an int when it is any integer (``numbers.Integral``: numpy's included, not a bool);
    else a :class:`Fault` naming ``what`` and what came instead."""
    if isinstance(value, Integral) and not isinstance(value, bool):
        return int(value)
    raise Fault(f"{what} was {short_repr(value)}, not a whole number")


def as_real(value: object, what: str) -> float:
    """``value`` as a float when it is any real number (``numbers.Real``: numpy's included, not a bool)."""
    if isinstance(value, Real) and not isinstance(value, bool):
        return float(value)
    raise Fault(f"{what} was {short_repr(value)}, not a number")


def as_bool(value: object, what: str) -> bool:
    """What ``bool(value)`` says, as Python's ``if`` would read it; a coroutine or a value with no truth is
    a :class:`Fault` naming ``what``."""
    if inspect.isawaitable(value):
        if inspect.iscoroutine(value):
            value.close()  # never awaited, never warned about
        raise Fault(f"{what} was a coroutine: write a plain def, not an async def")
    try:
        return bool(value)
    except Exception:
        raise Fault(f"{what} was {short_repr(value)}, which is neither true nor false") from None


class KeptState:
    """What a learner's function can keep between calls: the module globals its code names that are not
    modules, functions or classes, its closure's cells and its default arguments, copied when made.
    :meth:`changed` names the first that a call changed; :meth:`restore` puts every one back, so a judge
    leaves the learner's notebook as its cell defined it, and a replay line starts where the check did."""

    def __init__(self, fn: object) -> None:
        code = getattr(fn, "__code__", None)
        space: dict[str, Any] = getattr(fn, "__globals__", None) or {}
        self._globals = space
        names = code.co_names if code is not None else ()
        self._kept = {n: _copied(space[n]) for n in names if n in space and _is_data(space[n])}
        cells = getattr(fn, "__closure__", None) or ()
        self._cells = [(cell, _copied(cell.cell_contents)) for cell in cells if _is_data(_contents(cell))]
        self._fn, self._defaults = fn, _copied(getattr(fn, "__defaults__", None))

    def changed(self) -> str | None:
        """``"used (it was [0, 0], now [1, 0])"``: the first kept thing a call changed, or None."""
        for name, was in self._kept.items():
            if _differs(self._globals.get(name), was):
                return f"{name} (it was {short_repr(was)}, now {short_repr(self._globals.get(name))})"
        for cell, was in self._cells:
            if _differs(now := cell.cell_contents, was):
                return f"a variable of its closure (it was {short_repr(was)}, now {short_repr(now)})"
        if _differs(getattr(self._fn, "__defaults__", None), self._defaults):
            return f"its default arguments (they were {short_repr(self._defaults)})"
        return None

    def restore(self) -> None:
        for name, was in self._kept.items():
            self._globals[name] = _copied(was)
        for cell, was in self._cells:
            cell.cell_contents = _copied(was)
        if self._defaults is not None:
            self._fn.__defaults__ = _copied(self._defaults)  # type: ignore[attr-defined]


def _contents(cell: Any) -> object:
    try:
        return cell.cell_contents
    except ValueError:  # a cell not yet filled
        return None


def _is_data(value: object) -> bool:
    return not (inspect.ismodule(value) or callable(value) or value is None)


def _copied(value: T) -> T:
    try:
        return copy.deepcopy(value)
    except Exception:
        return value


def _differs(now: object, was: object) -> bool:
    try:
        return bool(now != was)
    except Exception:  # numpy arrays and the like: compare their reprs
        return repr(now) != repr(was)
