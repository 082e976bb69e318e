"""Run a learner's code for a checker: under a deadline, on its own event loop, nothing left behind.

A code exercise's *check* (an ``async def`` that builds the learner's object, drives it and returns a
verdict, or raises :class:`Fault` with one line) runs in :func:`trial`, on a fresh loop in a worker
thread (the kernel's loop already runs on the main thread). A coroutine that never returns is
cancelled at the deadline; a loop that never yields gets :class:`Overtime` raised into it by a trace
function; what the learner prints is captured; what it raises is the outcome, never escaping. Only a
call blocked in C past the deadline (``time.sleep(60)``) outlives the check, in its daemon thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import io
import sys
import sysconfig
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Generic, TypeVar

T = TypeVar("T")
DEADLINE = 2.0  # seconds a check may run
PACKAGE = Path(__file__).resolve().parents[2]  # bulkhead_lab/


class Fault(Exception):
    """What a check found wrong with the learner's code, in one line a learner should read."""


class Overtime(BaseException):
    """Raised into the learner's code when the check's deadline has passed (not an Exception,
    so a learner's ``except Exception`` cannot swallow it)."""


@dataclass(frozen=True)
class Outcome(Generic[T]):
    """What a check returned, or why it did not: ``timed_out``, or the ``error`` it raised."""

    value: T | None = None
    error: BaseException | None = None
    timed_out: bool = False
    printed: str = ""

    @property
    def ok(self) -> bool:
        return self.error is None and not self.timed_out


# Code the tracer leaves alone: Python's own and its libraries' (asyncio's clean-up must run), and this
# package's checks.
_NOT_LEARNERS = tuple(
    {*(sysconfig.get_path(p) for p in ("stdlib", "platstdlib", "purelib", "platlib")), str(PACKAGE)}
)


def _tracer(deadline: float) -> Callable[[FrameType, str, Any], Any]:
    """A trace function that raises :class:`Overtime` in the learner's frames once ``deadline`` passed."""

    def line(frame: FrameType, event: str, arg: Any) -> Any:
        if time.monotonic() > deadline:
            raise Overtime("the deadline passed")
        return line

    def call(frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename.startswith(_NOT_LEARNERS):
            return None
        frame.f_trace_opcodes = True  # a loop on one line (`while True: pass`) has no line events
        return line

    return call


_MADE: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, list[asyncio.Task[Any]]] = (
    weakref.WeakKeyDictionary()
)  # every task made on a loop of new_loop's, until close_loop


def new_loop() -> asyncio.AbstractEventLoop:
    """A fresh event loop that keeps every task made on it until :func:`close_loop` (asyncio itself holds
    tasks weakly, so a learner's forgotten task could be collected while pending, and reported later)."""
    loop = asyncio.new_event_loop()
    made = _MADE.setdefault(loop, [])

    def keep(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
        task = asyncio.Task(coro, loop=loop, **kwargs)
        made.append(task)
        return task

    loop.set_task_factory(keep)
    return loop


def close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is left on ``loop``, retrieve every task's outcome (a learner's ``sys.exit()`` in a task
    included), close it: nothing is reported later, in another cell, as "never retrieved"."""
    try:
        left = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in left:
            task.cancel()
        if left:
            loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
    except BaseException:  # what the learner's code raised while cancelled is theirs, and retrieved below
        pass
    finally:
        for task in [*_MADE.pop(loop, []), *asyncio.all_tasks(loop)]:
            if task.done() and not task.cancelled():
                task.exception()
        loop.close()


def _run(check: Callable[[], Any], seconds: float) -> Any:
    """``check()`` in this thread: what it returns, or, when that is a coroutine (an ``async def`` check),
    what the coroutine returns, run on a fresh loop of its own and closed by :func:`close_loop`; a plain
    check may run loops of its own, one per scenario."""
    made = check()
    if not inspect.iscoroutine(made):
        return made
    loop = new_loop()
    try:
        return loop.run_until_complete(asyncio.wait_for(made, seconds))
    finally:
        close_loop(loop)


def trial(check: Callable[[], Any], seconds: float = DEADLINE) -> Outcome[Any]:
    """Run ``check()`` in a worker thread (an ``async def`` on a fresh loop), at most ``seconds``;
    never raises. What the learner's code prints, to stdout or stderr, is captured."""
    box: dict[str, Any] = {}
    done = threading.Event()
    deadline = time.monotonic() + seconds
    printed = io.StringIO()

    def target() -> None:
        sys.settrace(_tracer(deadline + 0.2))  # a loop that never yields is stopped just after
        try:
            box["value"] = _run(check, seconds)
        except (asyncio.TimeoutError, Overtime):
            box["timed_out"] = True
        except BaseException as exc:  # the learner's code may raise anything: it is the outcome
            box["error"] = exc
        finally:
            sys.settrace(None)
            done.set()

    worker = threading.Thread(target=target, name="bulkhead-lab-trial", daemon=True)
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        worker.start()
        finished = done.wait(seconds + 1.0)
    if not finished:
        return Outcome(timed_out=True, printed=printed.getvalue())
    return Outcome(box.get("value"), box.get("error"), bool(box.get("timed_out")), printed.getvalue())


def build(candidate: object, *args: object) -> Any:
    """``candidate(*args)`` for a check: a one-line :class:`Fault` when it is not a class or cannot
    be built (its ``__init__`` raised), naming what was passed."""
    if not isinstance(candidate, type):
        raise Fault(f"{short_repr(candidate)} is not a class: pass the class itself, e.g. check(Bulkhead).")
    try:
        return candidate(*args)
    except (Exception, SystemExit, KeyboardInterrupt, GeneratorExit) as exc:  # a learner's exit is a fault
        raise Fault(f"{candidate.__name__}({', '.join(map(repr, args))}) raised {_error(exc)}.") from None


def a_function(candidate: object, example: str) -> Callable[..., Any]:
    """``candidate`` itself when it is a function (or any callable but a class); else a one-line
    :class:`Fault` saying what to pass, ``example`` being a call that would be right."""
    if isinstance(candidate, type) or not callable(candidate):
        raise Fault(f"{short_repr(candidate)} is not a function: pass the function itself, e.g. {example}.")
    if inspect.iscoroutinefunction(candidate):
        raise Fault(f"{short_repr(candidate)} is an async def: this asks for a plain def, e.g. {example}.")
    return candidate


def call(fn: Callable[..., T], *args: object, **kwargs: object) -> T:
    """``fn(*args, **kwargs)`` for a check: what the learner's function raised, as a one-line
    :class:`Fault` naming the call (the deadline's :class:`Overtime` passes through)."""
    shown = ", ".join([*map(short_repr, args), *(f"{k}={short_repr(v)}" for k, v in kwargs.items())])
    named = f"{getattr(fn, '__name__', 'your code')}({shown})"
    try:
        result = fn(*args, **kwargs)
    except (Exception, SystemExit, KeyboardInterrupt, GeneratorExit) as exc:  # a learner's exit is a fault
        raise Fault(f"{named} raised {_error(exc)}.") from None
    if inspect.iscoroutine(result):
        result.close()  # never awaited, so never warned about in a later cell
        raise Fault(f"{named} returned a coroutine: write a plain def, not an async def.")
    return result


def short_repr(value: object) -> str:
    """``repr(value)``, cut to 40 characters: what a one-line message quotes of a learner's input."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _error(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
