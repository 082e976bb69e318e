"""Run a live scenario from plain (synchronous) code, such as a slider's callback.

Jupyter's kernel already runs an event loop, so ``asyncio.run`` cannot be called on
its thread. :func:`run_sync` runs the coroutine on a fresh loop in a worker thread and
waits for it; everything the coroutine opened is closed by its own ``async with``
blocks before the loop ends, so nothing stays listening afterwards.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion and return its result (or raise its exception)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = asyncio.run(coro)
        except BaseException as exc:  # handed back to the caller's thread below
            box["error"] = exc

    worker = threading.Thread(target=target, name="bulkhead-lab-live", daemon=True)
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box["result"]
