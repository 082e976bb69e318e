"""Notebook 02's exercises: each checker accepts its worked answer and only that."""

from __future__ import annotations

import pytest

from bulkhead_lab.course.single_pool_vs_bulkhead import exercises as ex
from bulkhead_lab.pool import month
from bulkhead_lab.pool.params import TOTAL, split_label


def test_the_event_pool_checker_accepts_only_the_worked_answer() -> None:
    n = ex.smallest_event_pool()
    check = ex.exercise_1.check
    assert check(n).ok is True
    assert check(f"{TOTAL - n}/{n}").ok is True  # the same pool typed as a split
    assert check(n - 1).ok is False
    assert "2% or more" in repr(check(n - 1))
    assert "smaller pool" in repr(check(n + 1))


def test_month_drops_add_the_failures_extra_to_the_healthy_peak_hours() -> None:
    none, three = month.month_drops(24, failures=0), month.month_drops(24, failures=3)
    assert none.failure_tracking == 0 and none.healthy_event == three.healthy_event
    assert three.failure_event == pytest.approx(3 * month.month_drops(24, failures=1).failure_event)
    assert month.month_drops(24).failure_tracking == 0  # the bulkhead keeps the failure off tracking


def test_the_best_month_layout_is_the_tables_minimum() -> None:
    table = ex.month_table()
    best = month.best_split()
    assert table["month dropped"].idxmin() == split_label(best)
    assert ex.exercise_2.check(best if best is not None else "single pool").ok is True
    wrong = 24 if best != 24 else 16
    assert ex.exercise_2.check(wrong).ok is False


def test_more_failures_a_month_favour_the_bulkhead() -> None:
    # with enough failures the bulkhead beats one pool on total drops too
    assert month.best_split(failures=200) is not None


def test_break_even_is_where_the_single_pool_stops_winning_on_tracking() -> None:
    n = month.break_even()
    assert month.month_drops(24, n).tracking < month.month_drops(None, n).tracking
    assert month.month_drops(24, n - 1).tracking >= month.month_drops(None, n - 1).tracking
    assert ex.exercise_3.check(n).ok is True
    assert "too few" in repr(ex.exercise_3.check(n - 1))
    assert ex.exercise_3.check(None).ok is None


def test_one_failure_a_month_is_said_in_the_singular() -> None:
    said = [repr(ex.exercise_3.check(n)) for n in (0, 1, 2, 40)]
    assert not any("1 failures" in s for s in said)
    assert "1 failure a month" in said[1] and "2 failures a month" in said[2]


def test_the_break_even_table_turns_at_the_break_even_count() -> None:
    table = ex.break_even_table()
    n = month.break_even()
    assert list(table["bulkhead wins"]) == [k >= n for k in table.index]
    assert table["24/8 tracking dropped"].nunique() == 1  # failures never reach the bulkhead's tracking pool
