"""Notebook 08's exercise 6, a shuffle shard of the learner's own: the shared candidates, the template and
the course's own cells, and anything else, each judged in one line by section 2's deal replayed."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from writes import define
from writes.n08_shuffle_shard import CANDIDATES

from bulkhead_lab.compartments import shard_facts, shuffle
from bulkhead_lab.course.choosing_compartments import exercises as ex

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / CANDIDATES.notebook
EXERCISE = ex.write_shuffle_shard
HINT = f" Hint: {EXERCISE.hint}"


def _cell_defining(name: str) -> str:
    """The source of notebook 08's code cell that defines ``name``."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    (source,) = [
        "".join(c["source"])
        for c in cells
        if c["cell_type"] == "code" and f"def {name}(" in "".join(c["source"])
    ]
    return source


def _one_line(candidate: object) -> str:
    said = EXERCISE.check(candidate).message
    assert "\n" not in said and "Traceback" not in said
    return said


def test_the_exercise_is_number_6_its_alias_and_its_box_holds_the_templates_name() -> None:
    assert ex.exercise_6 is EXERCISE and EXERCISE.number == CANDIDATES.number == 6
    assert getattr(ex, CANDIDATES.exercise) is EXERCISE
    assert EXERCISE.typed == CANDIDATES.name == "my_shard"


def test_the_blast_radius_of_the_courses_deal_is_the_models_and_near_1_in_28() -> None:
    shards = shard_facts.deal(shuffle.shuffle_shard)
    share = shard_facts.blast_radius(shards)
    assert share == pytest.approx(shuffle.simulate().lose_every_worker)
    assert abs(share * 28 - 1) <= shard_facts.TOLERANCE
    plain = shard_facts.blast_radius(shard_facts.deal(shuffle.plain_shard))
    assert plain == pytest.approx(shuffle.simulate(shuffle.Fleet(sharding="plain")).lose_every_worker)


def test_the_courses_own_cell_and_the_shared_right_source_are_right_with_the_deals_numbers() -> None:
    own_cell = _cell_defining("shuffle_shard")
    from_cell = define(f"SEED = {shuffle.SEED}\n{own_cell}", "shuffle_shard")
    for candidate in (shuffle.shuffle_shard, from_cell, define(CANDIDATES.right, CANDIDATES.name)):
        said = _one_line(candidate)
        share = shard_facts.blast_radius(shard_facts.deal(candidate))
        assert said.startswith("Right: every tenant of 1000 gets 2 different workers of 8, the same ones")
        assert f"the whole shard of {share:.2%} of the others (1 in 28)" in said


def test_the_notebooks_template_cell_is_not_yet_every_tenant_on_the_same_shard() -> None:
    template = define(_cell_defining(CANDIDATES.name), CANDIDATES.name)
    said = _one_line(template)
    assert said.startswith("Not yet: every tenant gets the same shard, (0, 1)") and said.endswith(HINT)


@pytest.mark.parametrize("source", list(CANDIDATES.broken), ids=range(len(CANDIDATES.broken)))
def test_each_broken_candidate_is_not_yet_naming_what_broke(source: str) -> None:
    said = _one_line(define(source, CANDIDATES.name))
    assert said.startswith("Not yet: ") and said.endswith(HINT)
    assert CANDIDATES.broken[source] in said


def test_the_first_broken_candidate_is_plain_sharding_and_names_its_blast_radius_of_a_block() -> None:
    first = next(iter(CANDIDATES.broken))
    said = _one_line(define(first, CANDIDATES.name))
    share = shard_facts.blast_radius(shard_facts.deal(define(first, CANDIDATES.name)))
    assert said.startswith("Not yet: your shards are 4 fixed blocks (plain sharding)")
    assert f"the whole shard of {share:.2%} of the others (1 in 4)" in said


def test_a_shard_that_ignores_its_arguments_fails_on_the_second_fleet() -> None:
    def eight_in_pairs(tenant: int, workers: int, size: int, seed: int) -> tuple[int, ...]:
        return tuple(sorted(random.Random(seed * 7 + tenant).sample(range(8), 2)))

    assert "eight_in_pairs(0, 16, 3, 20260801) returned" in _one_line(eight_in_pairs)
    assert "not size = 3" in _one_line(eight_in_pairs)


def forever(tenant: int, workers: int, size: int, seed: int) -> tuple[int, ...]:
    while True:
        pass


def raises(tenant: int, workers: int, size: int, seed: int) -> tuple[int, ...]:
    raise LookupError("no such worker")


class Shard:
    pass


@pytest.mark.parametrize(
    ("answer", "line"),
    [
        (None, None),
        ("  ", None),
        (3, "Not yet: 3 is not a function: pass the function itself, e.g. check(my_shard)."),
        (Shard, "Not yet: <class '"),
        ("not a name", "Not yet: 'not a name' is not a name: type your function's name, as its cell"),
        ("my_shard", "Not yet: nothing is called my_shard in this notebook yet: run the cell that"),
        (forever, "Not yet: it was still running after 2 s."),
        (raises, "Not yet: raises(0, 8, 2, 20260801) raised LookupError: no such worker."),
        (lambda t, w, s, seed: None, "Not yet: <lambda>(0, 8, 2, 20260801) returned None, not a tuple of"),
        (lambda t, w, s, seed: "0, 1", "Not yet: <lambda>(0, 8, 2, 20260801) returned '0, 1', not a tuple"),
        (lambda t, w: (0, 1), "Not yet: <lambda>(0, 8, 2, 20260801) raised TypeError: "),
    ],
)  # fmt: skip
def test_anything_else_gets_one_line(answer: object, line: str | None) -> None:
    said = _one_line(answer)
    if line is None:
        assert said.startswith("No answer yet. Hint: ")
        return
    assert said.startswith(line) and said.endswith(HINT)


def test_the_worked_answer_shows_the_courses_own_shard() -> None:
    heading, code = EXERCISE.worked_answer()
    assert isinstance(heading, str) and heading.startswith("**The course's own shard**")
    assert (
        isinstance(code, str) and "def shuffle_shard(tenant" in code and "draw.sample(range(workers)" in code
    )
