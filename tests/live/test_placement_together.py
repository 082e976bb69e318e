"""Notebook 03's batches side by side: run together they measure what each measures alone, and
cancelled at any point (Kernel > Interrupt) every batch stops and nothing is left listening."""

from __future__ import annotations

import asyncio
import random

import pytest
from loopback import cancelled_at

from bulkhead_lab.live.net.server import all_or_cancel
from bulkhead_lab.live.placement.batch import run_placement

pytestmark = pytest.mark.live


def test_rows_and_pool_tests_run_together_cancelled_at_random_points_print_nothing_and_leave_no_port() -> (
    None
):
    rng = random.Random(23)
    delays = [round(rng.uniform(0.0, 1.2), 3) for _ in range(3)] + [0.0]
    imports = """
from bulkhead_lab.live.net.server import all_or_cancel
from bulkhead_lab.live.placement.batch import run_placement
from bulkhead_lab.live.placement.lesson import run_lesson
"""
    runs = [
        'all_or_cancel([run_placement("single"), run_placement(), run_placement(skip=8)])',
        "run_lesson()",  # those alone first (cancelled there too), then the others
    ]
    assert cancelled_at(delays, imports, runs) == ["cancelled 0"] * (len(runs) * len(delays))


def test_a_batch_run_together_measures_the_same_as_alone() -> None:
    alone = asyncio.run(run_placement("separate", 4, 4, 8))
    side_by_side = asyncio.run(
        all_or_cancel([run_placement("separate", 4, 4, 8), run_placement("single", 4, 4)])
    )
    facts = [(r.notification, r.catalog, r.catalog_before) for r in (alone, side_by_side[0])]
    assert facts[0] == facts[1] == (12, 4, 40)
