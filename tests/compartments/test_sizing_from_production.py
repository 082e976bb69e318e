"""Sizing from a day's trace, and the four readings of a compartment, by hand and on seeded runs."""

from __future__ import annotations

import math

import pytest

from bulkhead_lab import sizing
from bulkhead_lab.compartments import production, watch
from bulkhead_lab.compartments.watch import Point, Slo


def test_the_day_peaks_at_14_and_falls_to_a_quarter_at_2_in_the_night() -> None:
    assert production.diurnal(14) == 1.0
    assert math.isclose(production.diurnal(2), production.NIGHT)


def test_the_trace_is_seeded_and_its_percentiles_are_ordered() -> None:
    trace = production.day_trace()
    assert trace == production.day_trace()
    assert len(trace) == 48
    for hour in trace:
        assert 0 < hour.p50 < hour.p90 < hour.p99
        assert hour.p50 < hour.mean  # a lognormal's mean lies above its median


def test_a_limit_is_erlang_b_on_rate_times_mean_and_the_p99_rule_takes_about_twice_the_slots() -> None:
    tracking, event = production.limits(production.day_trace())
    for limit in (tracking, event):
        load = limit.hour.rate * limit.hour.mean
        assert limit.slots == sizing.smallest_pool(load, 0.01)
        assert limit.blocking(limit.slots) <= 0.01 < limit.blocking(limit.slots - 1)
        assert limit.by_p99 > 1.5 * limit.slots
        assert limit.blocking(limit.by_p50) > 0.1  # rate x p50 refuses a tenth or more
    assert tracking.slots == 26  # lesson 000's tracking flow again: 416.7/s x 40 ms


def test_saturation_by_hand_is_the_time_at_the_limit_over_the_whole_stretch() -> None:
    timeline = [
        Point(0.0, 0, 0, 0, 2),
        Point(1.0, 2, 0, 0, 2),
        Point(3.0, 1, 0, 0, 2),
        Point(4.0, 2, 1, 0, 2),
    ]
    # full from 1 to 3 and from 4 to 5: 3 s of 5
    assert watch.saturation(timeline, 5.0) == pytest.approx(0.6)


def test_readings_by_hand_ratio_wait_and_burn() -> None:
    timeline = [Point(0.0, 0, 0, 0, 1), Point(1.0, 1, 0, 1, 1), Point(2.0, 0, 0, 1, 1)]
    waits = [0.0] * 98 + [0.2, 0.3]  # the p99 of 100 waits is the 99th smallest
    latencies = [0.1] * 97 + [0.3, 0.4, 0.5]  # three answered later than the SLO's 0.25 s
    r = watch.readings(timeline, 101, waits, latencies, Slo(latency=0.25, target=0.99), until=2.0)
    assert (r.calls, r.refused) == (101, 1)
    assert r.refusal_ratio == pytest.approx(1 / 101)
    assert r.p99_wait == 0.2
    assert r.saturation == pytest.approx(0.5)
    assert r.burn == pytest.approx((1 + 3) / 101 / 0.01)
    assert r.firing(Slo()) == ("saturation", "queue wait", "SLO burn")  # 0.99% refused: under 1%


def test_a_seeded_compartment_never_runs_or_queues_more_than_its_places_and_counts_every_call() -> None:
    run = watch.run_compartment(100.0, 0.22, limit=12, queue=4, duration=20.0)
    assert all(p.running <= 12 and p.queued <= 4 for p in run.timeline)
    admitted = len(run.waits)
    assert admitted + run.timeline[-1].rejected + run.timeline[-1].queued >= run.calls >= admitted
    assert all(w >= 0 for w in run.waits)
    assert run == watch.run_compartment(100.0, 0.22, limit=12, queue=4, duration=20.0)


def test_sized_for_its_load_a_compartment_alerts_on_nothing_and_slowed_on_everything() -> None:
    healthy = watch.run_compartment(100.0, 0.06, limit=13, queue=4).readings()
    slowed = watch.run_compartment(100.0, 0.22, limit=13, queue=4).readings()
    assert healthy.firing(Slo()) == ()
    assert slowed.firing(Slo()) == ("saturation", "refusals", "queue wait", "SLO burn")


def test_the_event_readings_are_kept_and_twice_the_latency_at_the_busiest_hour_refuses_more() -> None:
    calm, slow = production.event_readings(15), production.event_readings(15, 2.0)
    assert production.event_readings(15) is calm
    assert production.lesson_day() is production.lesson_day()
    assert slow.refusal_ratio > calm.refusal_ratio
