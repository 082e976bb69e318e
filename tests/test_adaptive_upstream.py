"""The ports against their upstream tests: each upstream test's setup, samples and assertions, replayed.

Netflix/concurrency-limits at commit 78a74b9878d38c4c048b0304ce12a162ab7b7222,
``concurrency-limits-core/src/test/java/com/netflix/concurrency/limits/limit/``:

- ``AIMDLimitTest.java``: testDefault, increaseOnSuccess, decreaseOnDrops, successOverflow (4 of 4);
- ``VegasLimitTest.java``: largeLimitIncrease, increaseLimit, decreaseLimit, noChangeIfWithinThresholds,
  decreaseSmoothing, decreaseWithoutSmoothing and the two ``...DeprecatedBuilderMethod`` twins (8 of 8:
  the twins build the same limit through the builder's deprecated ``decrease``, so one replay each);
- ``ExpAvgMeasurementTest.java``: testWarmup (1 of 1), Gradient2's long average;
- ``Log10RootIntFunctionTest.java``: testInRange, testOutofLookupRange (2 of 3: no limiter shows test0Index).

The repository has no ``Gradient2LimitTest`` (none in its history either): Gradient2's own arithmetic
is pinned by hand traces in ``tests/test_adaptive.py`` and its long average by testWarmup here.
Times are the tests' nanoseconds, passed in the caller's units the ports take (AIMD's 5 s timeout is
5e9 here). ``VegasLimitTest.create()`` sets alpha 3 and beta 6 as constants: at its limit of 10 the
port's 3 log10 L and 6 log10 L are the same 3 and 6, so its tests run on the port's defaults.

envoyproxy/envoy at commit 054694f90329b216ba1e62b645f60f9e5b13d140,
``test/extensions/filters/http/adaptive_concurrency/controller/gradient_controller_test.cc``:
DefaultValuesTest, MinRTTEpoch, MinRTTLogicTest, CancelLatencySample, MinRTTBufferTest,
ConcurrencyLimitBehaviorTestBasic, MinRTTReturnToPreviousLimit, MinRTTRescheduleTest, NoSamplesTest,
TimerAccuracyTest, TimerAccuracyTestNoJitter, ConsecutiveMinConcurrencyReset (12 of 17). Not replayed:
BasicTest, Clamping and BasicTestOverrides (proto parsing and runtime overrides, which the port does not
have), SamplePercentileProcessTest (the filter's forwarding decision: the caller admits calls here) and
MultiThreadSampleInteractions (threads). The test's simulated clock is the port's ``tick(now)`` in ms;
a request's send time is ``now - latency``, as the test's ``sampleLatency`` records it.
"""

from __future__ import annotations

import pytest

from bulkhead_lab.adaptive.clocked import EnvoyGradient
from bulkhead_lab.adaptive.limits import AIMD, Gradient2, Vegas

MS = 1_000_000  # nanoseconds
TIMEOUT = 5_000 * MS  # AIMDLimit's DEFAULT_TIMEOUT, 5 s


# --- AIMDLimitTest ---------------------------------------------------------------------------------


def test_aimd_test_default_builds_an_initial_limit_below_the_floor_and_starts_there() -> None:
    assert AIMD(initial=10, timeout=TIMEOUT).limit == 10


def test_aimd_increase_on_success() -> None:
    limiter = AIMD(initial=20, timeout=TIMEOUT)
    limiter.on_sample(1 * MS, 10, False)
    assert limiter.limit == 21


def test_aimd_decrease_on_drops() -> None:
    limiter = AIMD(initial=30, timeout=TIMEOUT)
    limiter.on_sample(0, 0, True)
    assert limiter.limit == 27


def test_aimd_success_overflow_with_a_floor_of_zero() -> None:
    limiter = AIMD(initial=21, max_limit=21, min_limit=0, timeout=TIMEOUT)
    limiter.on_sample(1 * MS, 10, False)
    assert limiter.limit == 21  # after success limit should still be at the max


# --- VegasLimitTest --------------------------------------------------------------------------------


def _create() -> Vegas:
    return Vegas(initial=10, max_limit=20, smoothing=1.0)


def test_vegas_large_limit_increase() -> None:
    limit = Vegas(initial=10000, max_limit=20000)
    limit.on_sample(10_000 * MS, 5000, False)
    assert limit.limit == 10000
    limit.on_sample(10_000 * MS, 6000, False)
    assert limit.limit == 10024


@pytest.mark.parametrize(("rtt_ms", "inflight", "after"), [(10, 11, 16), (50, 11, 9), (14, 14, 10)])
def test_vegas_increase_decrease_and_no_change_within_thresholds(
    rtt_ms: int, inflight: int, after: int
) -> None:
    """increaseLimit, decreaseLimit, noChangeIfWithinThresholds."""
    limit = _create()
    limit.on_sample(10 * MS, 10, False)
    assert limit.limit == 10
    limit.on_sample(rtt_ms * MS, inflight, False)
    assert limit.limit == after


@pytest.mark.parametrize(("smoothing", "limits"), [(0.5, (75, 56)), (1.0, (50, 25))])
def test_vegas_decrease_with_and_without_smoothing(smoothing: float, limits: tuple[int, int]) -> None:
    """decreaseSmoothing and decreaseWithoutSmoothing (and their DeprecatedBuilderMethod twins)."""
    limit = Vegas(initial=100, max_limit=200, smoothing=smoothing, decrease=lambda current: current / 2)
    limit.on_sample(10 * MS, 100, False)  # pick up first min-rtt
    assert limit.limit == 100
    limit.on_sample(20 * MS, 100, False)  # first decrease
    assert limit.limit == limits[0]
    limit.on_sample(20 * MS, 100, False)  # second decrease
    assert limit.limit == limits[1]


# --- ExpAvgMeasurementTest, Log10RootIntFunctionTest -------------------------------------------------


def test_exp_avg_measurement_warmup_is_gradient2s_long_average() -> None:
    """ExpAvgMeasurement(100, 10): Gradient2's long_window 100, warmup 10."""
    g2 = Gradient2(long_window=100, warmup=10)
    expected = [10.0, 10.5, 11, 11.5, 12, 12.5, 13, 13.5, 14, 14.5]
    for i in range(10):
        g2.on_sample(i + 10, 1)
        assert g2.baseline == pytest.approx(expected[i], abs=0.01)
    g2.on_sample(100, 1)
    assert g2.baseline == pytest.approx(16.2, abs=0.1)


@pytest.mark.parametrize(("limit", "after"), [(100, 98), (10000, 9996)])
def test_log10_root_int_function_is_vegas_decrease_on_a_drop(limit: int, after: int) -> None:
    """testInRange, testOutofLookupRange: a drop takes log10(limit), 2 below the table's end, 4 past it.
    (test0Index, log 0 = 1, no limiter shows: at a limit of 0 every sample is a probe.)"""
    vegas = Vegas(initial=limit, max_limit=20000)
    vegas.on_sample(10 * MS, limit, False)  # the first round trip: the no-load time
    vegas.on_sample(10 * MS, limit, True)
    assert vegas.limit == after


# --- Envoy's gradient_controller_test.cc ---------------------------------------------------------


class Controller:
    """The test fixture's controller on a simulated clock in ms (makeController, sampleLatency, ...)."""

    def __init__(self, request_count: int = 50, min_concurrency: int = 3, buffer: float = 0.25, **kw):
        self.now = 0.0
        self.request_count = request_count
        kw.setdefault("min_rtt_interval", 30_000)
        kw.setdefault("jitter", 0.0)
        self.c = EnvoyGradient(
            None, min_concurrency, 1000, percentile=0.5, buffer=buffer, request_count=request_count,
            update_interval=100, start=0, **kw,
        )  # fmt: skip
        self.advance(42 * 3600 * 1000)  # so the latency samples' send times are after the epoch

    @property
    def limit(self) -> int:
        return self.c.limit

    def advance(self, ms: float) -> None:
        self.now += ms
        self.c.tick(self.now)

    def sample(self, ms: float) -> None:
        self.c.on_sample(ms, 1)

    def past_min_rtt(self, latency: float = 5) -> None:
        for _ in range(self.request_count + 1):
            self.sample(latency)

    def rounds(self, latency: float, times: int, per: int = 5) -> list[int]:
        """``times`` recalculations: ``per`` samples of ``latency``, then 101 ms; the limit after each."""
        limits = []
        for _ in range(times):
            for _ in range(per):
                self.sample(latency)
            self.advance(101)
            limits.append(self.limit)
        return limits


def test_envoy_default_values() -> None:
    c = EnvoyGradient()
    assert (c.percentile, c.jitter, c.request_count, c.min_limit, c.buffer, c.max_limit) == (
        0.5, 0.15, 50, 3, 0.25, 1000,
    )  # fmt: skip


def test_envoy_min_rtt_epoch_disregards_requests_sent_in_the_previous_window() -> None:
    t = Controller(request_count=25, min_concurrency=2, buffer=0.0)
    t.advance(1350)
    assert t.c.measuring_min_rtt and t.limit == 2
    t.past_min_rtt(1350)
    assert not t.c.measuring_min_rtt and t.c.baseline == 1350
    last = t.limit
    for _ in range(29):
        t.advance(1000)
        t.sample(1350)
        assert t.limit > last
        last = t.limit
    outstanding = t.limit
    t.advance(5000)
    assert t.c.measuring_min_rtt and t.limit == 2
    assert outstanding > 25
    for _ in range(outstanding):
        t.sample(5 * 60 * 1000)  # sent five minutes ago: an older epoch
    assert t.c.measuring_min_rtt


def test_envoy_min_rtt_logic() -> None:
    t = Controller(request_count=50, min_concurrency=7)
    assert t.c.measuring_min_rtt and t.limit == 7
    t.advance(13)
    for _ in range(7):
        t.sample(13)
    for _ in range(43):
        assert t.limit == 7
        t.sample(13)
    assert not t.c.measuring_min_rtt and t.c.baseline == 13


def test_envoy_cancel_latency_sample_min_rtt_is_the_median() -> None:
    t = Controller(request_count=5)
    for i in range(1, 6):
        t.sample(i)
    assert t.c.baseline == 3


def test_envoy_min_rtt_buffer_keeps_a_slightly_slower_sample_from_shrinking_the_limit() -> None:
    t = Controller(request_count=5, buffer=0.5)
    assert t.limit == 3
    t.past_min_rtt(5)
    assert t.c.baseline == 5
    last = t.limit
    for limit in t.rounds(6, 10):
        assert limit > last
        last = limit


def test_envoy_concurrency_limit_behavior_basic() -> None:
    t = Controller(request_count=5, buffer=0.1, min_concurrency=7)
    assert t.limit == 7
    t.past_min_rtt(5)
    assert t.c.baseline == 5
    t.advance(101)
    assert t.limit >= 7 and t.limit / 7.0 <= 2.0
    last = t.limit
    for limit in t.rounds(4, 10):  # latencies under the minRTT: it grows, by at most the max gradient
        assert last <= limit and last / limit >= 0.5
        last = limit
    for limit in t.rounds(6, 10):  # now it can shrink as necessary
        assert limit < last and limit >= 7
        last = limit


def _grown(t: Controller) -> None:
    t.past_min_rtt(5)
    t.advance(1000)
    last = t.limit
    for limit in t.rounds(4, 5):
        assert limit > last
        last = limit


def test_envoy_min_rtt_return_to_previous_limit() -> None:
    t = Controller(request_count=5)
    assert t.limit == 3
    _grown(t)
    before = t.limit
    t.advance(31_000)
    assert t.limit == 3
    t.advance(1000)
    for _ in range(5):
        assert t.limit == 3
        t.sample(13)
    assert t.limit == before


def test_envoy_min_rtt_reschedule_no_recalculation_during_the_window() -> None:
    t = Controller(request_count=5)
    _grown(t)
    t.advance(31_000)
    assert t.limit == 3
    t.advance(101)
    assert t.limit == 3


def test_envoy_no_samples_leave_the_limit_alone() -> None:
    t = Controller(request_count=5)
    t.past_min_rtt(5)
    last = t.limit
    for limit in t.rounds(4, 5):
        assert limit > last
        last = limit
    for _ in range(5):
        old = t.limit
        t.advance(101)
        assert t.limit == old


class _Random:
    """The test's MockRandomGenerator: random() returns 15000; Envoy takes it modulo the jitter's range."""

    def randrange(self, n: int) -> int:
        return 15000 % n


@pytest.mark.parametrize(
    ("jitter", "interval", "next_window"), [(0.10, 100_000, 105_000), (0.0, 45_000, 45_000)]
)
def test_envoy_timer_accuracy(jitter: float, interval: int, next_window: int) -> None:
    """TimerAccuracyTest (jitter 10 %: the random value past 10 % of the interval is wrapped) and
    TimerAccuracyTestNoJitter: after the minRTT window, the next opens interval (+ jitter) later, and
    the sample window restarts its 123 ms."""
    c = EnvoyGradient(None, 3, 1000, request_count=5, jitter=jitter, update_interval=123,
                      min_rtt_interval=interval, start=0)  # fmt: skip
    c._random = _Random()  # type: ignore[assignment]
    now = 0.0
    for _ in range(6):
        now += 5
        c.tick(now)
        c.on_sample(5, 1)
        if not c.measuring_min_rtt:
            break
    assert not c.measuring_min_rtt
    assert (c._next_min_rtt, c._next_reset) == (now + next_window, now + 123)


def test_envoy_consecutive_min_concurrency_reset() -> None:
    t = Controller(request_count=5, buffer=0.0, min_concurrency=7, min_rtt_interval=3_600_000)
    assert t.limit == 7
    t.past_min_rtt(5)
    assert t.c.baseline == 5
    t.advance(101)
    assert t.limit >= 7 and t.limit / 7.0 <= 2.0
    t.rounds(10, 5)  # latencies twice the minRTT, five times: a minRTT recalculation
    last = t.limit
    for limit in t.rounds(10, 10):  # grows with the newly measured minRTT
        assert limit >= last
        last = limit
    assert t.c.baseline == 10
