"""Notebook 01's exercise 4, Erlang-B of the learner's own: what tests/course/test_writes.py does not pin
(it judges every candidate in tests/writes, its exits and its async def). The cases reach the range and
boundaries the line states, the stated tolerance is the boundary, each Not yet line's replay shows the
disagreement, and the template's verdict."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from writes import define
from writes.n01_erlang_b import CANDIDATES

from bulkhead_lab import sizing
from bulkhead_lab.course.judges import erlang_b as judge
from bulkhead_lab.course.littles_law_sizing import exercises as ex

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / CANDIDATES.notebook
EXERCISE = ex.write_erlang_b
RIGHT = define(CANDIDATES.right, CANDIDATES.name)


def _seen() -> list[judge.Case]:
    """Every case the judge calls a right function on, in order."""
    seen: list[judge.Case] = []

    def recording(load: float, slots: int) -> float:
        seen.append(judge.Case(float(load), int(slots), isinstance(slots, np.integer)))
        return sizing.erlang_b(slots, load)

    assert judge.check(recording).ok
    return seen


def test_the_cases_reach_the_stated_range_and_its_boundaries() -> None:
    cases = _seen()
    slots = {c.slots for c in cases}
    loads = [c.load for c in cases]
    assert {0, 1} <= slots and max(slots) >= 3000 and sum(s >= 1000 for s in slots) >= 5
    assert 0.0 in loads and max(loads) >= 2900 and sum(load >= 745 for load in loads) >= 10
    assert sum(load != int(load) for load in loads) >= 50  # fractional loads
    assert any(c.slots >= 10 and 0.8 <= c.load / c.slots <= 1.2 for c in cases)  # near the pool's size
    assert sum(c.numpy for c in cases) >= 20 and sum(not c.numpy for c in cases) >= 20
    assert judge.Case(800.0, 1000) in cases  # issue 36: the product form's nan at 800 erlangs


def test_the_stated_tolerance_a_relative_1e_9_is_the_boundary() -> None:
    assert EXERCISE.check(lambda load, slots: RIGHT(load, slots) * (1 + 1e-11)).ok is True
    assert EXERCISE.check(lambda load, slots: RIGHT(load, slots) * (1 + 1e-7)).ok is False


@pytest.mark.parametrize("source", list(CANDIDATES.broken), ids=list(CANDIDATES.broken.values()))
def test_each_replay_run_in_a_cell_shows_what_the_line_says(source: str) -> None:
    """The replay pairs the learner's call with the course's erlang_b: it raises what the line says it
    raised, or the two disagree (past the tolerance, or not a number)."""
    said = EXERCISE.check(define(source, CANDIDATES.name)).message
    *before, last = said.split(" Replay: ")[1].split("; ")
    namespace = {CANDIDATES.name: define(source, CANDIDATES.name), "erlang_b": sizing.erlang_b}
    exec("\n".join(before), namespace)  # "import numpy as np" where the case is numpy's
    if ": it raised " in said:
        raised = said.split(": it raised ")[1].split(":")[0]
        with pytest.raises(BaseException) as error:
            eval(last, namespace)
        assert type(error.value).__name__ == raised, said
        return
    yours, course = eval(last, namespace)
    if isinstance(yours, (int, float, np.number)):  # a numpy scalar compared as the Python number it is
        assert not abs(float(yours) - course) <= 1e-9 * abs(course), said  # nan disagrees too


def test_the_notebooks_template_cell_is_not_yet_at_no_slots() -> None:
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    (source,) = [s for s in sources if s.startswith(f"def {CANDIDATES.name}(")]
    assert EXERCISE.check(define(source, CANDIDATES.name)).message == (
        "Not yet: my_erlang_b(0.0, 0): it returned 0, where Erlang-B is 1: a pool of no slots refuses every "
        "call. Replay: my_erlang_b(0.0, 0), erlang_b(0, 0.0)"
    )
