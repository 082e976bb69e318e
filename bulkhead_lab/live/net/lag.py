"""Was this machine too busy during a live run? The event loop's lag, sampled while the run lasts.

A live lesson fact (forty 5-ms catalog calls done before the first 300-ms answer, every stock
check under 300 ms) holds on any machine that gives the run its CPU. A starved one (a class of
twenty on two cores, a build beside the notebook) delays every callback of the run's loop, and
the fact can come out NO for that reason alone. :func:`watch_lag` measures it: a ticker on the
run's loop asks to wake every :data:`TICK` seconds and records how late it woke (the lag every
callback of the run suffered then); one ticker serves every watch on a loop (runs side by side
share it). :func:`busy_reason` reads a watch as one line, empty for a run that was not starved, so
a healthy run's output never changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

TICK = 0.02  # s between the ticker's wake-ups: fine enough to see a 100-ms stall, cheap (50 a second)
BUSY_LAG = 0.1  # s of loop lag: a third of the lessons' tightest margin (300 ms): starved, not slow
BUSY_LOAD = 1.5  # runnable processes per core over the last minute beyond which the CPU was short


@dataclass
class LagWatch:
    """What a run's loop suffered while watched: the worst lag (s), and the load average at the end."""

    worst: float = 0.0
    load: float | None = None  # os.getloadavg()'s last minute, where the OS has one
    cores: int = 1
    ticks: list[tuple[float, float]] = field(default_factory=list, repr=False)  # (when it woke, how late)


class _Ticker:
    """One per loop while any watch is open: wakes every :data:`TICK` s and gives each watch its lag."""

    def __init__(self) -> None:
        self.by_id: dict[int, LagWatch] = {}
        self.task: asyncio.Task[None] | None = None

    async def tick(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            asked = loop.time() + TICK
            await asyncio.sleep(TICK)
            woke = loop.time()
            lag = woke - asked
            for watch in self.by_id.values():
                watch.ticks.append((woke, lag))
                if lag > watch.worst:
                    watch.worst = lag


_TICKERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Ticker] = weakref.WeakKeyDictionary()


@contextlib.asynccontextmanager
async def watch_lag() -> AsyncIterator[LagWatch]:
    """``async with watch_lag() as lag:`` the block's worst loop lag, in ``lag.worst`` once it ends."""
    loop = asyncio.get_running_loop()
    ticker = _TICKERS.setdefault(loop, _Ticker())
    watch = LagWatch(cores=os.cpu_count() or 1)
    ticker.by_id[id(watch)] = watch
    if ticker.task is None or ticker.task.done():
        ticker.task = loop.create_task(ticker.tick())
    try:
        yield watch
    finally:
        del ticker.by_id[id(watch)]
        if not ticker.by_id and ticker.task is not None:
            ticker.task.cancel()  # asyncio.run gathers it if the loop ends first
            ticker.task = None
        with contextlib.suppress(OSError, AttributeError):  # no load average on Windows
            watch.load = os.getloadavg()[0]


def busy_reason(worst: float, load: float | None = None, cores: int = 1) -> str:
    """``this machine was too busy during the run (loop lag up to 480 ms)``, or "" if it was not.

    Busy: a loop lag of :data:`BUSY_LAG` or more, or a load of :data:`BUSY_LOAD` per core; the load
    is named too when it was over the cores.
    """
    overloaded = load is not None and load >= BUSY_LOAD * cores
    if worst < BUSY_LAG and not overloaded:
        return ""
    said = f"loop lag up to {worst * 1000:.0f} ms"
    if load is not None and load > cores:
        said += f", load {load:.1f} on {cores} cores"
    return f"this machine was too busy during the run ({said})"
