"""Notebook 03's exercise 4, a pool per dependency of the learner's own: the shared candidates, the
template and the course's own, and anything else, each judged in one line by lesson 003's batch replayed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from writes import define
from writes.n03_pool_per_dependency import CANDIDATES

from bulkhead_lab.course.pool_placement import exercises as ex
from bulkhead_lab.live.placement import pool_facts
from bulkhead_lab.live.placement.batch import CALLS

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / CANDIDATES.notebook
EXERCISE = ex.write_pool_per_dependency
HINT = f" Hint: {EXERCISE.hint}"
CASE_1 = "Not yet: case 1 (limits notification 4, catalog 4): "


def _cell_defining(name: str) -> str:
    """The source of notebook 03's code cell that defines ``name``."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    (source,) = [s for s in sources if f"def {name}(" in s]
    return source


def _one_line(candidate: object) -> str:
    said = EXERCISE.check(candidate).message
    assert "\n" not in said and "Traceback" not in said
    return said


def test_the_exercise_is_number_4_its_alias_and_its_box_holds_the_templates_name() -> None:
    assert ex.exercise_4 is EXERCISE and EXERCISE.number == CANDIDATES.number == 4
    assert getattr(ex, CANDIDATES.exercise) is EXERCISE
    assert EXERCISE.typed == CANDIDATES.name == "my_pool_for"


def test_the_courses_own_replays_each_case_at_its_limits_with_no_neighbour_waiting() -> None:
    for limits in pool_facts.CASES:
        replay = pool_facts.judge_case(pool_facts.pool_for_each, limits)
        assert replay.peak == limits
        assert replay.before == {d: CALLS for d in limits if d != pool_facts.SLOW}
        assert replay.first_ms == pool_facts.LATENCY_MS[pool_facts.SLOW]


def test_the_courses_own_and_the_shared_right_source_are_right_with_the_replays_numbers() -> None:
    for candidate in (pool_facts.pool_for_each, define(CANDIDATES.right, CANDIDATES.name)):
        said = _one_line(candidate)
        assert said.startswith(
            "Right: case 1, each saw its limit at once (notification 4, catalog 4) and catalog 40 / 40 "
            "calls were done before notification's first answer (300 ms); case 2, each saw its limit at "
            "once (notification 2, payment 3, catalog 5)"
        ), said


def test_the_notebooks_template_cell_is_not_yet_it_is_one_shared_pool() -> None:
    template = define(_cell_defining(CANDIDATES.name), CANDIDATES.name)
    said = _one_line(template)
    assert said == (
        "Not yet: case 1 (limits notification 4, catalog 4): notification saw 8 calls at once where its "
        f"limit is 4: it shares one pool of 8 slots with catalog.{HINT}"
    )


@pytest.mark.parametrize("source", list(CANDIDATES.broken), ids=range(len(CANDIDATES.broken)))
def test_each_broken_candidate_is_not_yet_naming_what_broke(source: str) -> None:
    said = _one_line(define(source, CANDIDATES.name))
    assert said.startswith("Not yet: case ") and said.endswith(HINT)
    assert CANDIDATES.broken[source] in said


def test_the_first_broken_candidate_makes_a_pool_per_call_and_names_the_peak_it_let_through() -> None:
    first = next(iter(CANDIDATES.broken))
    assert "return pool(limits[dependency])" in first
    said = _one_line(define(first, CANDIDATES.name))
    assert said.startswith(
        f"Not yet: case 1 (limits notification 4, catalog 4): notification saw {CALLS} calls at once where "
        f"its limit is 4: its {CALLS} call sites got {CALLS} pools"
    )


def test_a_pool_of_no_slots_is_not_yet_naming_the_pool_call() -> None:
    def empty(limits, pool):
        pools = {d: pool(0) for d in limits}
        return pools.__getitem__

    assert "pool(0): a pool has a whole number of slots, 1 to 1000." in _one_line(empty)


def forever(limits, pool):
    while True:
        pass


def raises(limits, pool):
    raise LookupError("no such dependency")


def pool_for_loops(limits, pool):
    def pool_for(dependency):
        while True:
            pass

    return pool_for


class Pools:
    pass


@pytest.mark.parametrize(
    ("answer", "line"),
    [
        (None, None),
        ("  ", None),
        (3, "Not yet: 3 is not a function: pass the function itself, e.g. check(my_pool_for)."),
        (Pools, "Not yet: <class '"),
        ("not a name", "Not yet: 'not a name' is not a name: type your function's name, as its cell"),
        ("my_pool_for", "Not yet: nothing is called my_pool_for in this notebook yet: run the cell that"),
        (forever, "Not yet: it was still running after 2 s."),
        (pool_for_loops, "Not yet: it was still running after 2 s."),
        (raises, f"{CASE_1}raises(limits, pool) raised LookupError: no such dependency."),
        (lambda limits, pool: None, f"{CASE_1}it returned None, not a function pool_for(dependency)."),
        (lambda limits, pool: (lambda d: "pool"),
         f"{CASE_1}pool_for('notification') returned 'pool', not a pool made by pool(n) (or None)."),
        (lambda limits, pool: {}.__getitem__,
         f"{CASE_1}pool_for('notification') raised KeyError: 'notification'."),
    ],
)  # fmt: skip
def test_anything_else_gets_one_line(answer: object, line: str | None) -> None:
    said = _one_line(answer)
    if line is None:
        assert said.startswith("No answer yet. Hint: ")
        return
    assert said.startswith(line) and said.endswith(HINT)


def test_the_answer_box_finds_the_typed_name_in_the_notebook(monkeypatch) -> None:
    from bulkhead_lab.course.ui import exercise as ui

    class Shell:
        user_ns = {"my_pool_for": define(CANDIDATES.right, CANDIDATES.name)}

    monkeypatch.setattr(ui, "get_ipython", lambda: Shell())
    assert _one_line(EXERCISE.typed).startswith("Right: case 1")


def test_the_worked_answer_shows_the_courses_own() -> None:
    heading, code = EXERCISE.worked_answer()
    assert isinstance(heading, str) and heading.startswith("**The course's own**")
    assert isinstance(code, str) and "def pool_for_each(limits" in code and "pool(slots)" in code
