"""Notebook 04's exercises: right answers computed by the lesson's rules, checkers that take anything."""

from __future__ import annotations

import math

import fail_fast_queue_runs as fake
import pytest

from bulkhead_lab import sizing
from bulkhead_lab.course.fail_fast_queue import exercises, views

ANYTHING = (None, "", "   ", 0, -7, "21/11 or so", "banana", 8.5, [8], {"a": 1}, float("nan"), True, "1e400")


def test_the_right_answers_follow_the_rules_the_runs_follow() -> None:
    served = min(exercises.ORDERS, exercises.LIMIT_1 + exercises.QUEUE_1)
    assert exercises.refused_1() == exercises.ORDERS - served == 8
    assert exercises.last_answer_2() == math.ceil(served / exercises.LIMIT_1) * exercises.SLOW_S == 9.0
    rate, hold, headroom = exercises.RATE_3, exercises.HOLD_3, exercises.HEADROOM_3
    assert exercises.limit_3() == sizing.suggested_limit(rate, hold, headroom) == 10


@pytest.mark.parametrize("exercise", [exercises.exercise_1, exercises.exercise_2, exercises.exercise_3])
def test_every_checker_takes_anything_and_answers_in_one_line(exercise) -> None:
    for typed in ANYTHING:
        line = exercise.check(typed).message
        assert "\n" not in line and not line.startswith("Right:"), (typed, line)
        assert line.startswith(("No answer yet.", "Not yet:")), (typed, line)


def test_the_right_answers_are_right_however_typed() -> None:
    assert exercises.exercise_1.check("8").ok and exercises.exercise_1.check("8 orders").ok
    for typed in ("9", "9 s", 9.0, "9000 ms"):
        assert exercises.exercise_2.check(typed).ok, typed
    assert exercises.exercise_3.check(10).ok


def test_the_usual_wrong_answers_get_a_pointed_hint() -> None:
    assert "how many are served" in exercises.exercise_1.check(12).message
    assert "waiting places" in exercises.exercise_1.check(16).message
    assert "refused ones never wait" in exercises.exercise_2.check(15).message
    assert "no headroom" in exercises.exercise_3.check(4).message


def test_the_worked_answers_give_the_computed_numbers(monkeypatch) -> None:
    monkeypatch.setattr(views, "run", lambda *a, **kw: fake.limited(0.3))
    assert "**8 refused.**" in exercises.exercise_1.worked_answer()[0]
    assert "rejected: 10" in exercises.exercise_1.worked_answer()[1]  # the stand-in run's own counter
    assert exercises.exercise_2.worked_answer()[0].startswith("**About 9 s.**")
    assert exercises.exercise_3.worked_answer()[0].startswith("**10.**")
