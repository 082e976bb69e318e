"""Independent live experiments side by side (live/net/together.py): results in the order given,
a failure cancels the others and awaits them, and one progress sum counts every experiment."""

from __future__ import annotations

import asyncio

import pytest

from bulkhead_lab.live.net.together import SummedProgress, together


def test_together_returns_results_in_order_and_a_failure_cancels_the_rest() -> None:
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

        ordered = await together([quick(3), quick(1), quick(2)])

        async def broken() -> int:
            await asyncio.sleep(0.05)
            raise ValueError("notif must be 1..1000")

        with pytest.raises(ValueError, match="notif"):
            await together([slow(), broken()])
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
