"""Independent live experiments side by side: run them at the same time, count their progress as one.

Each experiment starts its own services on free ports of 127.0.0.1 and is bound by sleeps, not
CPU, so several can share one event loop without changing what they measure (each dependency
counts only its own calls). :func:`~bulkhead_lab.live.net.server.all_or_cancel` runs them at once and
returns their results in the order given; if one fails, or the caller is cancelled (Kernel > Interrupt
through :func:`~bulkhead_lab.live.sync.run_sync`), every other is cancelled and awaited, so all their
services are closed before the error goes on.

:func:`staggered` does the same with their starts spread out, longest first, so no two
experiments' busiest moments (their start) meet.

:func:`in_turn` runs "these alone, those together": each :class:`Experiment` marked ``alone`` runs
by itself first, one after another (until it ends, or until its fact is measured: its ``settled``
event), then all the others side by side (:func:`staggered`). An experiment whose fact is a race
against the clock (notebook 03's "forty 5-ms calls done before the first 300-ms answer", notebook
04's wall-clock budgets) is marked ``alone``, so the fact does not rest on how busy the loop is.
With ``listen_first``, the others start all at once instead, and each waits at its :class:`Gate`
once its services listen: their loads then start ``apart`` seconds apart, longest first (notebook
04: each run's burst has the CPU to itself, a later one's meets the earlier ones' slow calls).

:class:`SummedProgress` gives experiment ``i`` its own ``on_progress(done, total)`` (its
:meth:`~SummedProgress.for_run`) and reports the sum over all of them to one callback, so a single
progress bar counts every experiment running together.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from bulkhead_lab.live.net.server import Progress, all_or_cancel, cancel_all

T = TypeVar("T")


#: Seconds between two experiments' starts under :func:`staggered`: an experiment's first moments
#: (its services starting, its first burst of calls) are its busiest, and a fact such as "forty
#: 5-ms calls done before the first 300-ms answer" needs them to itself, also beside two CPU hogs.
APART = 0.4


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
        return await all_or_cancel([start(i) for i in range(len(runs))])
    finally:
        for _, run in runs:
            run.close()  # one cancelled before its start is closed, never left unawaited


@dataclass
class Gate:
    """Where an experiment waits under ``in_turn(..., listen_first=True)``: its run awaits
    :meth:`when_up` once its services listen, and goes on when :func:`in_turn` opens the gate."""

    listening: asyncio.Event = field(default_factory=asyncio.Event)
    go: asyncio.Event = field(default_factory=asyncio.Event)

    async def when_up(self) -> None:
        self.listening.set()
        await self.go.wait()


@dataclass
class Experiment(Generic[T]):
    """One independent live experiment for :func:`in_turn`: its run and its planned ``seconds``
    (those side by side start longest first).

    ``alone``: nothing else starts while it runs, until it ends or, if ``settled`` is given, until
    the experiment sets that event (what must have the loop to itself is measured; see
    :func:`settling`). Experiments started before it keep running. ``gate``: the :class:`Gate` its
    run waits at once its services listen (needed by the others under ``listen_first``).
    """

    run: Coroutine[Any, Any, T]
    seconds: float = 0.0
    alone: bool = False
    settled: asyncio.Event | None = None
    gate: Gate | None = None


async def in_turn(
    experiments: Sequence[Experiment[T]], apart: float = APART, *, listen_first: bool = False
) -> list[T]:
    """Those marked ``alone`` one at a time, longest first, each started once the one before has
    settled; then all the others side by side (:func:`staggered`, or :func:`listening_first` if
    ``listen_first``); their results in the order given. A failure, or the caller's cancellation,
    cancels every one started and awaits it."""
    started: list[asyncio.Future[Any]] = []
    alone = sorted((i for i, e in enumerate(experiments) if e.alone), key=lambda i: -experiments[i].seconds)
    rest = [i for i, e in enumerate(experiments) if not e.alone]
    for e in experiments:
        if e.gate is not None and (e.alone or not listen_first):
            e.gate.go.set()  # only listening_first shuts a gate
    try:
        for i in alone:
            started.append(asyncio.ensure_future(experiments[i].run))
            await _settle(started[-1], experiments[i].settled)
        others = [experiments[i] for i in rest]
        side = (
            listening_first(others, apart)
            if listen_first
            else staggered([(e.seconds, e.run) for e in others], apart)
        )
        started.append(asyncio.ensure_future(side))
        *firsts, others = await all_or_cancel(started)
    except BaseException:
        await cancel_all(started)
        raise
    finally:
        for e in experiments:
            e.run.close()  # one never started is closed, never left unawaited
    results = dict(zip(alone, firsts, strict=True)) | dict(zip(rest, others, strict=True))
    return [results[i] for i in range(len(experiments))]


async def listening_first(experiments: Sequence[Experiment[T]], apart: float) -> list[T]:
    """Start every experiment at once; once all their services listen (each at its :class:`Gate`),
    open their gates ``apart`` seconds apart, longest planned first; their results in order."""
    gates = [e.gate for e in experiments if e.gate is not None]
    if len(gates) < len(experiments):
        raise ValueError("listen_first: every experiment run side by side needs a gate (Experiment.gate)")

    async def open_gates() -> None:
        for gate in gates:
            await gate.listening.wait()
        for k, i in enumerate(sorted(range(len(gates)), key=lambda i: -experiments[i].seconds)):
            if k:
                await asyncio.sleep(apart)
            gates[i].go.set()

    opener = asyncio.ensure_future(open_gates())
    try:
        return await all_or_cancel([e.run for e in experiments])
    finally:
        await cancel_all([opener])  # one that failed before it listened: the others' gates stay shut


async def _settle(task: asyncio.Future[Any], settled: asyncio.Event | None) -> None:
    """Wait until ``task`` has ended or ``settled`` is set; raise what the task raised."""
    waiter = asyncio.ensure_future(settled.wait()) if settled is not None else None
    try:
        await asyncio.wait([task] if waiter is None else [task, waiter], return_when=asyncio.FIRST_COMPLETED)
    finally:
        if waiter is not None:
            waiter.cancel()
    if task.done():
        task.result()


def settling(settled: asyncio.Event, after: int, on_progress: Progress | None = None) -> Progress:
    """An experiment's ``on_progress`` that sets ``settled`` once more than ``after`` answers are in,
    and passes every report on to ``on_progress``."""

    def update(done: int, total: int) -> None:
        if done > after:
            settled.set()
        if on_progress is not None:
            on_progress(done, total)

    return update


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
