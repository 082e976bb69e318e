"""The split sweep: each compartment run alone and joined equals run() for every split, exactly."""

from __future__ import annotations

import random

import pytest

from bulkhead_lab.pool.arrivals import EVENT, TRACKING, arrival_stream
from bulkhead_lab.pool.params import MODES, Params
from bulkhead_lab.pool.rounds import run
from bulkhead_lab.pool.sweep import join, round_order, run_compartment, split_counters


def _random_params(rng: random.Random) -> Params:
    # Every knob drawn, including the edges: no arrivals, a failure at round 0 or never,
    # holds longer than the run, two-slot pools, one round.
    total = rng.choice([2, 3, rng.randint(2, 40)])
    rounds = rng.choice([1, rng.randint(1, 1200)])
    cycle = rng.choice([1, 10, 50, 100, 250.5])
    return Params(
        seed=rng.randint(1, 2**31 - 2),
        total=total,
        rounds=rounds,
        start=rng.choice([0, rounds, rng.randint(0, rounds)]),
        cycle=cycle,
        tracking_rate=rng.choice([0.0, round(rng.uniform(0, 9) * cycle, 2)]),
        event_rate=rng.choice([0.0, round(rng.uniform(0, 4) * cycle, 3)]),
        hold_tracking=rng.choice([1, rng.randint(1, 15), rounds + 3]),
        hold_event=rng.choice([1, rng.randint(1, 15)]),
        slow=rng.choice([1, rng.randint(1, 60), rounds + 1]),
    )


RANDOM_PARAMS = [_random_params(random.Random(1000 + n)) for n in range(60)]


@pytest.mark.parametrize("mode", MODES)
def test_the_sweep_equals_run_for_every_split_at_the_lessons_defaults(mode) -> None:
    p = Params(mode=mode)
    assert split_counters(p) == tuple(run(p.with_(split=s)) for s in range(1, p.total))


@pytest.mark.parametrize("p", RANDOM_PARAMS, ids=lambda p: f"seed{p.seed}")
def test_the_sweep_equals_run_for_every_split_and_day(p: Params) -> None:
    stream = arrival_stream(p)
    for mode in MODES:
        q = p.with_(mode=mode)
        assert split_counters(q) == tuple(run(q.with_(split=s), stream=stream) for s in range(1, p.total))


def test_the_random_cases_reach_rejections_beside_idle_slots_and_both_pools_full() -> None:
    # The property above is only as strong as its cases: make sure they exercise the
    # rounds where both compartments refuse someone (the clipped part of the idle sum).
    both = idle = 0
    for p in RANDOM_PARAMS:
        stream = arrival_stream(p)
        order = round_order(stream)
        for s in range(1, p.total):
            t = run_compartment(p.with_(mode="slowdown"), TRACKING, s, stream, order)
            e = run_compartment(p.with_(mode="slowdown"), EVENT, p.total - s, stream, order)
            both += len(set(t.drop_rounds) & set(e.drop_rounds))
            idle += join(t, e, order).idle
    assert both > 1000 and idle > 10_000
