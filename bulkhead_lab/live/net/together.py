"""Independent live experiments side by side: run them at the same time, count their progress as one.

Each experiment starts its own services on free ports of 127.0.0.1 and is bound by sleeps, not
CPU, so several can share one event loop without changing what they measure (each dependency
counts only its own calls). :func:`together` runs them at once and returns their results in the
order given; if one fails, or the caller is cancelled (Kernel > Interrupt through
:func:`~bulkhead_lab.course.ui.runner.run_sync`), every other is cancelled and awaited, so all
their services are closed before the error goes on.

:func:`staggered` does the same with their starts spread out, longest first, so no two
experiments' busiest moments (their start) meet.

:class:`SummedProgress` gives experiment ``i`` its own ``on_progress(done, total)`` (its
:meth:`~SummedProgress.for_run`) and reports the sum over all of them to one callback, so a single
progress bar counts every experiment running together.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

from bulkhead_lab.live.net.server import Progress, gather_all

T = TypeVar("T")


#: Seconds between two experiments' starts under :func:`staggered`: an experiment's first moments
#: (its services starting, its first burst of calls) are its busiest, and a fact such as "forty
#: 5-ms calls done before the first 300-ms answer" needs them to itself, also beside two CPU hogs.
APART = 0.4


async def together(runs: Sequence[Coroutine[Any, Any, T]]) -> list[T]:
    """Run every coroutine at the same time; their results in order (see the module's docstring)."""
    return await gather_all([asyncio.ensure_future(run) for run in runs])


async def staggered(runs: Sequence[tuple[float, Coroutine[Any, Any, T]]], apart: float = APART) -> list[T]:
    """Run ``(planned_seconds, coroutine)`` pairs side by side, longest planned first, each
    starting at least ``apart`` seconds after the one before and once the event loop is quiet
    again (:func:`quiet`): on a busy machine the one before may need longer for its first moments;
    their results in the order given.

    Longest first, the last start comes while the first still runs, so all of them take
    about the longest's time (plus ``apart`` per experiment, when they are alike).
    """
    longest_first = sorted(range(len(runs)), key=lambda i: -runs[i][0])
    turns = [asyncio.Event() for _ in runs]
    slot = {i: k for k, i in enumerate(longest_first)}

    async def start(i: int) -> T:
        k = slot[i]
        if k:
            await turns[k - 1].wait()
            await asyncio.sleep(apart)
            await quiet()
        turns[k].set()
        return await runs[i][1]

    try:
        return await together([start(i) for i in range(len(runs))])
    finally:
        for _, run in runs:
            run.close()  # one cancelled before its start is closed, never left unawaited


QUIET_TICK = 0.02  # seconds: a sleep this long that wakes within QUIET_LAG of it is a quiet loop
QUIET_LAG = 0.01
QUIET_TICKS = 3  # quiet ticks in a row
QUIET_MOST = 3.0  # seconds: wait no longer than this for a quiet loop (a loaded machine may never be)


async def quiet() -> None:
    """Return once the running loop has woken on time :data:`QUIET_TICKS` times in a row (or after
    :data:`QUIET_MOST` seconds): the experiments already running are past their busiest moments."""
    loop = asyncio.get_running_loop()
    give_up, in_a_row = loop.time() + QUIET_MOST, 0
    while in_a_row < QUIET_TICKS and loop.time() < give_up:
        t0 = loop.time()
        await asyncio.sleep(QUIET_TICK)
        in_a_row = in_a_row + 1 if loop.time() - t0 <= QUIET_TICK + QUIET_LAG else 0


class SummedProgress:
    """Several experiments' progress as one: ``done`` and ``total`` summed over all of them.

    ``totals[i]`` is experiment ``i``'s expected total until it reports its own. ``on_progress``
    (optional) receives the sums after every report; :attr:`finished` counts the experiments whose
    ``done`` reached their ``total``.
    """

    def __init__(self, totals: Sequence[int], on_progress: Progress | None = None) -> None:
        self.totals = list(totals)
        self.done = [0] * len(self.totals)
        self.on_progress = on_progress

    def for_run(self, index: int) -> Progress:
        """Experiment ``index``'s ``on_progress``."""

        def update(done: int, total: int) -> None:
            self.done[index] = done
            self.totals[index] = total
            if self.on_progress is not None:
                self.on_progress(self.value, self.total)

        return update

    @property
    def value(self) -> int:
        return sum(self.done)

    @property
    def total(self) -> int:
        return sum(self.totals)

    @property
    def finished(self) -> int:
        return sum(d >= t for d, t in zip(self.done, self.totals, strict=True))
