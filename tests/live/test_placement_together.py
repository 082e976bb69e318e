"""Notebook 03's batches side by side: run together they measure what each measures alone, and
cancelled at any point (Kernel > Interrupt) every batch stops and nothing is left listening."""

from __future__ import annotations

import asyncio
import random

import pytest
from loopback import cancelled_at

from bulkhead_lab.live.net.side_by_side import SummedProgress, together
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
    imports = """
from bulkhead_lab.live.net.side_by_side import together
from bulkhead_lab.live.placement.batch import run_placement
from bulkhead_lab.live.placement.lesson import run_lesson
from bulkhead_lab.live.placement.pooltests import run_pool_tests
"""
    runs = [
        'together([run_placement("single"), run_placement(), run_placement(skip=8)])',
        "run_pool_tests()",
        "run_lesson()",  # those alone first (cancelled there too), then the others
    ]
    assert cancelled_at(delays, imports, runs) == ["cancelled 0"] * (len(runs) * len(delays))


def test_a_batch_run_together_measures_the_same_as_alone() -> None:
    alone = asyncio.run(run_placement("separate", 4, 4, 8))
    side_by_side = asyncio.run(together([run_placement("separate", 4, 4, 8), run_placement("single", 4, 4)]))
    facts = [(r.notification, r.catalog, r.catalog_before) for r in (alone, side_by_side[0])]
    assert facts[0] == facts[1] == (12, 4, 40)
