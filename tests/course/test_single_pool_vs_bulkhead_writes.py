"""Notebook 02's exercise 4, the round's admission of the learner's own: the shared candidates, the
template and the course's own admission, and anything else, each judged in one line by lesson 000's
days replayed round by round."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from writes import define
from writes.n02_admit import CANDIDATES

from bulkhead_lab.course.single_pool_vs_bulkhead import exercises as ex
from bulkhead_lab.pool import admit_facts, rounds
from bulkhead_lab.pool.params import Params

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / CANDIDATES.notebook
EXERCISE = ex.write_admit
HINT = f" Hint: {EXERCISE.hint}"


def _template() -> object:
    """What notebook 02's template cell (the code cell defining ``my_admit``) defines."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    (source,) = [s for s in sources if s.startswith(f"def {CANDIDATES.name}(")]
    return define(source, CANDIDATES.name)


def _one_line(candidate: object) -> str:
    said = EXERCISE.check(candidate).message
    assert "\n" not in said and "Traceback" not in said
    return said


def test_the_exercise_is_number_4_its_alias_and_its_box_holds_the_templates_name() -> None:
    assert ex.exercise_4 is EXERCISE and EXERCISE.number == CANDIDATES.number == 4
    assert getattr(ex, CANDIDATES.exercise) is EXERCISE
    assert EXERCISE.typed == CANDIDATES.name == "my_admit"


def test_the_courses_own_admission_and_the_shared_right_source_replay_the_lessons_counters() -> None:
    lesson = [rounds.counters(p) for p in admit_facts.DAYS]
    assert [(c.tracking_dropped, c.idle) for c in lesson[:2]] == [(172, 4239), (172, lesson[1].idle)]
    right = (
        "Right: your admission replays lesson 000's days round for round: under 24/8 the tracking flow drops "
        f"172 and 172 on the healthy and slowdown days, with 4239 idle slots beside the healthy day's "
        f"refusals; in one pool the slowdown drops {lesson[2].tracking_dropped}."
    )
    for candidate in (admit_facts.lesson_takes, define(CANDIDATES.right, CANDIDATES.name)):
        assert _one_line(candidate) == right


def test_the_replay_with_the_right_admission_ends_on_every_counter_of_the_lessons_days() -> None:
    right = define(CANDIDATES.right, CANDIDATES.name)
    for params in (*admit_facts.DAYS, Params(split=None)):
        assert admit_facts.replay(right, params) == rounds.counters(params)


def test_the_notebooks_template_cell_is_not_yet_at_the_first_round() -> None:
    said = _one_line(_template())
    assert said.startswith(
        "Not yet: 24/8, healthy day, round 0, tracking: you admitted 0, the lesson's round admits"
    )
    assert said.endswith(HINT)


@pytest.mark.parametrize("source", list(CANDIDATES.broken), ids=range(len(CANDIDATES.broken)))
def test_each_broken_candidate_is_not_yet_naming_the_first_round_and_flow_it_gets_wrong(source: str) -> None:
    said = _one_line(define(source, CANDIDATES.name))
    assert said.startswith("Not yet: ") and said.endswith(HINT)
    assert ", round " in said and ("tracking:" in said or "events:" in said)
    assert CANDIDATES.broken[source] in said


def forever(order, free, room):
    while True:
        pass


def raises(order, free, room):
    raise LookupError("no such flow")


@pytest.mark.parametrize(
    ("answer", "line"),
    [
        (None, None),
        ("  ", None),
        (3, "Not yet: 3 is not a function: pass the function itself, e.g. check(my_admit)."),
        (Params, "Not yet: <class 'bulkhead_lab.pool.params.Para... is not a function"),
        ("not a name", "Not yet: 'not a name' is not a name: type your function's name"),
        ("my_admit", "Not yet: nothing is called my_admit in this notebook yet: run the cell"),
        (forever, "Not yet: it was still running after 2 s."),
        (raises, "Not yet: 24/8, healthy day, round 0: admit((0, 0, 0, 0, 1, 0, 0, 0, 0, 1), 32, (24, 8)) "
                 "raised LookupError: no such flow."),
        (lambda order, free, room: None, "Not yet: 24/8, healthy day, round 0: it returned None"),
        (lambda order, free, room: "8, 2", "Not yet: 24/8, healthy day, round 0: it returned '8, 2'"),
        (lambda order, free, room: (8, -1), "Not yet: 24/8, healthy day, round 0: it returned (8, -1)"),
    ],
)  # fmt: skip
def test_anything_else_gets_one_line(answer: object, line: str | None) -> None:
    said = _one_line(answer)
    if line is None:
        assert said.startswith("No answer yet. Hint: ")
        return
    assert said.startswith(line) and said.endswith(HINT)


def test_the_worked_answer_shows_the_courses_own_cell() -> None:
    assert "def admit(pool: Pool, t: int, order: tuple[int, ...]" in EXERCISE.worked_answer()[1]
