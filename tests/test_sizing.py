"""Little's Law, load per slot, utilization, headroom, Erlang-B, Erlang-C and M/M/c/K: hand-worked values."""

from __future__ import annotations

import pytest

from bulkhead_lab import sizing
from bulkhead_lab.pool.params import CYCLE, EVENT_RATE, HOLD_EVENT


def test_utilization_is_the_carried_share_and_never_passes_one() -> None:
    per_round = EVENT_RATE / CYCLE  # at 8 slots 0.647, as notebook 01 prints
    assert all(sizing.utilization(per_round, HOLD_EVENT, c) < 1 for c in range(1, 12))
    assert sizing.utilization(1.0, 1.0, 1) == pytest.approx(0.5)  # a = 1, B(1, 1) = 1/2: half busy


def test_erlang_c_is_the_share_that_waits_worked_by_hand() -> None:
    # c = 2, a = 1: terms 1, 1 below c; a^2/2! x 2/(2-1) = 1 for the waiting states: 1 / (2 + 1)
    assert sizing.erlang_c(2, 1.0) == pytest.approx(1 / 3)
    # c = 5, a = 2: 1 + 2 + 2 + 4/3 + 2/3 = 7 below c; (32/120) x 5/3 = 4/9 waiting: (4/9) / (7 + 4/9) = 4/67
    assert sizing.erlang_c(5, 2.0) == pytest.approx(4 / 67)
    assert sizing.erlang_c(3, 3.0) == 1.0 and sizing.erlang_c(3, 0.0) == 0.0


def test_a_bulkhead_with_waiting_places_refuses_far_less_than_erlang_b_says() -> None:
    # M/M/1/2 at a = 1: three equally likely states, the full one refuses
    assert sizing.queue_blocking(1, 1, 1.0) == pytest.approx(1 / 3)
    # Lesson 004's Payment, 5 running + 5 waiting at a = 2 (M/M/5/10): states 1, 2, 2, 4/3, 2/3, 4/15,
    # then x 0.4 each; P(10) = (4/15) 0.4^5 / 7.44262 = 0.000367, against Erlang-B's 3.7% for 5 alone
    assert sizing.queue_blocking(5, 5, 2.0) == pytest.approx(0.000366896, rel=1e-5)
    assert sizing.erlang_b(5, 2.0) == pytest.approx(0.0367, abs=1e-4)
    assert sizing.queue_blocking(10, 0, 5.0) == sizing.erlang_b(10, 5.0)  # no queue: Erlang-B


def test_an_overloaded_bounded_queue_refuses_what_its_slots_cannot_carry() -> None:
    # a = 5 on 2 slots: with a long queue the pool carries 2 and refuses 1 - 2/5 (no overflow on the way)
    assert sizing.queue_blocking(2, 1000, 5.0) == pytest.approx(0.6)
    assert sizing.queue_blocking(3, 500, 0.001) < 1e-300


def test_the_2_5x_rule_falls_short_at_a_small_load_and_overshoots_at_a_large_one() -> None:
    """The headroom a 1% target needs shrinks as the load grows: 3.5x at a load of 2, 1.17x at 100."""
    assert sizing.suggested_limit(2.0, 1.0) == 5 < sizing.smallest_pool(2.0, 0.01) == 7
    assert sizing.suggested_limit(100.0, 1.0) == 250 > sizing.smallest_pool(100.0, 0.01) == 117


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
        (lambda: sizing.load_per_slot(1, 1, 0), "slots"),
        (lambda: sizing.erlang_c(0, 1.0), "slots"),
        (lambda: sizing.queue_blocking(5, -1, 1.0), "queue"),
        (lambda: sizing.erlang_b(-1, 1.0), "slots"),
        (lambda: sizing.smallest_pool(1.0, 0.0), "target"),
        (lambda: sizing.smallest_pool(1.0, 1.5), "target"),
    ],
)
def test_bad_sizing_input_names_the_parameter(call, name: str) -> None:
    with pytest.raises(ValueError, match=rf"^{name} must be "):
        call()
