"""Notebook 09's exercise 4, a soft partition of the learner's own: what tests/course/test_writes.py does not
pin (nor tests/course/test_exercise.py, what else may be typed). The states the judge asks about against
the states lesson 000's days reach, the boundaries among them, the template, the line each broken
candidate gets, and the lines of rules of the wrong shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from writes import define
from writes.n09_soft_partition import CANDIDATES, GLOBAL_POOL

from bulkhead_lab.compartments import partitions
from bulkhead_lab.compartments.partition_sweep import DAYS
from bulkhead_lab.compartments.partitions import Rule
from bulkhead_lab.course.judges import soft_partition as judge
from bulkhead_lab.course.judges.soft_partition import Pool
from bulkhead_lab.course.sharing_compartments import exercises as ex
from bulkhead_lab.pool import arrivals
from bulkhead_lab.pool.rounds import run_through

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / CANDIDATES.notebook
EXERCISE = ex.write_soft_partition


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
    assert "\n" not in said and "Traceback" not in said and "Hint:" not in said
    return said


def test_every_state_lesson_000s_days_reach_with_21_7_reserved_is_one_the_judge_asks_about() -> None:
    """So a rule that answers as section 1's in every state of :data:`judge.LESSON` plays both days as it."""
    seen: set[tuple[int, int]] = set()
    rule = partitions.soft_partition(judge.LESSON.reserved, judge.LESSON.total)

    def watched(flow: int, busy: list[int]) -> bool:
        seen.add((busy[0], busy[1]))
        return rule(flow, busy)

    for params in DAYS.values():
        run_through(
            params,
            partitions.rule_pool(params),
            partitions.by_rule(watched),
            stream=arrivals.stream(params),
        )
    asked = set(judge.LESSON.states())
    assert seen <= asked and len(seen) > 100
    assert judge.LESSON.total == 32 and judge.LESSON.reserved == (21, 7)


def test_the_states_are_those_a_pool_can_reach_the_boundaries_among_them_the_fewest_busy_first() -> None:
    pool = Pool((2, 1), 1)
    states = list(pool.states())
    assert states[0] == (0, 0) and states == sorted(states, key=lambda b: (sum(b), b))
    assert {(2, 1), (3, 1), (2, 2), (0, 1), (3, 0), (0, 2)} <= set(
        states
    )  # reserves used up, shared borrowed
    assert (4, 0) not in states and (3, 2) not in states  # beyond the shared rest: a reserve taken
    assert judge.SMALL_POOLS[0] == Pool((0, 0), 0) and len(judge.SMALL_POOLS) == 64


def test_the_notebooks_template_cell_is_not_yet_lending_flow_1s_reserve() -> None:
    said = _one_line(_from_notebook(CANDIDATES.name))
    assert said == (
        "Not yet: admits = my_soft_partition((0, 1), 1), asked admits(0, [0, 0]): it answered True, where "
        "section 1's rule answers False: flow 0 holds 0 with 0 reserved and no slot is shared: the free slot "
        "is flow 1's reserve. Replay: my_soft_partition((0, 1), 1)(0, [0, 0])"
    )


@pytest.mark.parametrize("source", list(CANDIDATES.broken), ids=list(CANDIDATES.broken.values()))
def test_each_broken_candidate_is_not_yet_naming_what_broke_and_a_replay(source: str) -> None:
    said = _one_line(define(source, CANDIDATES.name))
    assert said.startswith("Not yet: ") and " Replay: " in said and "my_soft_partition((" in said
    assert CANDIDATES.broken[source] in said


def test_two_rules_are_named_only_when_the_rule_built_alone_answers_right() -> None:
    said = _one_line(define(GLOBAL_POOL, CANDIDATES.name))
    assert said.startswith("Not yet: with two rules built, a = my_soft_partition((0, 0), 0); b = ")
    for source in CANDIDATES.broken:
        if source != GLOBAL_POOL:
            assert "two rules" not in _one_line(define(source, CANDIDATES.name))


def test_a_rule_that_caps_a_reserve_at_3_is_found_in_a_larger_pool_with_4_reserved() -> None:
    def capped(reserved: tuple[int, ...], total: int) -> Rule:
        return partitions.soft_partition(tuple(min(r, 3) for r in reserved), total)

    said = _one_line(capped)
    assert said.startswith("Not yet: admits = capped((0, 4), 4), asked admits(0, [0, 0]): it answered True")
    assert "no slot is shared: the 4 free slots are flow 1's reserve" in said


def loops_inside(reserved: tuple[int, ...], total: int) -> Rule:
    def admits(flow: int, busy: list[int]) -> bool:
        while True:
            pass

    return admits


def raises(reserved: tuple[int, ...], total: int) -> Rule:
    def admits(flow: int, busy: list[int]) -> bool:
        raise LookupError("no such flow")

    return admits


AT_0 = "Not yet: admits = my_soft_partition((0, 0), 0), asked admits(0, [0, 0]): "  # the first question


@pytest.mark.parametrize(
    ("answer", "line"),
    [
        (loops_inside, "Not yet: it was still running after 2 s."),
        (raises, "Not yet: admits = raises((0, 0), 0), asked admits(0, [0, 0]): raised LookupError: no such "
                 "flow, where the rule answers True or False. Replay: raises((0, 0), 0)(0, [0, 0])"),
        (lambda reserved, total: 1 / 0, "Not yet: my_soft_partition((0, 0), 0): raised ZeroDivisionError: "),
        (lambda reserved, total: None, "Not yet: my_soft_partition((0, 0), 0): returned None, where it"),
        (lambda reserved, total: lambda flow, busy: "yes", AT_0 + "it answered 'yes', where section 1's"),
        (lambda reserved, total: lambda flow, busy: None, "Not yet: admits = my_soft_partition((0, 0), 1), "
                                                          "asked admits(0, [0, 0]): it answered None, where"),
    ],
)  # fmt: skip
def test_anything_else_gets_one_line(answer: object, line: str) -> None:
    assert _one_line(answer).startswith(line)
