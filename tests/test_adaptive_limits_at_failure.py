"""Where the adaptive limits stand when lesson 000's slowdown starts (notebook 05's table, from the model)."""

from __future__ import annotations

from bulkhead_lab.adaptive.compare import limits_at_failure
from bulkhead_lab.adaptive.pool import ALGORITHMS


def test_24_8_stays_at_its_walls_and_each_algorithm_falls_through_the_slowdown_from_where_it_climbed() -> (
    None
):
    fixed, *adaptive = limits_at_failure()
    assert (fixed.name, fixed.tracking, fixed.event, fixed.event_lowest, fixed.event_mean) == (
        "24/8",
        24,
        8,
        8,
        8.0,
    )
    assert [r.name for r in adaptive] == list(ALGORITHMS)
    for r in adaptive:
        assert r.event_lowest <= r.event_mean and r.event_lowest < r.event
