"""Notebook 09's exercise 4, a soft partition of the learner's own: the shared candidates, the template and
the course's own cells, and anything else, each judged in one line by lesson 000's two days replayed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from writes import define
from writes.n09_soft_partition import CANDIDATES

from bulkhead_lab.compartments import partition_facts, partitions
from bulkhead_lab.compartments.partitions import Rule
from bulkhead_lab.compartments.stops import DAYS
from bulkhead_lab.course.sharing_compartments import exercises as ex

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / CANDIDATES.notebook
EXERCISE = ex.write_soft_partition
HINT = f" Hint: {EXERCISE.hint}"


def _cell_defining(name: str) -> str:
    """The source of notebook 09's code cell that defines ``name``."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    (source,) = [s for s in sources if f"def {name}(" in s]
    return source


def _from_notebook(name: str) -> object:
    """What the notebook's cell defining ``name`` defines, with the names the notebook imported."""
    namespace: dict[str, object] = {"Rule": Rule}
    exec(compile(_cell_defining(name), "<cell>", "exec"), namespace)  # the notebook's own cell
    return namespace[name]


def _one_line(candidate: object) -> str:
    said = EXERCISE.check(candidate).message
    assert "\n" not in said and "Traceback" not in said
    return said


def test_the_exercise_is_number_4_its_alias_and_its_box_holds_the_templates_name() -> None:
    assert ex.exercise_4 is EXERCISE and EXERCISE.number == CANDIDATES.number == 4
    assert getattr(ex, CANDIDATES.exercise) is EXERCISE
    assert EXERCISE.typed == CANDIDATES.name == "my_soft_partition"


def test_the_courses_own_rule_replays_the_courses_soft_partition_on_both_days() -> None:
    notes = partition_facts.replay(partitions.soft_partition)
    for day, params in DAYS.items():
        assert notes.drops[day] == partitions.run_soft(params, partition_facts.RESERVED)
    assert notes.first is None and notes.differ == 0 and notes.answers > 0
    assert not notes.hard and not notes.single


def test_the_courses_own_cell_and_the_shared_right_source_are_right_with_the_replays_numbers() -> None:
    healthy, slowdown = (partitions.run_soft(p, partition_facts.RESERVED) for p in DAYS.values())
    for candidate in (
        partitions.soft_partition,
        _from_notebook("soft_partition"),
        define(CANDIDATES.right, CANDIDATES.name),
    ):
        said = _one_line(candidate)
        assert said.startswith("Right: with 21/7 reserved and 4 shared, it drops on the healthy day ")
        assert (
            f"the healthy day {healthy.tracking_dropped} tracking and {healthy.event_dropped} event" in said
        )
        assert f"the slowdown day {slowdown.tracking_dropped} tracking and {slowdown.event_dropped}" in said
        assert "of its answers are the course's rule's." in said


def test_the_notebooks_template_cell_is_not_yet_a_single_pool() -> None:
    said = _one_line(_from_notebook(CANDIDATES.name))
    assert said.startswith("Not yet: a single pool: no reserve is kept") and said.endswith(HINT)
    assert "a reserve another flow used" in said


@pytest.mark.parametrize("source", list(CANDIDATES.broken), ids=range(len(CANDIDATES.broken)))
def test_each_broken_candidate_is_not_yet_naming_what_broke(source: str) -> None:
    said = _one_line(define(source, CANDIDATES.name))
    assert said.startswith("Not yet: ") and said.endswith(HINT)
    assert CANDIDATES.broken[source] in said


def test_the_first_broken_candidate_borrows_one_too_many_and_names_the_round_and_the_reserve() -> None:
    first = next(iter(CANDIDATES.broken))
    assert "borrowed <= shared" in first
    said = _one_line(define(first, CANDIDATES.name))
    assert said.startswith("Not yet: in round 5 of the healthy day it let an event call take a slot of ")
    assert "tracking's reserve" in said


def test_a_rule_that_lends_fewer_shared_slots_is_not_yet_even_when_it_never_overfills() -> None:
    def last_kept(reserved: tuple[int, ...], total: int) -> Rule:
        def admits(flow: int, busy: list[int]) -> bool:
            borrowed = sum(max(0, b - r) for b, r in zip(busy, reserved, strict=True))
            return busy[flow] < reserved[flow] or borrowed < total - sum(reserved) - 1

        return admits

    said = _one_line(last_kept)
    assert "1 of the 4 shared slots was free" in said and "a shared slot never lent" in said


def forever(reserved: tuple[int, ...], total: int) -> Rule:
    while True:
        pass


def loops_inside(reserved: tuple[int, ...], total: int) -> Rule:
    def admits(flow: int, busy: list[int]) -> bool:
        while True:
            pass

    return admits


def raises(reserved: tuple[int, ...], total: int) -> Rule:
    def admits(flow: int, busy: list[int]) -> bool:
        raise LookupError("no such flow")

    return admits


class Partition:
    pass


AT_0 = "Not yet: in round 0 of the healthy day "  # the day's first call


@pytest.mark.parametrize(
    ("answer", "line"),
    [
        (None, None),
        ("  ", None),
        (3, "Not yet: 3 is not a function: pass the function itself, e.g. check(my_soft_partition)."),
        (Partition, "Not yet: <class '"),
        ("not a name", "Not yet: 'not a name' is not a name: type your function's name, as its cell"),
        ("my_soft_partition", "Not yet: nothing is called my_soft_partition in this notebook yet: run the"),
        (forever, "Not yet: it was still running after 2 s."),
        (loops_inside, "Not yet: it was still running after 2 s."),
        (raises, AT_0 + "admits(0, [0, 0]) raised LookupError: no such flow."),
        (lambda reserved, total: 1 / 0, "Not yet: <lambda>((21, 7), 32) raised ZeroDivisionError: "),
        (lambda reserved, total: None, "Not yet: <lambda>((21, 7), 32) returned None, not a function admits"),
        (lambda reserved, total: lambda flow, busy: None, AT_0 + "<lambda>(0, [0, 0]) returned None, not"),
        (lambda reserved, total: lambda flow, busy: "yes", AT_0 + "<lambda>(0, [0, 0]) returned 'yes', not"),
        (lambda reserved, total: lambda flow, busy: True, "Not yet: in round 5 of the healthy day it let an "
                                                          "event call take a slot of tracking's reserve"),
    ],
)  # fmt: skip
def test_anything_else_gets_one_line(answer: object, line: str | None) -> None:
    said = _one_line(answer)
    if line is None:
        assert said.startswith("No answer yet. Hint: ")
        return
    assert said.startswith(line) and said.endswith(HINT)


def test_the_worked_answer_shows_the_courses_own_rule() -> None:
    heading, code = EXERCISE.worked_answer()
    assert isinstance(heading, str) and heading.startswith("**The course's own rule**")
    assert isinstance(code, str) and "def soft_partition(reserved" in code and "borrowed < overflow" in code
