"""Notebook 03's batches side by side: run together they measure what each measures alone, and
cancelled at any point (Kernel > Interrupt) every batch stops and nothing is left listening."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import textwrap

import pytest

from bulkhead_lab.live.net.together import SummedProgress, together
from bulkhead_lab.live.placement import lesson
from bulkhead_lab.live.placement.batch import run_placement

pytestmark = pytest.mark.live


def test_the_placement_rows_run_together_keep_the_lessons_peaks_and_catalog_before() -> None:
    todo = [
        lesson.Row(f"{label} {i}", placement, notif, cat, skip)
        for i in range(2)
        for label, placement, notif, cat, skip in lesson.PLACEMENT_ROWS
    ]  # six batches at once, twice the notebook's first table
    summed = SummedProgress([80] * len(todo))
    rows = asyncio.run(lesson.run_rows(todo, summed.for_run))
    facts = [(r.notification, r.catalog_before) for _, r in rows]
    assert facts == [(8, 0), (4, 40), (12, 40)] * 2
    assert [r.catalog for _, r in rows][1::3] == [4, 4]  # a pool each: catalog's own 4 slots
    assert (summed.value, summed.total, summed.finished) == (480, 480, 6)


def test_rows_and_pool_tests_run_together_cancelled_at_random_points_print_nothing_and_leave_no_port() -> (
    None
):
    rng = random.Random(23)
    delays = [round(rng.uniform(0.0, 1.2), 3) for _ in range(3)] + [0.0]
    script = textwrap.dedent(
        f"""
        import asyncio
        from bulkhead_lab.live.placement.lesson import run_lesson
        from bulkhead_lab.live.placement.pooltests import run_pool_tests
        from bulkhead_lab.live.net.together import together
        from bulkhead_lab.live.placement.batch import run_placement

        RUNS = [
            lambda: together([run_placement("single"), run_placement(), run_placement(skip=8)]),
            lambda: run_pool_tests(),
            lambda: run_lesson(),  # those alone first (cancelled there too), then the others
        ]

        def listening():
            import os
            inodes = set()
            for fd in os.listdir("/proc/self/fd"):
                try:
                    target = os.readlink(f"/proc/self/fd/{{fd}}")
                except OSError:
                    continue
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
            with open("/proc/net/tcp") as f:
                next(f)
                return sum(1 for line in f if line.split()[3] == "0A" and line.split()[9] in inodes)

        async def main():
            for make in RUNS:
                for delay in {delays!r}:
                    task = asyncio.create_task(make())
                    await asyncio.sleep(delay)
                    task.cancel()
                    try:
                        await task
                    except asyncio.CancelledError:
                        print("cancelled", listening())
            await asyncio.sleep(0.5)  # anything left behind would wake and complain now

        asyncio.run(main())
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=180)
    assert done.stderr == ""
    assert done.stdout.splitlines() == ["cancelled 0"] * (3 * len(delays))


def test_a_batch_run_together_measures_the_same_as_alone() -> None:
    alone = asyncio.run(run_placement("separate", 4, 4, 8))
    side_by_side = asyncio.run(together([run_placement("separate", 4, 4, 8), run_placement("single", 4, 4)]))
    facts = [(r.notification, r.catalog, r.catalog_before) for r in (alone, side_by_side[0])]
    assert facts[0] == facts[1] == (12, 4, 40)
