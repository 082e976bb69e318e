"""Lesson 000's pool governed by adaptive limits: exact against the lesson where it must be, and its facts."""

from __future__ import annotations

import random

import pytest
from test_model import OTHER_PARAMS

from bulkhead_lab import memo
from bulkhead_lab.adaptive.compare import comparison, controls
from bulkhead_lab.adaptive.limits import AIMD, AdaptiveLimit
from bulkhead_lab.adaptive.pool import (
    ALGORITHMS,
    Governed,
    GovernedPool,
    LimiterSpec,
    model_spec,
    pool_run,
    run_pool,
)
from bulkhead_lab.pool import arrivals
from bulkhead_lab.pool.arrivals import EVENT, TRACKING, arrival_stream
from bulkhead_lab.pool.params import Params
from bulkhead_lab.pool.rounds import run as lesson_run

LESSON = Params()
DAYS = [LESSON.with_(mode=m) for m in ("healthy", "slowdown")]


class Spy(AdaptiveLimit):
    """A fixed compartment that writes down every sample it is given."""

    def __init__(self, size: int) -> None:
        super().__init__(size, size, size)
        self.samples: list[tuple[float, int, bool]] = []

    def on_sample(self, rtt: float, inflight: int, dropped: bool = False) -> int:
        self.samples.append((rtt, inflight, dropped))
        return self.limit

    def on_samples(self, rtt: float, first_inflight: int, count: int) -> int:
        self.samples += [(rtt, i, False) for i in range(first_inflight, first_inflight + count)]
        return self.limit


# --- exact where the split is the lesson's ----------------------------------------------------


@pytest.mark.parametrize("p", DAYS + OTHER_PARAMS, ids=lambda p: f"{p.mode}-seed{p.seed}")
def test_with_no_limiter_the_pool_run_is_the_single_pool_exactly(p: Params) -> None:
    assert run_pool(p.with_(split=None), stream=arrival_stream(p)).counters == lesson_run(p.with_(split=None))


@pytest.mark.parametrize("p", DAYS + OTHER_PARAMS, ids=lambda p: f"{p.mode}-seed{p.seed}")
def test_with_fixed_compartments_the_pool_run_is_the_lessons_split_exactly(p: Params) -> None:
    stream = arrival_stream(p)
    for split in sorted({1, 4, p.total // 2, p.total - 8 if p.total > 8 else 1, p.total - 1}):
        expected = lesson_run(p.with_(split=split), stream=stream)
        assert run_pool(p, split, p.total - split, stream=stream).counters == expected  # all six counters


def test_envoys_first_min_rtt_window_refuses_tracking_calls_on_the_healthy_day() -> None:
    """Envoy pins its first minRTT window to min_concurrency 3: tracking waits for 50 samples at 3 (its cost,
    300 dropped against the single pool's 78, is notebook 05's cell c17)."""
    assert run_pool(LESSON, *controls("Envoy", "both")).refused_by_limit[TRACKING] > 0


@pytest.mark.parametrize("name", ALGORITHMS)
def test_under_the_slowdown_the_event_limit_falls_and_tracking_drops_fewer_than_the_single_pool(
    name: str,
) -> None:
    p = LESSON.with_(mode="slowdown")
    run = run_pool(p, *controls(name, "event"), trace=True)
    assert run.trace is not None
    limit = run.trace.event_limit
    assert min(limit[p.start :]) < limit[p.start]
    assert run.counters.tracking_dropped < lesson_run(p).tracking_dropped


# --- the semantics: samples, drops, idle, determinism -----------------------------------------


def test_a_limiters_own_refusals_are_no_samples_and_a_pool_refusal_is_a_drop_sample_at_once() -> None:
    p = LESSON.with_(mode="slowdown")
    spies: dict[int, Spy] = {}

    def spy(flow: int, size: int):
        return lambda: spies.setdefault(flow, Spy(size))

    run = run_pool(p, spy(TRACKING, 20), spy(EVENT, 20), trace=True)
    assert run.refused_by_limit[TRACKING] > 0 and run.refused_by_pool[TRACKING] > 0
    for flow in (TRACKING, EVENT):
        drops = [s for s in spies[flow].samples if s[2]]
        assert len(drops) == run.refused_by_pool[flow]  # one drop sample per pool refusal, none per own
        assert all(rtt == 0 and 1 <= inflight <= 20 for rtt, inflight, _ in drops)
        assert all(1 <= inflight <= 20 for _, inflight, _ in spies[flow].samples)  # in flight when admitted
    holds = {rtt for rtt, _, dropped in spies[TRACKING].samples if not dropped}
    assert holds == {p.hold_tracking}
    assert {rtt for rtt, _, dropped in spies[EVENT].samples if not dropped} == {p.hold_event, p.slow}
    # Every admitted call is a sample when it completes; those admitted in the last hold rounds never do.
    assert run.trace is not None
    offered = arrivals.stream(p).tracking
    held_at_end = sum(
        offered[t] - run.trace.tracking_dropped[t] for t in range(p.rounds - p.hold_tracking, p.rounds)
    )
    completed = [s for s in spies[TRACKING].samples if not s[2]]
    assert len(completed) == run.counters.tracking_responses - held_at_end


def test_every_refusal_is_a_drop_counted_once_and_the_pool_never_overflows() -> None:
    for p in DAYS:
        stream = arrivals.stream(p)
        for name in ALGORITHMS:
            run = run_pool(p, *controls(name, "both"), trace=True)
            c, trace = run.counters, run.trace
            assert trace is not None
            assert c.tracking_responses + c.tracking_dropped == sum(stream.tracking)
            assert c.event_responses + c.event_dropped == sum(stream.event)
            assert run.refused_by_limit[TRACKING] + run.refused_by_pool[TRACKING] == c.tracking_dropped
            assert run.refused_by_limit[EVENT] + run.refused_by_pool[EVENT] == c.event_dropped
            assert sum(trace.tracking_dropped) == c.tracking_dropped
            assert c.busy_rounds == sum(trace.tracking_inflight) + sum(trace.event_inflight)
            assert max(map(sum, zip(trace.tracking_inflight, trace.event_inflight, strict=True))) <= p.total
            assert all(1 <= x <= p.total for x in trace.tracking_limit + trace.event_limit)


def test_an_ungoverned_flow_is_limited_by_the_pool_alone() -> None:
    run = run_pool(LESSON.with_(mode="slowdown"), *controls("Gradient2", "event"), trace=True)
    assert run.trace is not None and set(run.trace.tracking_limit) == {32}
    assert run.refused_by_limit[TRACKING] == 0 and set(run.trace.tracking_baseline) == {0.0}


@pytest.mark.parametrize("name", ALGORITHMS)
def test_the_same_parameters_give_the_same_trace(name: str) -> None:
    p = LESSON.with_(mode="slowdown")
    first = run_pool(p, *controls(name, "both"), trace=True)
    again = run_pool(p, *controls(name, "both"), stream=arrival_stream(p), trace=True)
    assert first == again


def test_a_trace_is_only_made_when_asked_and_does_not_change_the_counters() -> None:
    p = LESSON.with_(mode="slowdown")
    plain, traced = run_pool(p, *controls("Vegas")), run_pool(p, *controls("Vegas"), trace=True)
    assert plain.trace is None and traced.trace is not None
    assert plain.counters == traced.counters


def test_model_spec_uses_the_sources_defaults_with_the_pools_bounds_and_the_models_seconds() -> None:
    aimd = dict(model_spec("AIMD", TRACKING).settings)
    assert aimd == {"initial": 24, "min_limit": 1, "max_limit": 32, "backoff_ratio": 0.9, "timeout": 500}
    g2 = dict(model_spec("Gradient2", EVENT).settings)
    assert (g2["initial"], g2["smoothing"], g2["queue_size"], g2["long_window"], g2["tolerance"]) == (
        8,
        0.2,
        4,
        600,
        1.5,
    )
    envoy = dict(model_spec("Envoy", EVENT, Params(cycle=50)).settings)
    assert (envoy["min_limit"], envoy["update_interval"], envoy["min_rtt_interval"], envoy["jitter"]) == (
        3,
        5,
        3000,
        0.15,
    )
    assert model_spec("Vegas", EVENT, smoothing=0.5).get("smoothing") == 0.5


def test_a_spec_is_plain_hashable_data_and_builds_a_fresh_limiter_each_time() -> None:
    spec = LimiterSpec.of("Vegas", initial=8, max_limit=32)
    same = LimiterSpec.of("Vegas", max_limit=32, initial=8)
    assert spec == same and hash(spec) == hash(same)
    assert spec.build(seed=1) is not spec.build(seed=1)
    with pytest.raises(ValueError, match="algorithm must be one of AIMD, Vegas, Gradient2, Envoy"):
        LimiterSpec.of("BBR")


def test_a_bad_compartment_flows_or_stop_is_refused_with_one_line() -> None:
    with pytest.raises(ValueError, match=r"tracking compartment must be an integer in 1\.\.32"):
        pool_run(LESSON, 33, None)
    with pytest.raises(ValueError, match="flows must be one of both, event"):
        comparison(flows="tracking")
    with pytest.raises(ValueError, match=r"stop must be an integer in 1000\.\.4000"):
        pool_run(LESSON.with_(mode="slowdown"), stop=4001)


# --- a slowdown that ends (stop) -----------------------------------------------------------------


def test_a_slowdown_that_ends_where_it_starts_is_the_healthy_day_exactly() -> None:
    p = LESSON.with_(mode="slowdown")
    for name in ALGORITHMS:
        control = controls(name, "both")
        ended = run_pool(p, *control, stop=p.start, trace=True)
        healthy = run_pool(p.with_(mode="healthy"), *control, trace=True)
        assert ended == healthy, name


def test_a_slowdown_to_the_last_round_is_the_lessons_and_cache_keeps_them_as_one() -> None:
    p = LESSON.with_(mode="slowdown")
    assert run_pool(p, 24, 8, stop=p.rounds).counters == lesson_run(p.with_(split=24))
    memo.clear()
    pool_run(p, *controls("AIMD"), stop=p.rounds)
    pool_run(p, *controls("AIMD"))
    assert memo.stats()["pool_runs"].hits == 1


@pytest.mark.parametrize("stop", [1200, 2500])
def test_runs_with_different_stops_agree_until_the_earlier_stop(stop: int) -> None:
    p = LESSON.with_(mode="slowdown")
    short = run_pool(p, *controls("Gradient2", "event"), stop=stop, trace=True).trace
    long = run_pool(p, *controls("Gradient2", "event"), trace=True).trace
    assert short is not None and long is not None
    assert short.event_limit[: stop + 1] == long.event_limit[: stop + 1]
    assert short.event_limit[stop + p.slow :] != long.event_limit[stop + p.slow :]


@pytest.mark.parametrize(("slow", "stop"), [(3, None), (6, None), (22, None), (22, 1700)])
def test_every_completed_event_call_is_one_sample_of_its_hold_and_each_pool_refusal_a_drop(
    slow: int, stop: int | None
) -> None:
    """Also when the slowdown is shorter than the healthy hold (3 < 6), and when it ends: from ``stop`` the
    event calls admitted hold the healthy 6 again."""
    p = LESSON.with_(mode="slowdown", slow=slow, start=1500)
    spy = Spy(32)
    run = run_pool(p, None, lambda: spy, trace=True, stop=stop)
    assert run.trace is not None
    offered, end = arrivals.stream(p).event, p.rounds if stop is None else stop
    hold = [slow if p.start <= t < end else p.hold_event for t in range(p.rounds)]
    admitted = [offered[t] - run.trace.event_dropped[t] for t in range(p.rounds)]
    expected = sorted(hold[t] for t in range(p.rounds) for _ in range(admitted[t]) if t + hold[t] < p.rounds)
    assert sorted(rtt for rtt, _, dropped in spy.samples if not dropped) == expected
    assert sum(1 for *_, dropped in spy.samples if dropped) == run.refused_by_pool[EVENT]


def _admit_with_the_hook_inside(pool: GovernedPool, order: tuple[int, ...]) -> tuple[int, int]:
    """One walk that tells the limiter as it goes (what notebook 02's admit did before notebook 05 got its
    own cell): the reference :meth:`GovernedPool.admit` must equal, refusal for refusal."""
    flows = pool.governed
    free = pool.total - sum(s.busy for s in flows)
    taken, room = [0, 0], [s.limit - s.busy for s in flows]
    for f in order:
        if taken[f] >= room[f]:
            pool.idle += free
        elif free:
            taken[f] += 1
            free -= 1
        else:
            flows[f].by_pool += 1
            if flows[f].limiter is not None:
                flows[f].limit = flows[f].limiter.on_sample(0, flows[f].busy + taken[f] + 1, True)
            room[f] = flows[f].limit - flows[f].busy
    for f, slots in enumerate(flows):
        slots.busy += taken[f]
        slots.dropped += order.count(f) - taken[f]
    return taken[0], taken[1]


class Told(AIMD):
    """AIMD that writes down every drop sample it is told."""

    def __init__(self, initial: int, max_limit: int) -> None:
        super().__init__(initial, 1, max_limit)
        self.told: list[tuple[float, int, bool]] = []

    def on_sample(self, rtt: float, inflight: int, dropped: bool = False) -> int:
        self.told.append((rtt, inflight, dropped))
        return super().on_sample(rtt, inflight, dropped)


def _pool(rng: random.Random, total: int, busy: tuple[int, int]) -> GovernedPool:
    flows = []
    for flow in (TRACKING, EVENT):
        limiter = rng.choice([None, Told(rng.randint(1, total), total)])
        slots = Governed(flow, limiter, rng.randint(1, total), 4, 1)
        slots.busy = busy[flow]
        flows.append(slots)
    return GovernedPool(total, flows)


def test_notebook_05s_admit_is_notebook_02s_then_each_pool_refusal_told_in_order() -> None:
    """:meth:`GovernedPool.admit` runs notebook 02's admit and walks the round again: the same slots, the
    same drops and idle slots, and the same drop samples in the same order as one walk with the hook
    inside, limits that move mid-round (and limits already under the busy count) included."""
    rng = random.Random(38)
    for _ in range(3000):
        total = rng.randint(1, 12)
        first = rng.randint(0, total)
        busy = (first, rng.randint(0, total - first))
        order = tuple(rng.randint(0, 1) for _ in range(rng.randint(0, 16)))
        seed = rng.random()  # the same two flows for both: limits, limiters, busy slots
        ours, ref = _pool(random.Random(seed), total, busy), _pool(random.Random(seed), total, busy)
        want = _admit_with_the_hook_inside(ref, order)
        assert ours.admit(0, order, order.count(TRACKING), order.count(EVENT)) == want
        for a, b in zip(ours.governed, ref.governed, strict=True):
            assert (a.busy, a.dropped, a.by_pool, a.limit) == (b.busy, b.dropped, b.by_pool, b.limit)
            if isinstance(a.limiter, Told) and isinstance(b.limiter, Told):
                assert a.limiter.told == b.limiter.told
        assert ours.idle == ref.idle
