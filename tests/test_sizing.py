"""Little's Law, utilization, headroom and Erlang-B give the lessons' sizing figures."""

from __future__ import annotations

import pytest

from bulkhead_lab import sizing
from bulkhead_lab.pool.params import CYCLE, EVENT_RATE, HOLD_EVENT


def test_lesson_004s_payment_has_two_calls_in_flight() -> None:
    assert sizing.in_flight(20, 0.1) == pytest.approx(2.0)
    assert sizing.suggested_limit(20, 0.1) in (5, 6)


def test_lesson_000s_event_flow_needs_5_83_slots() -> None:
    per_round = EVENT_RATE / CYCLE
    assert round(sizing.in_flight(per_round, HOLD_EVENT), 2) == 5.83
    assert round(sizing.headroom(per_round, HOLD_EVENT, 8), 2) == 1.37
    assert round(sizing.utilization(per_round, HOLD_EVENT, 8), 3) == 0.729
    assert round(sizing.utilization(per_round, HOLD_EVENT, 5), 3) == 1.167


@pytest.mark.parametrize(
    ("slots", "offered", "blocking"),
    [(1, 1.0, 0.5), (2, 1.0, 0.2), (10, 5.0, 0.018385), (0, 3.0, 1.0), (5, 0.0, 0.0)],
)
def test_erlang_b_matches_known_values(slots: int, offered: float, blocking: float) -> None:
    assert sizing.erlang_b(slots, offered) == pytest.approx(blocking, abs=1e-6)


def test_erlang_b_falls_as_the_pool_grows() -> None:
    values = [sizing.erlang_b(c, 5.83) for c in range(0, 20)]
    assert all(a > b for a, b in zip(values, values[1:], strict=False))


def test_smallest_pool_is_the_first_size_under_the_target() -> None:
    c = sizing.smallest_pool(5.0, 0.02)
    assert c == 10
    assert sizing.erlang_b(c, 5.0) <= 0.02 < sizing.erlang_b(c - 1, 5.0)


def test_headroom_of_an_idle_flow_is_infinite() -> None:
    assert sizing.headroom(0.0, 6, 8) == float("inf")


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: sizing.in_flight(-1, 1), "arrival_rate"),
        (lambda: sizing.utilization(1, 1, 0), "slots"),
        (lambda: sizing.erlang_b(-1, 1.0), "slots"),
        (lambda: sizing.smallest_pool(1.0, 0.0), "target"),
        (lambda: sizing.smallest_pool(1.0, 1.5), "target"),
    ],
)
def test_bad_sizing_input_names_the_parameter(call, name: str) -> None:
    with pytest.raises(ValueError, match=rf"^{name} must be "):
        call()
