"""Seeded runs with the cyclic garbage collector paused while they run (reference counting frees
what they drop, as always; a cycle they leave is collected after them, as usual).

A queueing run (:func:`bulkhead_lab.queues.rounds.run`) makes thousands of calls and keeps them
in lists until they end, so it crosses the collector's thresholds again and again; every few
passes is a full one over the whole process: in a notebook, pandas, matplotlib and the memos'
kept runs. Those full passes find nothing the run made (its calls hold only numbers) and were
1.2 s of the 4.7 s notebook 07's seeded cells took in a plain process (measured with
``gc.callbacks``). Pure: no I/O, only the interpreter's collector switched off and back on.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def collector_paused(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` run with the cyclic collector off, switched back on after it if it was on before
    (nested calls leave it as the outermost found it)."""

    @functools.wraps(fn)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        was_on = gc.isenabled()
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if was_on:
                gc.enable()

    return paused
