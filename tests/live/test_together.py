"""Independent live experiments side by side (live/net/side_by_side.py, on live/net/server.py's
all_or_cancel): results in the order given, a failure cancels the others and awaits them, and one
progress sum counts every experiment."""

from __future__ import annotations

import asyncio
import gc
import warnings

import pytest

from bulkhead_lab.live.net.server import all_or_cancel
from bulkhead_lab.live.net.side_by_side import Experiment, Gate, SummedProgress, in_turn, settling


def test_all_or_cancel_returns_results_in_order_and_a_failure_cancels_the_rest() -> None:
    async def main() -> tuple[list[int], list[str]]:
        ended: list[str] = []

        async def slow() -> int:
            try:
                await asyncio.sleep(30)
            finally:
                ended.append("slow closed")
            return 0

        async def quick(n: int) -> int:
            await asyncio.sleep(0.01 * n)
            return n

        ordered = await all_or_cancel([quick(3), quick(1), quick(2)])

        async def broken() -> int:
            await asyncio.sleep(0.05)
            raise ValueError("notif must be 1..1000")

        with pytest.raises(ValueError, match="notif"):
            await all_or_cancel([slow(), broken()])
        return ordered, ended

    assert asyncio.run(main()) == ([3, 1, 2], ["slow closed"])


def test_summed_progress_counts_every_experiment_and_which_have_finished() -> None:
    seen: list[tuple[int, int]] = []
    summed = SummedProgress([10, 20], lambda done, total: seen.append((done, total)))
    first, second = summed.for_run(0), summed.for_run(1)
    first(4, 10)
    second(5, 25)  # an experiment may correct its planned total
    first(10, 10)
    assert seen == [(4, 30), (9, 35), (15, 35)]
    assert (summed.value, summed.total, summed.finished) == (15, 35, 1)


def test_in_turn_runs_those_alone_first_one_at_a_time_each_until_settled_then_the_others() -> None:
    async def main() -> tuple[list[str], list[str]]:
        log: list[str] = []

        async def step(name: str, seconds: float, settled: asyncio.Event | None = None) -> str:
            log.append(f"{name} starts")
            if settled is not None:
                await asyncio.sleep(0.05)
                settling(settled, 0)(1, 1)
                log.append(f"{name} settled")
            await asyncio.sleep(seconds)
            log.append(f"{name} ends")
            return name

        measured = asyncio.Event()
        runs = [
            Experiment(step("a", 0.1)),
            Experiment(step("b", 0.1), alone=True),
            Experiment(step("c", 0.5, measured), alone=True, settled=measured),
            Experiment(step("d", 0.0)),
        ]
        return await in_turn(runs, apart=0.0), log

    results, log = asyncio.run(main())
    assert results == ["a", "b", "c", "d"]  # in the order given
    assert log[:4] == ["b starts", "b ends", "c starts", "c settled"]  # b alone to its end, c until settled
    assert {"a starts", "d starts"} <= set(log[4:])


def test_in_turn_a_failure_alone_cancels_what_started_and_closes_what_never_did() -> None:
    async def main() -> list[str]:
        ended: list[str] = []

        async def slow(settled: asyncio.Event) -> int:
            settled.set()
            try:
                await asyncio.sleep(30)
            finally:
                ended.append("slow closed")
            return 0

        async def broken() -> int:
            await asyncio.sleep(0.05)
            raise ValueError("notif must be 1..1000")

        measured = asyncio.Event()
        runs = [
            Experiment(slow(measured), alone=True, settled=measured),
            Experiment(broken(), alone=True),
            Experiment(slow(asyncio.Event())),  # never started
        ]
        with pytest.raises(ValueError, match="notif"):
            await in_turn(runs)
        return ended

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert asyncio.run(main()) == ["slow closed"]
        gc.collect()
    assert [str(w.message) for w in caught] == []  # no "coroutine ... was never awaited"


def test_in_turn_listen_first_starts_the_loads_apart_longest_first_once_every_one_listens() -> None:
    async def main() -> tuple[list[str], list[tuple[str, float]], list[str]]:
        loop = asyncio.get_running_loop()
        log: list[tuple[str, float]] = []

        async def run(name: str, setup: float, gate: Gate) -> str:
            await asyncio.sleep(setup)  # its services starting
            log.append((f"{name} listens", loop.time()))
            await gate.when_up()
            log.append((f"{name} loads", loop.time()))
            return name

        gates = [Gate(), Gate(), Gate()]
        plan = [("short", 0.01, 1.0), ("long", 0.2, 5.0), ("mid", 0.05, 2.0)]
        experiments = [
            Experiment(run(n, setup, g), seconds, gate=g)
            for (n, setup, seconds), g in zip(plan, gates, strict=True)
        ]
        results = await in_turn(experiments, 0.1, listen_first=True)
        open_gate = Gate()  # without listen_first no gate stays shut
        opened = await in_turn([Experiment(run("free", 0.0, open_gate), gate=open_gate)])
        return results, log, opened

    results, log, opened = asyncio.run(main())
    assert results == ["short", "long", "mid"] and opened == ["free"]
    events = [name for name, _ in log]
    assert events[:3] == ["short listens", "mid listens", "long listens"]
    assert events[3:6] == ["long loads", "mid loads", "short loads"]  # longest planned first
    loads = [t for name, t in log[3:6]]
    assert loads[1] - loads[0] >= 0.1 and loads[2] - loads[1] >= 0.1  # apart, once all listen
