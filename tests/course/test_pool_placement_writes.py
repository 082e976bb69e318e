"""Notebook 03's exercise 4, a pool per dependency of the learner's own: what tests/course/test_writes.py
does not pin (it judges every candidate in tests/writes, its exits and its async def). The template's
verdict; each Not yet line's replay, pasted into a cell, shows what the line says; numpy's integers are
slots; the live batch tells a shared pool from a pool each."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import numpy as np
import pytest
from writes import define
from writes.n03_pool_per_dependency import (
    CANDIDATES,
    EMPTIES_THE_LIMITS,
    ONE_SLOT_SHORT,
)

from bulkhead_lab.course.judges import pool_per_dependency as judge
from bulkhead_lab.course.judges.contract import Broke, run_loop
from bulkhead_lab.course.pool_placement import exercises as ex

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / CANDIDATES.notebook
EXERCISE = ex.write_pool_per_dependency


def _cell_defining(name: str) -> str:
    """The source of notebook 03's code cell that defines ``name``."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    (source,) = [s for s in sources if f"def {name}(" in s]
    return source


def _said(candidate: object) -> str:
    return EXERCISE.check(candidate).message


def test_the_notebooks_template_one_shared_pool_is_not_yet_at_two_dependencies_of_one_slot() -> None:
    template = define(_cell_defining(CANDIDATES.name), CANDIDATES.name)
    assert _said(template) == (
        "Not yet: after pool_for = my_pool_for({'notification': 1, 'catalog': 1}, pool), the 1st call "
        "pool_for('notification'): it returned pool #1 (2 slots), where notification's limit is 1: its pool "
        "is pool(1). Replay: pool = exercises.toy_pool(); pool_for = my_pool_for({'notification': 1, "
        "'catalog': 1}, pool); pool_for('notification')"
    )


def _replayed(source: str) -> tuple[str, object]:
    """The Not yet line of ``source`` and what its replay shows, run as a notebook 03 cell would (what it
    raised, if it raised)."""
    said = _said(define(source, CANDIDATES.name))
    replay = said.split(" Replay: ", 1)[1]
    namespace = {"exercises": ex, CANDIDATES.name: define(source, CANDIDATES.name)}
    *statements, last = replay.split("; ")
    try:
        exec("\n".join(statements), namespace)  # the line the learner pastes, split where it has ";"
        shown = eval(last, namespace)
    except ValueError as error:
        return said, error
    for value in shown if isinstance(shown, tuple) else (shown,):
        if inspect.iscoroutine(value):
            value.close()
    return said, shown


@pytest.mark.parametrize("source", list(CANDIDATES.broken), ids=list(CANDIDATES.broken.values()))
def test_each_replay_line_runs_in_a_cell_and_shows_the_pools_the_line_names(source: str) -> None:
    said, shown = _replayed(source)
    for pool in re.findall(r"pool #\d+ \(\d+ slots?\)", said.split(" Replay: ")[0]):
        assert pool in repr(shown), (said, shown)


def test_the_replay_of_limits_changed_shows_them_changed_and_of_a_pool_0_the_refusal() -> None:
    said, shown = _replayed(EMPTIES_THE_LIMITS)
    assert said.endswith("Replay: pool = exercises.toy_pool(); limits = {'notification': 1}; "
                         "my_pool_for(limits, pool), limits"), said  # fmt: skip
    assert isinstance(shown, tuple) and shown[1] == {}
    said, shown = _replayed(ONE_SLOT_SHORT)
    assert "it called pool(0)" in said and "(got 0)" in str(shown)


def test_numpys_integers_are_slots_and_anything_else_is_refused_in_one_line() -> None:
    pool = ex.toy_pool()
    assert repr(pool(np.int64(4))) == "pool #1 (4 slots)" and repr(pool(np.uint8(1))) == "pool #2 (1 slot)"
    for slots in (0, 1001, 4.0, True, "4", None):
        with pytest.raises(ValueError, match="limit must be a whole number from 1 to 1000"):
            pool(slots)
    assert len(pool.made) == 2


def test_the_live_batch_tells_a_shared_pool_from_a_pool_each() -> None:
    def shared(limits, pool):
        one = pool(sum(limits.values()))
        return lambda dependency: one

    assert "each saw at most its limit at once" in run_loop(lambda: judge.live_batch(judge.pool_for_each))
    with pytest.raises(Broke) as broke:
        run_loop(lambda: judge.live_batch(shared))
    assert "): notification saw 4 calls at once, where its limit is 2." in broke.value.line()
