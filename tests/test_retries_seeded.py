"""Notebook 06's seeded runs: the load over time adds up to the runs' counters, the storm's drain is
the package's own, and the exercises' searches find the edge of what they search."""

from __future__ import annotations

import pytest

from bulkhead_lab.pool.arrivals import EVENT, TRACKING
from bulkhead_lab.retries import seeded
from bulkhead_lab.retries.budgets import RatioBudget
from bulkhead_lab.retries.storm import RetrySetup

FIVE_PERCENT = RetrySetup(seeded.LESSON_POLICY, RatioBudget(0.05))


def test_the_retry_loads_rates_add_up_to_its_runs() -> None:
    load = seeded.retry_load(24, FIVE_PERCENT)
    assert load.layouts == (None, 24) and list(load.runs) == [
        (s, m) for s in (None, 24) for m in ("healthy", "slowdown")
    ]
    scale = seeded.BIN / seeded.LESSON.cycle  # a point is a rate over BIN rounds
    assert len(load.time) == 4000 // seeded.BIN and load.time[20] == 10.0
    for split in load.layouts:
        y = seeded.run(split, "slowdown", load.setup)
        for flow, counters in ((TRACKING, y.tracking), (EVENT, y.event)):
            s = load.rates[(split, flow)]
            assert round(sum(s["slowdown"]) * scale) == counters.attempts
            assert round(sum(s["requests"]) * scale) == counters.requests
            assert round(sum(s["gave up"]) * scale) == counters.gave_up
    assert seeded.retry_load(None).layouts == (None,)


def test_a_storm_loads_excess_is_the_slowdown_days_calls_over_the_healthy_days() -> None:
    load = seeded.storm_load(None, RetrySetup(seeded.LESSON_POLICY), stop=2500)
    assert load.layouts == (None,) and load.rounds[0] == 2500 - seeded.STORM_BEFORE
    assert any(x > 0 for x in load.excess[(None, TRACKING)][:10])  # the slowdown's retries show
    assert load.excess[(None, TRACKING)][-1] == 0  # 300 rounds after the end: back
    with pytest.raises(ValueError, match="^stop must be an integer in 1000..3700"):
        seeded.storm_load(stop=3800)


def test_the_largest_ratio_under_the_cap_is_the_edge_of_the_cap() -> None:
    right = seeded.largest_ratio_under()
    assert seeded.event_load(right) <= seeded.LOAD_CAP < seeded.event_load(right + 1)


def test_the_smallest_shared_ratio_protects_tracking_as_its_own_budget_does() -> None:
    exact, target = seeded.smallest_shared_ratio(), seeded.own_budget_level()
    assert seeded.tracking_gave_up(exact) <= target < seeded.tracking_gave_up(exact - 1)
