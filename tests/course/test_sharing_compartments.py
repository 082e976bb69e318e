"""Notebook 09's panels and exercises: each checker reads any spelling (a design object too) and says what is
wrong in one line (nbval compares the tables; tests/course/test_exercise.py what else may be typed)."""

from __future__ import annotations

import pytest

from bulkhead_lab.compartments import partition_sweep
from bulkhead_lab.compartments.design import Compartment, Design
from bulkhead_lab.course.sharing_compartments import exercises as ex
from bulkhead_lab.course.sharing_compartments import panels, views


def test_each_panel_moves_its_mark_and_shows_its_stop_beside_the_lessons_two_layouts() -> None:
    soft = panels.soft_panel()
    curves = soft.set(share=0.5)
    assert curves.label == "12/4 reserved, 16 shared"
    table = views.chosen_table(curves)
    assert list(table.index) == ["single pool (32)", "12/4 reserved, 16 shared", "24/8"]
    shed = panels.shed_panel()
    assert shed.set(keep=3).label == "events shed at 3 free"


def test_the_first_two_checkers_take_the_packages_answers_and_read_any_spelling() -> None:
    assert partition_sweep.first_costly_share() == 6
    for typed in ("6/8", "6", "0.75", "75%"):
        assert ex.exercise_1.check(typed).ok is True, typed
    said = ex.exercise_1.check("half").message
    assert "106 against the single pool's 105 (+1%): within the 20% margin (at most 126)" in said
    assert ex.exercise_2.check(partition_sweep.keep_as_good_as_the_wall()).ok is True
    assert "more than 206" in ex.exercise_2.check(partition_sweep.keep_as_good_as_the_wall() - 1).message


def test_the_design_checker_says_right_for_a_design_that_meets_every_slo_and_why_not_otherwise() -> None:
    right = ex.exercise_3.check(ex.WORKED)
    assert right.ok is True and right.message.startswith(
        "Right: On a day you have not seen, your 36-slot design (timeouts: checkout 0.6 s, search 0.4 s, "
        "reports 8 s) meets"
    )
    typed = ex.exercise_3.check("9/2/0.6, 13/4/0.4, 8/2/8, 6")
    assert typed.message == right.message  # the same design, typed
    for typed in ("9/2/600ms, 13/4/400 ms, 8/2/8s, 6", "9/2/0.6 s, 13/4/0.4, 8/2/8000ms, 6"):
        assert ex.exercise_3.check(typed).message == right.message, typed  # units read
    assert ex.exercise_3.check("9/2/0.6, 13/4/0.4, 8/2/none, 6").ok is False


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("20/0/1, 20/0/1, 0/0/1, 0", "the design must use at most the service's 36 slots (got 40)."),
        ("8/0/0, 15/0/1, 10/0/1, 0", "timeout must be a number > 0 and <= 600 (got 0.0)."),
        ("1, 2", "type four parts"),
        (42, "42 is not a design"),
        (Design(Compartment(30), Compartment(10), Compartment(0)), "at most the service's 36 slots (got 40)"),
    ],
)
def test_a_bad_design_gets_one_line_saying_what_is_wrong(typed: object, says: str) -> None:
    said = ex.exercise_3.check(typed)
    assert said.ok is False and says in said.message and "\n" not in said.message


def test_the_worked_design_is_spelled_from_the_design_itself() -> None:
    assert ex.spelled(ex.WORKED).startswith(
        "checkout 9 reserved, 2 waiting, timeout 0.6 s; search 13 reserved"
    )
