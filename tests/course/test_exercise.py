"""Every exercise of the course: anything a learner types gets one friendly line, never a traceback."""

from __future__ import annotations

import importlib
import pkgutil

import ipywidgets as w
import pytest

import bulkhead_lab.course as course
from bulkhead_lab.course.ui.exercise import Exercise, NotUnderstood, read_number, read_split, read_whole

NONSENSE = [
    None,
    "",
    "   ",
    0,
    "0",
    -3,
    "-3",
    0.5,
    "21/11",
    "21/12",
    "24/8",
    "single pool",
    "eleven",
    "?",
    "1e400",
    float("nan"),
    float("inf"),
    True,
    [],
    {},
    (1, 2),
    b"12",
    object(),
    10**30,
    "/",
    "x/y/z",
    "１２",
    "12 slots",
    "1,303",
]


def _course_exercises() -> list[Exercise]:
    found = []
    for info in pkgutil.iter_modules(course.__path__):
        if not info.ispkg:
            continue
        try:
            module = importlib.import_module(f"bulkhead_lab.course.{info.name}.exercises")
        except ModuleNotFoundError:
            continue
        found += [v for k, v in sorted(vars(module).items()) if isinstance(v, Exercise)]
    return found


EXERCISES = _course_exercises()


def test_every_notebook_with_exercises_has_at_least_two() -> None:
    by_module: dict[str, int] = {}
    for ex in EXERCISES:
        module = ex._judge.__module__
        by_module[module] = by_module.get(module, 0) + 1
    assert by_module and all(n >= 2 for n in by_module.values()), by_module


@pytest.mark.parametrize(
    "exercise", EXERCISES, ids=lambda e: f"{e._judge.__module__.split('.')[-2]}-{e.number}"
)
@pytest.mark.parametrize("answer", NONSENSE, ids=lambda a: repr(a)[:12])
def test_any_answer_gets_one_friendly_line(exercise: Exercise, answer: object) -> None:
    feedback = exercise.check(answer)
    message = feedback.message
    assert "\n" not in message and "Traceback" not in message
    assert message.startswith(("Right:", "Not yet:", "No answer yet."))
    assert (feedback.ok is None) == message.startswith("No answer yet.")
    assert feedback.ok is not False or "Hint:" in message or len(message) < 200


def test_no_answer_is_a_hint_not_a_verdict() -> None:
    for exercise in EXERCISES:
        for blank in (None, "", "  "):
            feedback = exercise.check(blank)
            assert feedback.ok is None and feedback.message.startswith("No answer yet. Hint: ")


def test_each_exercise_has_a_right_answer_its_worked_answer_states() -> None:
    for exercise in EXERCISES:
        parts = exercise.worked_answer()
        assert parts and isinstance(parts[0], str)


def test_the_worked_answer_is_computed_only_when_asked() -> None:
    asked = []
    ex = Exercise(9, "t", judge=lambda a: None, hint="h", answer=lambda: asked.append(1) or ["x"])  # type: ignore[arg-type, return-value]
    panel = ex.widget()
    assert asked == []
    reveal = next(
        c for c in panel.children[0].children if isinstance(c, w.Button) and c.description == "Show answer"
    )
    reveal.click()
    assert asked == [1] and reveal.disabled


def test_the_answer_box_checks_what_is_typed() -> None:
    from bulkhead_lab.course.ui.exercise import Feedback

    ex = Exercise(
        7,
        "t",
        judge=lambda a: Feedback(
            read_whole(a, 1, 9) == 3, "Right: 3" if read_whole(a, 1, 9) == 3 else "Not yet: no"
        ),
        hint="three",
        answer=lambda: ["3"],
    )
    panel = ex.widget()
    box, check = panel.children[0].children[:2]
    feedback = panel.children[1]
    box.value = "banana"
    assert feedback.value.startswith("Not yet: I could not find a number")
    box.value = "3"
    check.click()
    assert feedback.value == "Right: 3"
    assert f"bl-exercise-{ex.number}" in panel._dom_classes


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
