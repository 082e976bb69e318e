"""Every exercise of the course: anything a learner types gets one friendly line, never a traceback."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import ipywidgets as w
import pytest

import bulkhead_lab.course as course
from bulkhead_lab.course.ui.exercise import (
    Exercise,
    NotUnderstood,
    Wrong,
    read_duration,
    read_number,
    read_split,
    read_whole,
    run_trial,
    wrapping,
)
from bulkhead_lab.course.ui.trial import Fault

# One of each kind a learner might type or pass: blank, a number of each sign and size, a split, words,
# what float() and int() cannot take, containers, bytes, another alphabet's digits, numbers in words.
NONSENSE = [
    None, "", "   ", 0, -3, 0.5, "21/11", "single pool", "eleven", "1e400", float("nan"), float("inf"),
    True, [], b"12", object(), 10**30, "x/y/z", "１２", "12 slots", "1,303",
]  # fmt: skip


def _course_exercises() -> dict[int, tuple[Exercise, str]]:
    """Every exercise of the course, once each (by id), with the notebook package whose ``exercises``
    module holds it (not the module of its right answer: that may be the model's)."""
    found: dict[int, tuple[Exercise, str]] = {}
    for info in pkgutil.iter_modules(course.__path__):
        if not info.ispkg:
            continue
        try:
            module = importlib.import_module(f"bulkhead_lab.course.{info.name}.exercises")
        except ModuleNotFoundError:
            continue
        for _, value in sorted(vars(module).items()):
            if isinstance(value, Exercise):  # a code exercise is also its exercise_N: once
                found.setdefault(id(value), (value, info.name))
    return found


FOUND = _course_exercises()
EXERCISES = [e for e, _ in FOUND.values()]


def _package(exercise: Exercise) -> str:
    return FOUND[id(exercise)][1]


@pytest.fixture(autouse=True)
def placement_batches_by_the_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """Notebook 03's predict-then-run checks run a live batch; here, where only the line they answer
    matters, test_pool_placement_exercises' stand-in with the rules' counts."""
    from test_pool_placement_exercises import by_the_rules

    from bulkhead_lab.course.pool_placement import views

    monkeypatch.setattr(views, "run", by_the_rules)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: f"{_package(e)}-{e.number}")
@pytest.mark.parametrize("answer", NONSENSE, ids=lambda a: repr(a)[:12])
def test_any_answer_gets_one_friendly_line(exercise: Exercise, answer: object) -> None:
    feedback = exercise.check(answer)
    message = feedback.message
    assert "\n" not in message and "Traceback" not in message
    assert message.startswith(("Right:", "Not yet:", "No answer yet."))
    assert (feedback.ok is None) == message.startswith("No answer yet.")
    assert "Hint:" not in message  # the hint waits behind its button
    if answer is None or answer in ("", "   "):  # no answer is an invitation, not a verdict
        assert message.startswith("No answer yet. Type ")


def test_each_exercise_has_a_right_answer_its_worked_answer_states() -> None:
    for exercise in EXERCISES:
        parts = exercise.worked_answer()
        assert parts and isinstance(parts[0], str)


def _toy(**kw: object) -> Exercise:
    """An exercise of three, as data: the right answer 3, a known wrong 4, too many or too few."""
    data: dict[str, Any] = dict(
        read=lambda a: read_whole(a, 0, 9),
        right=lambda: 3,
        right_says="{value} it is.",
        wrong=(Wrong(lambda a: a.is_(4), "{value} is one too many."),),
        hint="three",
        worked=("It is {right}.",),
    )
    return Exercise(7, "t", **(data | kw))


def test_the_worked_answer_is_computed_only_when_asked() -> None:
    asked: list[int] = []
    ex = _toy(right=lambda: asked.append(1) or 3, worked=("It is {right}.", lambda a: asked.append(2) or "x"))
    panel = ex.widget()
    assert asked == []
    reveal = next(
        c for c in panel.children[0].children if isinstance(c, w.Button) and c.description == "Show answer"
    )
    reveal.click()
    assert asked == [1, 2] and reveal.disabled


def test_the_hint_waits_behind_its_button_and_shows_whole() -> None:
    panel = _toy().widget()
    hint = next(c for c in panel.children[0].children if isinstance(c, w.Button) and c.description == "Hint")
    shown = panel.children[2]
    assert shown.value == ""
    hint.click()
    assert "Hint: three" in shown.value and "white-space: normal" in shown.value and hint.disabled


def test_the_answer_box_checks_what_is_typed() -> None:
    ex = _toy()
    panel = ex.widget()
    box, check = panel.children[0].children[:2]
    feedback = panel.children[1]
    box.value = "banana"
    assert "Not yet: I could not find a number" in feedback.value
    assert "white-space: normal" in feedback.value  # the line wraps inside its box, whatever its length
    box.value = "<b>x"
    assert "&lt;b&gt;x" in feedback.value  # what a learner typed is shown as text
    box.value = "3"
    check.click()
    assert feedback.value == wrapping("Right: 3 it is.")
    assert f"bl-exercise-{ex.number}" in panel._dom_classes


def test_an_exercise_says_the_right_the_known_wrong_and_the_side_from_its_data() -> None:
    ex = _toy()
    assert ex.check(" 3 ").message == "Right: 3 it is."
    assert ex.check(4).message == "Not yet: 4 is one too many."
    assert ex.check(9).message == "Not yet: 9 is too many."
    assert ex.check("none").message == "Not yet: 0 is too few."
    assert ex.worked_answer() == ["It is 3."]
    assert _toy(tolerance=1.0).check(4).ok is True  # a tolerance widens the right answer


async def _doubled(candidate: object) -> object:
    """A toy check of a learner's function: what it makes of 21."""
    if not callable(candidate):
        raise Fault(f"{candidate!r} is not a function: pass the function itself.")
    return candidate(21)


def test_a_code_exercise_takes_a_function_runs_it_under_a_deadline_and_answers_in_one_line() -> None:
    def spins(x: int) -> int:
        while True:
            x += 1

    ex = _toy(read=lambda f: run_trial(lambda: _doubled(f), 0.5), right=lambda: 42, right_says="{value}.")
    assert ex.check(lambda x: 2 * x).message == "Right: 42."
    assert ex.check(lambda x: x + 1).message == "Not yet: 22 is too few."
    assert ex.check(lambda x: 1 / 0).message == "Not yet: it raised ZeroDivisionError: division by zero."
    assert ex.check(spins).message == "Not yet: it was still running after 0.5 s."
    assert ex.check("MyBulkhead").message.startswith("Not yet: 'MyBulkhead' is not a function")
    assert ex.check(None).ok is None


@pytest.mark.parametrize("typed", ["none", "None.", "zero", "nothing", "no", "Zero calls", 0, "0"])
def test_a_count_of_nought_may_be_typed_as_a_word(typed: object) -> None:
    assert read_whole(typed, 0, 40) == 0


@pytest.mark.parametrize("typed", ["no idea", "one"])
def test_other_words_are_not_a_count(typed: object) -> None:
    with pytest.raises(NotUnderstood, match="could not find a number"):
        read_whole(typed, 0, 40)


def test_none_is_not_a_count_where_nought_is_not_allowed() -> None:
    with pytest.raises(NotUnderstood):
        read_whole("none", 1, 40)


@pytest.mark.parametrize(
    ("typed", "unit", "value"),
    [("9", "s", 9.0), ("9 s", "s", 9.0), ("9000 ms", "s", 9.0), (9000, "s", 9.0), ("6000", "ms", 6000.0),
     ("6 s", "ms", 6000.0), (6, "ms", 6000.0), ("300 ms", "ms", 300.0), ("0.3 seconds", "ms", 300.0)],
)  # fmt: skip
def test_a_duration_is_read_in_the_unit_typed_or_guessed_from_its_size(typed, unit, value) -> None:
    assert read_duration(typed, unit, "a duration") == pytest.approx(value)


@pytest.mark.parametrize(
    ("typed", "number"),
    [
        (11, 11.0),
        ("11", 11.0),
        (" 11 slots", 11.0),
        ("1,303", 1303.0),
        ("2.5%", 2.5),
        ("-3", -3.0),
        (7.25, 7.25),
    ],
)
def test_a_number_is_read_from_what_a_learner_types(typed: object, number: float) -> None:
    assert read_number(typed) == number


@pytest.mark.parametrize(
    ("typed", "split"),
    [
        (24, 24),
        ("24", 24),
        ("24/8", 24),
        (" 21 / 11 ", 21),
        (24.0, 24),
        (0, None),
        ("0", None),
        ("single pool", None),
        ("Single", None),
        ("single pool (32)", None),
    ],
)
def test_a_split_is_read_as_the_model_writes_it(typed: object, split: int | None) -> None:
    assert read_split(typed) == split


@pytest.mark.parametrize(
    ("typed", "why"),
    [
        ("21/12", "is 33, not 32"),
        (32, "not in 1..31"),
        (2.5, "not a whole"),
        ("two pools", "could not find"),
        (True, "yes/no"),
        ([], "is not"),
    ],
)
def test_a_split_that_cannot_be_says_why(typed: object, why: str) -> None:
    with pytest.raises(NotUnderstood, match=why):
        read_split(typed)
