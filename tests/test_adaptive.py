"""The adaptive limits against traces worked out by hand from their sources' formulas, and their properties.

Every expected limit below is computed in the comment beside it from the formula in the
limiter's docstring (concurrency-limits' AIMDLimit, VegasLimit, Gradient2Limit,
WindowedLimit; Envoy's gradient controller), never by calling the code under test.
"""

from __future__ import annotations

import math
import random
import re

import pytest

from bulkhead_lab.adaptive.clocked import EnvoyGradient, Windowed, quantile
from bulkhead_lab.adaptive.limits import AIMD, AdaptiveLimit, Gradient2, Vegas

# --- AIMD -------------------------------------------------------------------------------------


def test_aimd_hand_trace_grows_by_one_when_busy_and_backs_off_by_its_ratio() -> None:
    aimd = AIMD(initial=10, min_limit=1, max_limit=12, backoff_ratio=0.9, timeout=50)
    steps = [
        ((5, 5), 11),  # 5 * 2 = 10 >= 10: 10 + 1
        ((5, 5), 11),  # 10 >= 11 is false: unchanged
        ((5, 6), 12),  # 12 >= 11: 11 + 1
        ((5, 6), 12),  # 12 >= 12: 13, capped at max 12
        ((5, 6, True), 10),  # drop: (int)(12 * 0.9) = (int) 10.8 = 10
        ((60, 6), 9),  # rtt 60 > timeout 50 counts as a drop: (int)(10 * 0.9) = 9
        ((0, 1, True), 8),  # a drop with no round trip: (int)(9 * 0.9) = (int) 8.1 = 8
    ]
    for args, expected in steps:
        assert aimd.on_sample(*args) == expected == aimd.limit


def test_aimd_backs_off_by_its_ratio_on_a_drop_but_never_below_its_minimum() -> None:
    aimd = AIMD(initial=20, min_limit=5, max_limit=200, backoff_ratio=0.5)
    assert [aimd.on_sample(0, 1, True) for _ in range(4)] == [10, 5, 5, 5]  # 20/2, 10/2, (int) 2.5 -> min 5
    low = AIMD(initial=1, min_limit=1, max_limit=10)
    assert low.on_sample(3, 1, True) == 1  # (int) 0.9 = 0, clamped up to 1


def test_aimd_timeout_is_in_the_callers_units_and_defaults_to_five_seconds_of_rounds() -> None:
    aimd = AIMD()
    assert (aimd.limit, aimd.min_limit, aimd.max_limit, aimd.backoff_ratio, aimd.timeout) == (
        20,
        20,
        200,
        0.9,
        500,
    )
    assert aimd.on_sample(499, 20) == 21  # under the timeout: a success
    assert aimd.on_sample(501, 20) == 20  # over it: (int)(21 * 0.9) = 18, clamped to min 20


# --- Vegas ------------------------------------------------------------------------------------


def test_vegas_hand_trace_from_its_queue_estimate() -> None:
    # probe_multiplier 1000: the first probe is >= 0.5 * 1000 * limit samples away.
    vegas = Vegas(initial=10, min_limit=1, max_limit=1000, probe_multiplier=1000)
    steps = [
        ((10, 10), 10, 10),  # first sample: rtt_noload = 10, nothing else
        ((10, 10), 16, 10),  # queue = ceil(10 * (1 - 10/10)) = 0 <= threshold 1: + beta 6
        ((20, 16), 15, 10),  # queue = ceil(16 * (1 - 10/20)) = 8 > beta 6: - log10 -> 15
        ((12, 15), 15, 10),  # queue = ceil(15 * (1/6)) = ceil(2.4999...) = 3: not < alpha 3, not > 6: keep
        ((11, 15), 16, 10),  # queue = ceil(15 * (1/11)) = ceil(1.36) = 2 < alpha 3: + log10 -> 16
        ((10, 3), 16, 10),  # 3 * 2 = 6 < 16: app-limited, keep
        ((5, 16), 16, 5),  # 5 < rtt_noload 10: rtt_noload = 5, nothing else
        ((0, 16, True), 15, 5),  # a drop with no round trip: decrease, 16 - 1
    ]
    for args, limit, noload in steps:
        assert (vegas.on_sample(*args), vegas.baseline) == (limit, noload)


def test_vegas_without_slow_start_grows_by_its_increase_only() -> None:
    vegas = Vegas(initial=10, probe_multiplier=1000, slow_start=False)
    vegas.on_sample(10, 10)  # rtt_noload = 10
    assert vegas.on_sample(10, 10) == 11  # queue 0 < alpha 3: + log10(10) = 1 (not + beta)


def test_vegas_smoothing_moves_the_limit_part_of_the_way() -> None:
    vegas = Vegas(initial=10, probe_multiplier=1000, smoothing=0.5)
    vegas.on_sample(10, 10)
    assert vegas.on_sample(10, 10) == 13  # new 16: 0.5 * 10 + 0.5 * 16 = 13
    assert vegas.estimate == 13.0


def test_vegas_probes_a_new_noload_rtt_after_jitter_times_multiplier_times_limit_samples() -> None:
    seed = 7
    jitter = 0.5 + 0.5 * random.Random(seed).random()  # the first draw of the seeded generator
    vegas = Vegas(initial=10, probe_multiplier=2, seed=seed)
    due = next(n for n in range(1, 100) if jitter * 2 * 10 <= n)  # probe when jitter*mult*limit <= count
    vegas.on_sample(4, 10)  # sample 1: rtt_noload = 4
    for _ in range(due - 2):
        vegas.on_sample(4, 1)  # app-limited samples: the limit stays 10, the count grows
    assert vegas.baseline == 4
    vegas.on_sample(9, 1)  # sample `due`: the probe takes this rtt as the new no-load rtt
    assert vegas.baseline == 9 and vegas.limit == 10


# --- Gradient2 --------------------------------------------------------------------------------


def test_gradient2_hand_trace_in_its_warmup_with_default_settings() -> None:
    g2 = Gradient2(initial=10, min_limit=1, max_limit=100)  # smoothing 0.2, queue 4, tolerance 1.5
    steps = [
        # long = mean so far; gradient = clamp(1.5 long / rtt, 0.5, 1); new = L g + 4; L' = 0.8 L + 0.2 new
        ((10, 10), 10.8, 10.0),  # long 10, g 1: new 14, 8 + 2.8 = 10.8
        ((30, 10), 11.6, 20.0),  # long 20, g 1.5*20/30 = 1: new 14.8, 8.64 + 2.96
        ((90, 11), 11.755556, 130 / 3),  # long 43.33, g 0.7222: new 12.3778, 9.28 + 2.475556
        ((10, 2), 11.755556, 35.0 * 0.95),  # long 35, 35/10 > 2: long *= 0.95; 2 < L/2: app-limited
        ((400, 11), 11.38, 108.0),  # warm-up mean recomputed: 540/5 = 108 (the 0.95 is lost), g 0.405 -> 0.5
    ]  # last: new = 11.755556 * 0.5 + 4 = 9.877778, 9.404444 + 1.975556 = 11.38
    for args, estimate, long in steps:
        g2.on_sample(*args)
        assert g2.estimate == pytest.approx(estimate, abs=1e-6)
        assert g2.limit == int(estimate)
        assert g2.baseline == pytest.approx(long)


def test_gradient2_hand_trace_after_warmup_keeps_the_long_rtt_decay() -> None:
    g2 = Gradient2(
        initial=10,
        min_limit=1,
        max_limit=50,
        smoothing=1.0,
        queue_size=2,
        long_window=3,
        warmup=1,
        tolerance=1.0,
    )
    steps = [  # after the first sample long = 0.5 long + 0.5 rtt (factor 2 / (3 + 1)); L' = L g + 2
        ((10, 10), 12, 10.0),  # long 10: g = 10/10 = 1: 10 + 2
        ((20, 12), 11, 15.0),  # long 15: g = 15/20 = 0.75: 9 + 2
        ((5, 11), 13, 10.0),  # long 10: 10/5 = 2 is not > 2; g = min(1, 2) = 1: 11 + 2
        ((4, 13), 15, 7.0),  # long 7: g 1: 13 + 2
        ((2, 15), 17, 4.275),  # long 4.5: 4.5/2 > 2, so long *= 0.95 -> 4.275 (g uses 4.5: 1): 15 + 2
        ((40, 17), 11, 22.1375),  # long 2.1375 + 20: g = 22.1375/40 = 0.5534375: 9.4084375 + 2 -> 11
    ]
    for args, limit, long in steps:
        assert g2.on_sample(*args) == limit
        assert g2.baseline == pytest.approx(long)
    assert g2.estimate == pytest.approx(11.4084375)


def test_gradient2_has_no_drop_branch_and_a_drop_without_a_round_trip_is_no_sample() -> None:
    g2 = Gradient2(initial=20, min_limit=1, max_limit=50)
    g2.on_sample(4, 20)
    before = (g2.estimate, g2.baseline)
    g2.on_sample(0, 20, True)  # nothing to average: ignored
    assert (g2.estimate, g2.baseline) == before
    g2.on_sample(4, 20, True)  # a drop with a round trip is an ordinary sample (didDrop unused)
    assert g2.estimate > before[0]


# --- Envoy's gradient controller -------------------------------------------------------------


@pytest.mark.parametrize("gradient", [0.5, 0.9, 1.0])
def test_a_gradient2_update_shrinks_the_estimate_only_above_queue_size_over_one_minus_the_gradient(
    gradient: float,
) -> None:
    """Gradient2Limit.java (f2528de): new = L (1 - s) + (g L + q) s, so new < L iff L > q / (1 - g)."""
    g2 = Gradient2(initial=20, min_limit=1, max_limit=10_000)
    point = g2.fixed_point(gradient)
    assert point == (math.inf if gradient == 1 else 4 / (1 - gradient))
    for estimate in [1.0, 3.5, 7.9, 8.0, 8.1, 16.0, 28.0, 39.0, 41.0, 90.0, 200.0, 1000.0]:
        new = g2.next_estimate(estimate, gradient)
        assert new == pytest.approx(estimate * 0.8 + (estimate * gradient + 4) * 0.2)
        if abs(estimate - point) > 1e-9:
            assert (new < estimate) == (estimate > point), (estimate, new)


def test_gradient2_on_sample_is_next_estimate_at_the_clamped_gradient() -> None:
    g2 = Gradient2(initial=28, min_limit=1, max_limit=200, warmup=1)
    g2.on_sample(rtt=6, inflight=28)  # long = 6; gradient clamp(1.5 x 6 / 6) = 1: 28 x 0.8 + 32 x 0.2 = 28.8
    assert g2.estimate == pytest.approx(28.8)
    before, long = g2.estimate, 6 * (1 - 2 / 601) + 22 * 2 / 601
    g2.on_sample(rtt=22, inflight=28)  # gradient clamp(1.5 x long / 22) = 0.5
    assert g2.estimate == pytest.approx(g2.next_estimate(before, max(0.5, min(1.0, 1.5 * long / 22))))


@pytest.mark.parametrize("gradient", [0.5, 0.9, 1.0, 2.0])
def test_an_envoy_update_shrinks_a_whole_limit_only_above_g_over_one_minus_g_squared(gradient: float) -> None:
    """gradient_controller.cc (c35f67f): new = (uint32)(g L + sqrt(g L)), so new < L iff L > g / (1 - g)^2;
    at g < 1 a limit below it holds or grows: 32 at 0.9 (fixed point 90) grows."""
    envoy = EnvoyGradient(min_limit=1, max_limit=100_000)
    point = envoy.fixed_point(gradient)
    assert point == (math.inf if gradient >= 1 else pytest.approx(gradient / (1 - gradient) ** 2))
    for limit in range(1, 2000):
        new = envoy.next_limit(limit, gradient)
        assert new == int(limit * gradient + math.sqrt(limit * gradient))
        if abs(limit - point) > 1e-6:
            assert (new < limit) == (limit > point), (limit, new)
    assert envoy.next_limit(32, 0.9) > 32 and EnvoyGradient().next_limit(3, 0.5) == 3  # min_concurrency


def test_quantile_is_the_nearest_rank() -> None:
    assert quantile([4, 4, 6], 0.5) == 4  # rank ceil(1.5) = 2
    assert quantile([10, 4, 10], 0.5) == 10  # sorted 4, 10, 10: rank 2
    assert quantile([1, 2, 3, 4], 0.9) == 4  # rank ceil(3.6) = 4
    assert quantile([7], 0.0) == 7


def test_envoy_hand_trace_min_rtt_window_then_gradient_windows() -> None:
    envoy = EnvoyGradient(
        initial=10,
        min_limit=2,
        max_limit=40,
        request_count=3,
        update_interval=10,
        min_rtt_interval=1000,
        jitter=0,
    )
    assert (envoy.limit, envoy.measuring_min_rtt) == (2, True)  # pinned to min_concurrency from the start
    envoy.tick(5)
    envoy.on_sample(4, 1)  # sent at 1 >= epoch 0
    envoy.tick(6)
    envoy.on_sample(4, 1)
    assert envoy.limit == 2
    envoy.on_sample(6, 1)  # third sample: minRTT = p50 of 4, 4, 6 = 4; the limit before (10) comes back
    assert (envoy.limit, envoy.measuring_min_rtt, envoy.baseline) == (10, False, 4)
    envoy.tick(10)  # the sample window was re-armed at 6 + 10 = 16: nothing yet
    assert envoy.limit == 10
    envoy.tick(12)
    envoy.on_samples(4, 1, 2)
    envoy.tick(16)  # sampleRTT 4: g = (4 + 1)/4 = 1.25; 12.5 + sqrt(12.5) = 16.04 -> 16
    assert envoy.limit == 16
    envoy.tick(20)
    for rtt in (10, 10, 4):
        envoy.on_sample(rtt, 1)
    envoy.tick(26)  # p50 of 4, 10, 10 = 10: g = 5/10 = 0.5; 8 + sqrt(8) = 10.83 -> 10
    assert envoy.limit == 10
    envoy.tick(36)  # no samples in this window: unchanged
    assert envoy.limit == 10
    envoy.tick(40)
    envoy.on_sample(40, 1)
    envoy.on_sample(1, 1, True)  # Envoy has no drop signal: ignored
    envoy.tick(46)  # 5/40 = 0.125 -> clamp 0.5: 5 + sqrt(5) = 7.24 -> 7
    assert envoy.limit == 7


def test_envoy_ignores_calls_sent_before_the_min_rtt_window_opened() -> None:
    envoy = EnvoyGradient(initial=5, min_limit=2, request_count=2, jitter=0, start=100)
    envoy.tick(103)
    envoy.on_sample(5, 1)  # sent at 98 < epoch 100: not counted
    envoy.on_sample(3, 1)  # sent at 100: counted
    assert envoy.measuring_min_rtt
    envoy.on_sample(2, 1)  # second counted sample: minRTT = p50 of 2, 3 = 2
    assert (envoy.measuring_min_rtt, envoy.baseline, envoy.limit) == (False, 2, 5)


def test_five_envoy_windows_at_the_minimum_open_a_new_min_rtt_window() -> None:
    envoy = EnvoyGradient(initial=3, min_limit=3, request_count=1, update_interval=10, min_rtt_interval=10**6)
    envoy.tick(1)
    envoy.on_sample(1, 1)  # minRTT 1; limit back to 3; windows at 11, 21, ...
    for k in range(1, 6):
        envoy.tick(10 * k)
        envoy.on_sample(10, 1)  # g = 1.25/10 -> 0.5: 1.5 + 1.22 = 2.7 -> 2, clamped to 3
        assert not envoy.measuring_min_rtt
        envoy.tick(10 * k + 1)
    assert envoy.measuring_min_rtt  # the fifth window at 3 re-measures at once


def test_envoy_jitter_delays_the_next_min_rtt_window_by_a_seeded_amount() -> None:
    starts = []
    for _ in range(2):
        envoy = EnvoyGradient(
            initial=10, min_limit=2, request_count=1, min_rtt_interval=100, jitter=0.15, seed=7
        )
        envoy.tick(5)
        envoy.on_sample(1, 1)  # window closes at 5: the next opens at 5 + 100 + [0, ceil(15))
        starts.append(next(t for t in range(6, 200) if (envoy.tick(t), envoy.measuring_min_rtt)[1]))
    assert starts[0] == starts[1] == 105 + random.Random(7).randrange(15)


def test_envoy_has_no_app_limited_guard_so_an_idle_flow_grows_its_limit() -> None:
    envoy = EnvoyGradient(initial=5, min_limit=3, max_limit=100, request_count=1, jitter=0)
    envoy.tick(1)
    envoy.on_sample(1, 1)
    for t in range(2, 200):
        envoy.tick(t)
        envoy.on_sample(1, 1)  # one call in flight, latency at minRTT
    assert envoy.limit == 100


# --- WindowedLimit ----------------------------------------------------------------------------


def test_windowed_hands_one_averaged_sample_per_window_to_its_limit() -> None:
    windowed = Windowed(AIMD(initial=10, min_limit=1, max_limit=100), window_size=2)  # windows of 100 rounds
    windowed.tick(5)
    windowed.on_sample(4, 5)  # 5 > next update 0: window of 1 sample closes, too small; next at 105
    windowed.tick(50)
    windowed.on_sample(4, 6)
    windowed.tick(60)
    windowed.on_sample(6, 4)
    assert windowed.limit == 10
    windowed.tick(106)
    windowed.on_sample(4, 3)  # closes 4, 6, 4: avg 4.67, max in flight 6 -> AIMD: 12 >= 10: 11
    assert windowed.limit == 11
    windowed.tick(150)
    windowed.on_sample(0, 7, True)  # under minRttThreshold: filtered, as an instant drop is
    windowed.tick(207)
    windowed.on_sample(5, 1)  # closes a window of 1 sample: too small
    assert windowed.limit == 11


# --- every limiter: bounds, growth, shrink, recovery, determinism ---------------------------

MAKERS = {
    "AIMD": lambda: AIMD(initial=8, min_limit=2, max_limit=30),
    "Vegas": lambda: Vegas(initial=8, min_limit=2, max_limit=30, seed=3),
    "Gradient2": lambda: Gradient2(initial=8, min_limit=2, max_limit=30),
    "Envoy": lambda: EnvoyGradient(initial=8, min_limit=2, max_limit=30, request_count=5, seed=3),
    "windowed Vegas": lambda: Windowed(Vegas(initial=8, min_limit=2, max_limit=30, seed=3), window_size=1),
}


def _feed(limiter: AdaptiveLimit, start: int, rounds: int, rtt: float, busy: bool, drop: bool = False) -> int:
    """One sample a round at the limit (busy) or at one in flight, the clock ticking; the lowest limit."""
    lowest = limiter.limit
    for t in range(start, start + rounds):
        limiter.tick(t)
        lowest = min(lowest, limiter.on_sample(rtt, limiter.limit if busy else 1, drop))
    return lowest


@pytest.mark.parametrize("name", MAKERS)
def test_bounds_hold_over_random_traces(name: str) -> None:
    rng = random.Random(20260801)
    for _ in range(20):
        limiter = MAKERS[name]()
        for t in range(600):
            limiter.tick(t)
            dropped = rng.random() < 0.1
            rtt = 0 if dropped and rng.random() < 0.5 else rng.choice([1, 2, 4, 6, 22, 50, 0.5])
            limiter.on_sample(rtt, rng.randrange(0, 60), dropped)
            assert 2 <= limiter.limit <= 30


@pytest.mark.parametrize("name", MAKERS)
def test_a_healthy_saturated_flow_grows_the_limit(name: str) -> None:
    limiter = MAKERS[name]()
    _feed(limiter, 0, 400, 4, busy=True)
    assert limiter.limit > 8


@pytest.mark.parametrize("name", ["Vegas", "Gradient2", "Envoy", "windowed Vegas"])
def test_a_slowdown_shrinks_a_delay_based_limit_and_it_recovers(name: str) -> None:
    # (Vegas may then probe the slow rtt as its new no-load rtt: its probe interval shrinks with the limit.)
    limiter = MAKERS[name]()
    _feed(limiter, 0, 400, 4, busy=True)
    grown = limiter.limit
    lowest = _feed(limiter, 400, 150, 20, busy=True)
    assert lowest < grown
    _feed(limiter, 550, 400, 4, busy=True)
    assert limiter.limit > lowest


@pytest.mark.parametrize("name", ["AIMD", "Vegas"])
def test_drops_shrink_a_loss_aware_limit_and_it_recovers(name: str) -> None:
    limiter = MAKERS[name]()
    _feed(limiter, 0, 400, 4, busy=True)
    grown = limiter.limit
    _feed(limiter, 400, 5, 4, busy=True, drop=True)
    dropped = limiter.limit
    assert dropped < grown
    _feed(limiter, 405, 400, 4, busy=True)
    assert limiter.limit > dropped


@pytest.mark.parametrize("name", ["AIMD", "Vegas", "Gradient2"])
def test_an_app_limited_flow_does_not_grow_the_limit(name: str) -> None:
    limiter = MAKERS[name]()
    _feed(limiter, 0, 400, 4, busy=False)
    assert limiter.limit <= 8


@pytest.mark.parametrize("name", MAKERS)
def test_the_same_settings_and_samples_give_the_same_trace(name: str) -> None:
    """Two fresh limiters, not a memo: each draws its jitter (Vegas's probes, Envoy's intervals) from its own
    seeded Random, never the process's, so a run replays."""

    def trace() -> list[int]:
        limiter, rng, out = MAKERS[name](), random.Random(5), []
        for t in range(500):
            limiter.tick(t)
            out.append(limiter.on_sample(rng.choice([4, 6, 22]), rng.randrange(1, 40)))
        return out

    assert trace() == trace()


@pytest.mark.parametrize("name", ["AIMD", "Vegas", "Gradient2", "Envoy"])
def test_a_batch_of_samples_is_exactly_the_same_samples_one_by_one(name: str) -> None:
    rng = random.Random(11)
    one, batch = MAKERS[name](), MAKERS[name]()
    for t in range(400):
        one.tick(t)
        batch.tick(t)
        rtt, first, count = rng.choice([4, 6, 22]), rng.randrange(1, 30), rng.randrange(0, 5)
        for inflight in range(first, first + count):
            one.on_sample(rtt, inflight)
        batch.on_samples(rtt, first, count)
        assert (batch.limit, batch.baseline) == (one.limit, one.baseline)
        if isinstance(one, (Vegas, Gradient2)):
            assert batch.estimate == one.estimate  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: AIMD(initial=-1), "initial must be an integer >= 0"),
        (lambda: AIMD(min_limit=-1), "min_limit must be an integer >= 0"),
        (lambda: AIMD(min_limit=30, max_limit=20), "max_limit must be an integer >= 30"),
        (lambda: AIMD(backoff_ratio=1.0), "backoff_ratio must be"),
        (lambda: Vegas(smoothing=0), "smoothing must be a number > 0"),
        (lambda: Gradient2(tolerance=0.9), "tolerance must be a number >= 1"),
        (lambda: EnvoyGradient(update_interval=0), "update_interval must be an integer >= 1"),
        (lambda: AIMD().on_sample(0, 1), "rtt must be a number > 0"),
        (lambda: Vegas().on_sample(-1, 1, True), "rtt must be a number >= 0"),
    ],
)
def test_a_bad_setting_is_refused_in_one_line_naming_it(make, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        make()
