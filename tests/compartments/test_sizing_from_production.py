"""Sizing from a day's trace, and the four readings of a compartment, by hand and on seeded runs."""

from __future__ import annotations

import math

import pytest

from bulkhead_lab import sizing
from bulkhead_lab.compartments import hours, production, watch
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


def test_a_limit_is_erlang_b_on_the_busiest_minute() -> None:
    """What the hour's mean, p99 and p50 would give instead is notebook 08's cell c44 (nbval compares it)."""
    for limit in production.limits(production.day_trace()):
        load = limit.peak_hour.peak_rate * limit.peak_hour.mean
        assert limit.slots == sizing.smallest_pool(load, 0.01)
        assert limit.blocking(limit.slots) <= 0.01 < limit.blocking(limit.slots - 1)


def test_the_minutes_average_to_their_hour_and_the_hours_are_the_ones_drawn_before() -> None:
    for hour in production.day_trace():
        assert len(hour.minute_rates) == production.MINUTES
        assert math.isclose(sum(hour.minute_rates) / production.MINUTES, hour.rate)
        assert hour.peak_rate > hour.rate
    assert production.limits(production.day_trace())[0].hour.hour == 14


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
    assert r.firing(Slo()) == ("saturation", "queue wait")  # 0.99% refused: under 1%; a burn of 4: no page
    assert r.firing(Slo(), watch.Alerts(burn=1.0)) == ("saturation", "queue wait", "SLO burn")


def test_the_alert_lines_are_the_workbooks_and_their_budget_shares() -> None:
    alerts = watch.Alerts()
    assert (alerts.burn, alerts.long_window, alerts.short_window) == (14.4, 60, 5)
    assert (alerts.slow_burn, alerts.slow_long, alerts.slow_short) == (6.0, 360, 30)
    assert (alerts.ticket_burn, alerts.ticket_long, alerts.ticket_short) == (1.0, 3 * 24 * 60, 360)
    assert alerts.budget_spent(alerts.burn, alerts.long_window) == pytest.approx(0.02)
    assert alerts.budget_spent(alerts.slow_burn, alerts.slow_long) == pytest.approx(0.05)
    assert alerts.budget_spent(alerts.ticket_burn, alerts.ticket_long) == pytest.approx(0.10)


def test_an_hour_never_runs_or_queues_more_than_its_places_and_sized_for_its_load_alerts_on_nothing() -> None:
    healthy = hours.run_hour([100.0] * 10, 0.06, 13, 4, seed=2)
    slowed = hours.run_hour([100.0] * 10, 0.22, 13, 4, seed=2)
    assert healthy.firing() == ()
    # ten minutes read as the page's long window, all of it burning
    assert slowed.firing() == ("saturation", "refusals", "queue wait", "SLO burn")
    assert slowed.burn(10) > watch.Alerts().burn
    assert all(w >= 0 for w in slowed.waits) and max(slowed.waits) > 0


def test_an_hour_by_hand_counts_each_call_in_the_minute_it_arrived() -> None:
    run = hours.run_hour([5.0, 5.0], 0.05, limit=1, queue=0, seed=3)
    assert len(run.minutes) == 2
    for m in run.minutes:
        assert m.calls >= m.refused + m.late and 0.0 <= m.full <= hours.MINUTE
    assert run.burn(2) == pytest.approx(
        sum(m.refused + m.late for m in run.minutes) / sum(m.calls for m in run.minutes) / 0.01
    )
    assert run == hours.run_hour([5.0, 5.0], 0.05, limit=1, queue=0, seed=3)


def test_a_slowdown_over_the_last_minutes_burns_the_short_window_first() -> None:
    rates = [100.0] * 60
    run = hours.run_hour(rates, 0.06, 15, 4, slower=22 / 6, slow_from=55, seed=15)
    burns = run.minute_burns()
    assert max(burns[:55]) < 1 <= min(burns[55:])
    assert run.burn(5) > watch.Alerts().burn > run.burn(60)
    assert not run.pages() and "SLO burn" not in run.firing()
    whole = hours.run_hour(rates, 0.06, 15, 4, slower=22 / 6, slow_from=0, seed=15)
    assert whole.pages() and "SLO burn" in whole.firing()


def test_the_event_hours_are_kept_and_twice_the_latency_at_the_busiest_hour_refuses_more() -> None:
    calm, slow = production.event_hour(15), production.event_hour(15, 2.0, 60)
    assert production.event_hour(15) is calm
    assert production.lesson_day() is production.lesson_day()
    assert slow.readings().refusal_ratio > calm.readings().refusal_ratio
