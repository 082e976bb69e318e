"""Notebook 07's two live storms side by side, cancelled at random points (Kernel > Interrupt
cancels the cell's task): both stop, nothing prints and nothing stays listening, as in
test_interrupts's runs."""

from __future__ import annotations

import random

import pytest
from loopback import cancelled_at

pytestmark = pytest.mark.live


def test_side_by_side_storms_cancelled_at_random_points_print_nothing_and_leave_no_port() -> None:
    rng = random.Random(23)
    delays = [round(rng.uniform(1.5, 5.0), 3) for _ in range(3)]  # both runs under way, neither done
    imports = "from bulkhead_lab.live.orders.metastable import run_storms"
    assert cancelled_at(delays, imports, ["run_storms()"]) == ["cancelled 0"] * len(delays)
