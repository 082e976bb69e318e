"""Notebook 03's exercises: each checker accepts the answer the package's rule computes, and only that."""

from __future__ import annotations

from typing import Any

import pytest

from bulkhead_lab.course.pool_placement import exercises as ex
from bulkhead_lab.course.pool_placement import views
from bulkhead_lab.live.placement.batch import PlacementResult, ideal_ms


def by_the_rules(placement: Any, notif: int, cat: int, skip: int = 0, **_: object) -> PlacementResult:
    """A live batch (3 to 6 s) stood in by one with the rules' counts (tests/live runs real ones)."""
    before = views.expected_catalog_before(placement, notif, cat, skip)
    peak = views.expected_notification_peak(placement, notif, cat, skip)
    took = ideal_ms(placement, notif, cat, skip) + 40.0  # a live batch: its floor and a little more
    return PlacementResult(placement, notif, cat, skip, 40, before, peak, min(cat, 40), took)


@pytest.fixture(autouse=True)
def no_live_batches(monkeypatch):
    """The checks and the worked answers run a live batch; here, the stand-in."""
    monkeypatch.setattr(views, "run", by_the_rules)


def test_the_right_answers_come_from_the_rules() -> None:
    assert ex.peak_1() == ex.NOTIF_1 + ex.SKIP_1 == 10
    assert ex.least_ms_2() == round(ideal_ms("separate", ex.NOTIF_2, ex.CAT_2)) == 6000
    assert ex.catalog_before_3() == 0


@pytest.mark.parametrize(
    ("exercise", "right", "wrong"),
    [
        (ex.exercise_1, "10", ("4", "6", "12", "8")),
        (ex.exercise_2, "6000", ("3000", "300", "12000")),
        (ex.exercise_3, "0", ("40", "20", "1")),
    ],
)
def test_each_checker_says_right_only_to_the_right_answer(exercise, right, wrong) -> None:
    assert exercise.check(right).ok is True
    assert exercise.check(right).message.startswith("Right:")
    for answer in wrong:
        verdict = exercise.check(answer)
        assert verdict.ok is False and verdict.message.startswith("Not yet:")
        assert "Hint:" not in verdict.message  # the hint waits behind the Hint button


def test_seconds_are_read_as_seconds_for_the_duration() -> None:
    assert ex.exercise_2.check("6 s").ok is True


def test_the_worked_answers_give_a_live_batchs_count() -> None:
    assert "notification peak 10 (pool 4 + 6 skipped)" in " ".join(map(str, ex.exercise_1.worked_answer()))
    assert "catalog done before 0 / 40" in " ".join(map(str, ex.exercise_3.worked_answer()))


def test_exercise_1_runs_the_batch_and_compares_the_prediction_with_the_dependency_s_count(
    monkeypatch,
) -> None:
    ran: list[tuple] = []
    stand_in = views.run
    monkeypatch.setattr(views, "run", lambda *a, **k: ran.append(a) or stand_in(*a, **k))
    verdict = ex.exercise_1.check("8")
    assert ran == [("separate", ex.NOTIF_1, ex.CAT_1, ex.SKIP_1)]
    assert verdict.ok is False and "you predicted 8; the batch just run counted 10" in verdict.message
    assert ex.exercise_1.check("10").message.startswith("Right: you predicted 10, and the batch just run")


def test_exercise_2_runs_the_batch_and_puts_a_prediction_beside_its_time(monkeypatch) -> None:
    ran: list[tuple] = []
    stand_in = views.run
    monkeypatch.setattr(views, "run", lambda *a, **k: ran.append(a) or stand_in(*a, **k))
    assert "the batch just run took longer than that" in ex.exercise_2.check("3500").message
    assert "took less than that" in ex.exercise_2.check("9000").message
    assert "near the batch just run (6040 ms)" in ex.exercise_2.check("6020").message
    assert ex.exercise_2.check("6000").message.startswith("Right: ceil(40 / 2) = 20 waves")
    assert ran == [("separate", ex.NOTIF_2, ex.CAT_2)] * 4


@pytest.mark.parametrize(
    ("exercise", "typed"),
    [(ex.exercise_1, typed) for typed in ("-7", "banana", "", None)]
    + [(ex.exercise_2, typed) for typed in ("-7", "0", "banana", "", None, "99999 ms")],
)
def test_an_exercise_runs_no_batch_for_an_answer_it_cannot_read(monkeypatch, exercise, typed) -> None:
    ran: list[tuple] = []
    monkeypatch.setattr(views, "run", lambda *a, **k: ran.append(a))
    assert exercise.check(typed).ok is not True and ran == []
