"""Run a coroutine from plain (synchronous) code: a slider's callback, a notebook cell, a check.

Jupyter's kernel already runs an event loop, so ``asyncio.run`` cannot be called on its thread.
:func:`in_worker` calls a function in a worker thread; a coroutine it returns runs on a fresh loop
(:func:`new_loop`) that :func:`close_loop` closes with nothing left behind. :func:`run_sync` runs a live
scenario so; the course's ``trial`` adds a deadline, a tracer and the captured output.

An interrupted cell (KeyboardInterrupt while waiting) cancels the coroutine on its
loop and waits for its clean-up, so its services stop at once, not when the run
would have ended; then :class:`Interrupted` is raised, which IPython shows as its one
line (``interrupted: ...``), not as a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import threading
import time
import weakref
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
INTERRUPTED = "interrupted: the live run was stopped and every service it started is closed"


class Interrupted(KeyboardInterrupt):
    """A live run stopped by Ctrl-C or the kernel's stop button, after its services closed.

    Still a KeyboardInterrupt (the rest of the cell does not run); IPython and Jupyter show
    only its one line, through ``_render_traceback_``, never a traceback.
    """

    def __init__(self, message: str = INTERRUPTED) -> None:
        super().__init__(message)

    def _render_traceback_(self) -> list[str]:
        return [str(self)]

    @property
    def why(self) -> str:
        """The message without its leading ``interrupted:``, for a line that already says it."""
        return str(self).removeprefix("interrupted: ")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion and return its result (or raise its exception).

    Interrupted, it cancels the run, waits for its clean-up and raises :class:`Interrupted`.
    """
    return in_worker(lambda: coro, "bulkhead-lab-live")


def in_worker(start: Callable[[], Any], name: str, seconds: float | None = None) -> Any:
    """``start()`` in a worker thread called ``name``: what it returns, or what it raises, raised here. A
    coroutine it returns runs on a fresh loop (:func:`new_loop`, then :func:`close_loop`) at most
    ``seconds``; past that, or when the worker is not done a second later (it is left to its daemon
    thread), asyncio.TimeoutError. Interrupted, the coroutine is cancelled, its clean-up waited for and
    :class:`Interrupted` raised."""
    box: dict[str, Any] = {}
    stop, finished = threading.Event(), threading.Event()

    async def main(coro: Coroutine[Any, Any, Any]) -> Any:
        box["loop"], box["task"] = asyncio.get_running_loop(), asyncio.current_task()
        if stop.is_set():  # interrupted before it began: it stops at its first await
            box["task"].cancel()
        return await asyncio.wait_for(coro, seconds)

    def target() -> None:
        try:
            made = start()
            if inspect.iscoroutine(made):
                loop = new_loop()
                try:
                    made = loop.run_until_complete(main(made))
                finally:
                    close_loop(loop)
            box["value"] = made
        except BaseException as exc:  # handed back to the caller's thread below
            box["error"] = exc
        finally:
            finished.set()

    threading.Thread(target=target, name=name, daemon=True).start()
    wait = None if seconds is None else seconds + 1.0
    ends = time.monotonic() + (float("inf") if wait is None else wait)
    try:
        # Event.wait, not Thread.join: an interrupted join() on Python 3.11 marks the
        # thread stopped while it still runs, so it could never be waited for again.
        while not finished.wait(0.1):
            if time.monotonic() > ends:
                raise asyncio.TimeoutError
    except KeyboardInterrupt:
        stop.set()  # main() reads it after it set box["task"]: one of the two cancels the run
        if "task" in box and not finished.is_set():
            box["loop"].call_soon_threadsafe(box["task"].cancel)
        while True:  # its services close, a fraction of a second that a second Ctrl-C does not cut short
            with contextlib.suppress(KeyboardInterrupt):
                finished.wait(wait)
                break
        raise Interrupted() from None
    if "error" in box:
        raise box["error"]
    return box["value"]


_MADE: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, list[asyncio.Task[Any]]] = (
    weakref.WeakKeyDictionary()
)  # every task made on a loop of new_loop's, until close_loop


def new_loop() -> asyncio.AbstractEventLoop:
    """A fresh event loop that keeps every task made on it until :func:`close_loop` (asyncio itself holds
    tasks weakly, so a forgotten task could be collected while pending, and reported later)."""
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
    except BaseException:  # what the code raised while cancelled is its own, and retrieved below
        pass
    finally:
        made = _MADE.pop(loop, [])
        for task in [*made, *asyncio.all_tasks(loop)]:
            if task.done() and not task.cancelled():
                task.exception()
        made.clear()  # the factory's list: a loop kept by someone does not keep its tasks
        loop.set_task_factory(None)
        loop.close()
