"""Notebook 01's numbers: Little's Law, Erlang-B, and the seeded model beside them."""

from __future__ import annotations

import pytest

from bulkhead_lab.course.littles_law_sizing import views
from bulkhead_lab.pool.rounds import run


def test_the_little_view_follows_littles_law_and_erlang_b() -> None:
    v = views.littles_law_view(20.0, 0.1, 5)
    assert v.in_flight == pytest.approx(2.0)
    assert v.hold_rounds == 10
    assert v.utilization == pytest.approx(0.4)
    assert v.pool_headroom == pytest.approx(2.5)
    assert v.suggested_limit == 5
    assert 0 < v.simulated < v.erlang_b  # the discrete rounds refuse a little less than Erlang-B
    assert v.simulated == pytest.approx(v.curve.loc[5, "seeded model"])


@pytest.mark.parametrize(("rate", "hold"), ((97.22, 0.06), (20.0, 0.1), (150.0, 0.05)))
def test_a_bigger_pool_refuses_fewer_calls_and_the_model_tracks_erlang_b(rate, hold) -> None:
    curve = views.littles_law_view(rate, hold, 8).curve
    sim = list(curve["seeded model"])
    assert all(a >= b for a, b in zip(sim, sim[1:], strict=False))
    assert (curve["seeded model"] - curve["Erlang-B"]).abs().max() < 0.05


def test_one_flow_in_a_pool_of_eight_is_the_event_flow_alone() -> None:
    p = views.one_flow_params(97.22, 6, 8)
    assert (p.total - p.split, p.tracking_rate) == (8, 0.0)
    assert run(p).tracking_dropped == 0


def test_a_bigger_event_pool_refuses_fewer_events_and_costs_the_tracking_flow_slots() -> None:
    frame = views.pool_size_cost().frame
    walls = frame.drop(index="single pool (32)")
    assert list(walls["healthy event drop %"]) == sorted(walls["healthy event drop %"], reverse=True)
    assert list(walls["tracking dropped, slowdown day"]) == sorted(walls["tracking dropped, slowdown day"])


def test_on_the_slowdown_day_the_slow_events_fill_whatever_compartment_they_are_given() -> None:
    walls = views.pool_size_cost().frame.drop(index="single pool (32)")
    held = list(walls["slowdown: slots slow events hold"])
    assert held == sorted(held) and held[-1] > 2 * held[0]
    for slots, mean in zip(walls["event slots"], held, strict=True):
        assert mean <= int(slots)


def test_behind_a_wall_the_tracking_flow_drops_the_same_on_both_days_and_without_one_it_does_not() -> None:
    frame = views.pool_size_cost().frame
    healthy, slowdown = frame["tracking dropped, healthy day"], frame["tracking dropped, slowdown day"]
    walls = frame.index != "single pool (32)"
    assert (healthy[walls] == slowdown[walls]).all()
    assert slowdown["single pool (32)"] > 10 * healthy["single pool (32)"]


def test_the_lessons_sizing_figures_are_computed_here_as_printed() -> None:
    frame = views.beside_the_lessons()
    assert (frame["lesson"] == frame["computed here"]).all(), frame


def test_lesson_examples_of_littles_law() -> None:
    ex = views.order_service_example()
    assert (ex.in_flight, ex.limits) == (2.0, (5, 6))
    ev = views.event_flow_sizing()
    assert (round(ev.in_flight, 2), round(ev.headroom, 2)) == (5.83, 1.37)
    assert "1.167 at 5 slots" in ev.sentence()


@pytest.mark.parametrize(
    ("call", "name"),
    (
        (lambda: views.littles_law_view(0.0, 0.1, 5), "arrival_rate"),
        (lambda: views.littles_law_view(20.0, 0.0, 5), "hold"),
        (lambda: views.littles_law_view(20.0, 0.1, 0), "slots"),
    ),
)
def test_a_bad_slider_value_is_one_line_naming_the_parameter(call, name) -> None:
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value).startswith(f"{name} must be") and "\n" not in str(err.value)
