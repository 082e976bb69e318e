"""Run a live scenario from plain (synchronous) code: a slider's callback, a notebook cell.

Jupyter's kernel already runs an event loop, so ``asyncio.run`` cannot be called on
its thread. :func:`run_sync` runs the coroutine on a fresh loop in a worker thread and
waits for it; everything the coroutine opened is closed by its own ``async with``
blocks before the loop ends, so nothing stays listening afterwards.

An interrupted cell (KeyboardInterrupt while waiting) cancels the coroutine on its
loop and waits for its clean-up, so its services stop at once, not when the run
would have ended; then :class:`Interrupted` is raised, which IPython shows as its one
line (``interrupted: ...``), not as a traceback.
"""

from __future__ import annotations

import asyncio
import threading
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
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        try:
            return asyncio.run(coro)  # Ctrl-C cancels the run's task, then raises KeyboardInterrupt
        except KeyboardInterrupt:
            raise Interrupted() from None
    box: dict[str, Any] = {}
    started = threading.Event()
    finished = threading.Event()

    async def main() -> T:
        box["loop"] = asyncio.get_running_loop()
        box["task"] = asyncio.current_task()
        started.set()
        return await coro

    def target() -> None:
        try:
            box["result"] = asyncio.run(main())
        except BaseException as exc:  # handed back to the caller's thread below
            box["error"] = exc
        finally:
            started.set()
            finished.set()

    worker = threading.Thread(target=target, name="bulkhead-lab-live", daemon=True)
    worker.start()
    try:
        # Event.wait, not Thread.join: an interrupted join() on Python 3.11 marks the
        # thread stopped while it still runs, so it could never be waited for again.
        while not finished.wait(0.1):
            pass
    except KeyboardInterrupt:
        _uninterrupted(started.wait)
        loop, task = box.get("loop"), box.get("task")
        if loop is not None and task is not None and not finished.is_set():
            loop.call_soon_threadsafe(task.cancel)
        _uninterrupted(finished.wait)  # its services close: a fraction of a second
        raise Interrupted() from None
    if "error" in box:
        raise box["error"]
    return box["result"]


def _uninterrupted(wait: Callable[[], object]) -> None:
    """``wait()`` to the end: a second Ctrl-C while the run closes its services does not cut it short."""
    while True:
        try:
            wait()
            return
        except KeyboardInterrupt:
            continue
