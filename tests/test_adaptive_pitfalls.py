"""What users of adaptive limits trip over, on lesson 000's pool: the facts each pitfall function shows that
notebook 05's stored outputs do not (its drift table, cell c30; Vegas' ramps from 1, c33; smoothing's and
tolerance's sweep, c35: nbval compares those)."""

from __future__ import annotations

import pytest

from bulkhead_lab.adaptive.pitfalls import gradient2_drift, reaction_and_stability, vegas_slow_start
from bulkhead_lab.pool.params import Params


def test_a_long_enough_slowdown_becomes_gradient2s_baseline_and_its_limit_climbs_back() -> None:
    drift = gradient2_drift(3000)
    assert drift.back_at is not None and drift.lowest_at < drift.back_at < drift.start + 1000
    # the long average has moved from the 6-round hold to the slow one
    assert drift.baseline[drift.start] == pytest.approx(6.0, abs=0.5)
    assert drift.baseline[-1] == pytest.approx(22.0, abs=0.5)
    # once it is back, the tracking flow pays as in the single pool
    confined = sum(drift.tracking_dropped[drift.start : drift.back_at])
    after = sum(drift.tracking_dropped[drift.back_at : drift.back_at + (drift.back_at - drift.start)])
    assert after > 2 * confined


def test_vegas_slow_start_ramps_start_from_the_initial_limit() -> None:
    for ramp in vegas_slow_start(initial=2):
        assert ramp.tracking_limit[0] == 2 and ramp.target == 24


def test_aimd_is_blind_to_a_slowdown_under_its_timeout_and_confines_it_over_it() -> None:
    blind, seeing = reaction_and_stability(
        "AIMD", "timeout", (500, 10)
    )  # 5 s, and 0.1 s (under the 22-round hold)
    assert blind.tracking_dropped > 2000 and blind.lowest > 8
    assert seeing.lowest == 1 and seeing.tracking_dropped < 100  # fewer than 24/8's 172


def test_the_drift_is_the_run_that_ends_with_the_slowdown() -> None:
    from bulkhead_lab.adaptive.pool import model_spec, run_pool
    from bulkhead_lab.pool.arrivals import EVENT

    p = Params(mode="slowdown", rounds=1500)
    direct = run_pool(p, None, model_spec("Gradient2", EVENT, p), trace=True).trace
    drift = gradient2_drift(500)
    assert direct is not None
    assert drift.event_limit == direct.event_limit and drift.baseline == direct.event_baseline
    assert drift.tracking_dropped == direct.tracking_dropped
