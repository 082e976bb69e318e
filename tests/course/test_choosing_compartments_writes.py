"""Notebook 08's exercise 6, a shuffle shard of the learner's own: what tests/course/test_writes.py does not
pin (nor tests/course/test_exercise.py, what else may be typed). The judge's statistics against the
model's deal, its stand-in for another process's hash(), the course's own cell and the template, the
line each broken candidate gets, and the lines of answers of the wrong shape."""

from __future__ import annotations

import builtins
import json
import math
from pathlib import Path

import pytest
from writes import define
from writes.n08_shuffle_shard import CANDIDATES, STRING_HASH

from bulkhead_lab.compartments import shuffle
from bulkhead_lab.course.choosing_compartments import exercises as ex
from bulkhead_lab.course.judges import shuffle_shard as judge

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / CANDIDATES.notebook
EXERCISE = ex.write_shuffle_shard


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
    assert "\n" not in said and "Traceback" not in said and "Hint:" not in said
    return said


def test_the_judges_blast_radius_is_the_models_on_section_2s_deal() -> None:
    deal = judge.LESSON
    shards = [judge.dealt(shuffle.shuffle_shard, t, deal.workers, deal.size, deal.seed) for t in range(200)]
    share = judge.pairs_alike(shards) / math.comb(200, 2)
    fleet = shuffle.Fleet(deal.workers, deal.size, 200, seed=deal.seed)
    assert share == pytest.approx(shuffle.simulate(fleet).lose_every_worker)
    assert judge.pairs_alike(shards) <= judge.allowed_pairs(200, 28)  # 1 in 28, within the margin
    plain = [judge.dealt(shuffle.plain_shard, t, 8, 2, deal.seed) for t in range(200)]
    assert judge.pairs_alike(plain) > judge.allowed_pairs(200, 28)  # 1 in 4: a block's tenants


def test_the_margin_lets_a_random_deal_pass_and_stops_one_over_two_thirds_of_the_shards() -> None:
    """Section 2's generator over 300 seeds of small fleets stays within the margin; an even deal over 4
    of C(4, 2) = 6 pairs (a poison tenant sinks 1 in 4, not 1 in 6) does not."""
    for seed in range(300):
        for workers, size in ((2, 1), (3, 1), (4, 2), (6, 3)):
            shards = [shuffle.shuffle_shard(t, workers, size, seed) for t in range(judge.FEW_SHARDS_TENANTS)]
            assert judge.pairs_alike(shards) <= judge.allowed_pairs(
                judge.FEW_SHARDS_TENANTS, math.comb(workers, size)
            )
    four = [(0, 1), (0, 2), (1, 3), (2, 3)]
    dealt = [four[t % 4] for t in range(judge.FEW_SHARDS_TENANTS)]
    assert judge.pairs_alike(dealt) > judge.allowed_pairs(judge.FEW_SHARDS_TENANTS, 6)


def test_another_processs_hash_differs_for_strings_only_and_is_put_back() -> None:
    for same in (5, -1, 2**70, 1.5, (3, 4), frozenset({1, 2}), None):
        assert judge.salted_hash(same) == hash(same)
    for other in ("3", b"3", ("a", 1), frozenset({"a"})):
        assert judge.salted_hash(other) != hash(other)
    said = _one_line(define(STRING_HASH, CANDIDATES.name))
    assert "another PYTHONHASHSEED" in said and "Kernel > Restart" in said
    assert builtins.hash is judge.salted_hash.__globals__["_REAL_HASH"]


def test_the_courses_own_cell_and_function_are_right_saying_what_was_checked() -> None:
    own_cell = _cell_defining("shuffle_shard")
    from_cell = define(f"SEED = {shuffle.SEED}\n{own_cell}", "shuffle_shard")
    for candidate in (shuffle.shuffle_shard, from_cell):
        said = _one_line(candidate)
        assert said.startswith("Right: checked ") and " generated scenarios: every shard is size " in said
        assert "whatever hash() gives a string" in said and "another seed deals anew." in said


def test_the_notebooks_template_cell_is_not_yet_every_tenant_on_the_same_shard() -> None:
    template = define(_cell_defining(CANDIDATES.name), CANDIDATES.name)
    said = _one_line(template)
    assert said.startswith("Not yet: dealing tenants 0 to 199 a shard of 1 of 2 workers with seed 0: every ")
    assert (
        "every tenant got the same shard, (0,)" in said and "Replay: from collections import Counter" in said
    )


@pytest.mark.parametrize("source", list(CANDIDATES.broken), ids=list(CANDIDATES.broken.values()))
def test_each_broken_candidate_is_not_yet_naming_what_broke_and_a_replay(source: str) -> None:
    said = _one_line(define(source, CANDIDATES.name))
    assert said.startswith("Not yet: ") and " Replay: " in said
    assert CANDIDATES.broken[source] in said


def test_a_lambda_is_replayed_as_my_shard_and_a_raise_names_the_call_once() -> None:
    said = _one_line(lambda t, w, s, seed: (0,) * s)
    assert said == (
        "Not yet: my_shard(0, 2, 2, 0): returned (0, 0), worker 0 twice, where a shard is 2 different "
        "workers. Replay: my_shard(0, 2, 2, 0)"
    )


def raises(tenant: int, workers: int, size: int, seed: int) -> tuple[int, ...]:
    raise LookupError("no such worker")


@pytest.mark.parametrize(
    ("answer", "line"),
    [
        (raises, "Not yet: raises(0, 1, 1, 0): raised LookupError: no such worker, where the contract "
                 "expects 1 different worker of range(1). Replay: raises(0, 1, 1, 0)"),
        (lambda t, w, s, seed: None, "Not yet: my_shard(0, 1, 1, 0): returned None, where the contract"),
        (lambda t, w, s, seed: (0.0,), "Not yet: my_shard(0, 1, 1, 0): returned (0.0,), where each worker "
                                       "is a whole number, and 0.0 is not."),
        (lambda t, w: (0,), "Not yet: my_shard(0, 1, 1, 0): raised TypeError: "),
    ],
)  # fmt: skip
def test_anything_else_gets_one_line(answer: object, line: str) -> None:
    assert _one_line(answer).startswith(line)
