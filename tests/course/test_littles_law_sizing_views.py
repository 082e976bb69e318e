"""Notebook 01's numbers: Little's Law, Erlang-B beside the seeded model, and the lessons' sizing figures."""

from __future__ import annotations

import pytest

from bulkhead_lab import sizing
from bulkhead_lab.course.littles_law_sizing import exercises, figures, views


def test_the_little_view_follows_littles_law_and_erlang_b() -> None:
    v = views.littles_law_view(20.0, 0.1, 5)
    assert v.in_flight == pytest.approx(2.0)
    assert v.hold_rounds == 10
    assert v.pool_headroom == pytest.approx(2.5)
    assert v.suggested_limit == 5
    assert v.sized == 7  # at 1%, 2 in flight take 7 slots: more than the 2.5x rule's 5
    assert 0 < v.simulated < v.erlang_b  # the discrete rounds refuse a little less than Erlang-B
    assert v.simulated == pytest.approx(v.curve.loc[5, "seeded model"])


def test_the_table_says_load_per_slot_and_utilization_apart() -> None:
    rows = views.littles_law_view(97.22, 0.06, 5).table()["value"]
    assert rows["offered load per slot (in flight / slots)"] == 1.167  # lesson 000's "utilization"
    assert rows["utilization (busy share of the slots)"] == round(sizing.utilization(0.9722, 6, 5), 3) < 1


@pytest.mark.parametrize(("rate", "hold"), ((97.22, 0.06), (20.0, 0.1), (150.0, 0.05)))
def test_a_bigger_pool_refuses_fewer_calls_and_the_model_tracks_erlang_b(rate, hold) -> None:
    curve = views.littles_law_view(rate, hold, 8).curve
    sim = list(curve["seeded model"])
    assert all(a >= b for a, b in zip(sim, sim[1:], strict=False))
    assert (curve["seeded model"] - curve["Erlang-B"]).abs().max() < 0.05


@pytest.mark.parametrize("slots", (3, 8, 14))
def test_the_rows_that_matter_run_from_below_the_pool_to_the_first_size_under_one_percent(slots) -> None:
    view = views.littles_law_view(97.22, 0.06, slots)
    rows = view.rows_that_matter()
    assert rows.index[0] == max(1, min(slots, 12) - 3) and rows.index[-1] == 13
    assert rows.loc[12, "Erlang-B"] <= 0.01 < rows.loc[11, "Erlang-B"]
    assert len(rows) < len(view.curve) / 2  # not the 32-row table, half of it zeros


def test_exercise_1_twice_the_load_takes_fewer_than_twice_the_slots() -> None:
    n = exercises.right_1()
    assert n == 8 < 2 * exercises.SLOTS_1
    now = sizing.erlang_b(5, 2.0)
    assert sizing.erlang_b(n, 4.0) <= now < sizing.erlang_b(n - 1, 4.0)
    assert exercises.exercise_1.check(n).ok is True
    assert "fewer would do" in repr(exercises.exercise_1.check(10))  # doubling the pool
    assert "more than" in repr(exercises.exercise_1.check(7))


def test_exercise_3_four_waiting_places_keep_payment_under_a_tenth_of_a_percent() -> None:
    q = exercises.right_3()
    assert sizing.queue_blocking(5, q, 2.0) <= 0.001 < sizing.queue_blocking(5, q - 1, 2.0)
    assert "Erlang-B" in repr(exercises.exercise_3.check(0))
    assert exercises.exercise_3.check("none").ok is False
    assert exercises.exercise_3.check(q).ok is True


def test_nothing_above_exercise_2_shows_its_answer() -> None:
    """Issue 37: section 4's rows, the blocking figure's titles and the panel's table showed the 12 slots
    exercise 2 asks for; they show the curve around the pool, and no pool sized for 1%."""
    answer = exercises.smallest_pool_2()
    view = views.littles_law_view(exercises.RATE_2, exercises.HOLD_2, 8)
    rows = view.rows_around_pool()
    assert list(rows.index) == [5, 6, 7, 8, 9, 10] and answer not in rows.index
    assert (rows["Erlang-B"] > views.TARGET).all()  # none of them is a pool sized for 1%
    assert answer in view.rows_that_matter().index  # the worked answer, shown once asked, does
    table = view.table()["value"]
    assert answer not in [v for k, v in table.items() if k != "arrival rate (calls/s)"]
    assert not [k for k in table.index if "1%" in k or "blocking (Erlang-B)" in k and "pool" in k]
    kept = figures.BlockingFigure().update(view)
    assert not [
        t.get_text() for t in kept.figure.texts if "1%" in t.get_text() or f" {answer} slots" in t.get_text()
    ]
