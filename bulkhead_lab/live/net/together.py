"""Independent live experiments side by side: run them at the same time, count their progress as one.

Each experiment starts its own services on free ports of 127.0.0.1 and is bound by sleeps, not
CPU, so several can share one event loop without changing what they measure (each dependency
counts only its own calls). :func:`together` runs them at once and returns their results in the
order given; if one fails, or the caller is cancelled (Kernel > Interrupt through
:func:`~bulkhead_lab.course.ui.runner.run_sync`), every other is cancelled and awaited, so all
their services are closed before the error goes on.

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


async def together(runs: Sequence[Coroutine[Any, Any, T]]) -> list[T]:
    """Run every coroutine at the same time; their results in order (see the module's docstring)."""
    return await gather_all([asyncio.ensure_future(run) for run in runs])


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
