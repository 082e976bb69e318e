"""Notebook 05's exercise 3, an AIMD limiter of the learner's own, judged by AIMD's contract (the course's
AIMDLimit the oracle): what tests/course/test_writes.py does not pin (it judges every candidate in
tests/writes, its exits and its async def). The tour's limits are the oracle's; each replay line prints
what the verdict says came back; the template's verdict."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from writes import define
from writes import n05_aimd as w
from writes.n05_aimd import CANDIDATES

from bulkhead_lab.adaptive.limits import AIMDLimit
from bulkhead_lab.course.adaptive_limits import exercises as ex
from bulkhead_lab.course.judges import aimd

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / CANDIDATES.notebook
EXERCISE = ex.write_aimd


def _template() -> object:
    """What notebook 05's template cell (the code cell defining ``class MyAIMD``) defines."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    (source,) = [s for s in sources if s.startswith(f"class {CANDIDATES.name}")]
    return define(source, CANDIDATES.name)


def _said(candidate: object) -> str:
    return EXERCISE.check(candidate).message


def test_the_tour_expects_the_oracles_limits_and_the_oracle_is_the_saved_cell() -> None:
    """Every tour scenario holds for the package's AIMD (with its builder's checks) as for the cell."""
    for plan in aimd.TOUR:
        aimd.drive(AIMDLimit, plan)  # raises Broke on any difference
    assert "class AIMDLimit(AdaptiveLimit):" in EXERCISE.worked_answer()[1]


def _replayed(source: str) -> tuple[str, str]:
    """The Not yet line for ``source`` and what its replay prints in a fresh cell with the class defined."""
    said = _said(define(source, CANDIDATES.name))
    namespace = {CANDIDATES.name: define(source, CANDIDATES.name)}  # a fresh definition: no state yet
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(said.split(" Replay: ")[1], namespace)  # the verdict's own line
    return said, printed.getvalue().strip()


@pytest.mark.parametrize("source", [w.FLOAT_LIMIT, w.CACHED, w.FLOOR_HALF, w.GLOBAL, w.NO_BACKOFF])
def test_the_replay_line_prints_what_the_verdict_says_came_back(source: str) -> None:
    said, printed = _replayed(source)
    got = said.split("returned ")[1].split(" ")[0].rstrip(",")
    assert printed.strip("[]").split(", ")[-1] == got, (said, printed)


def test_the_notebooks_template_is_not_yet_at_the_first_sample_that_moves_the_limit() -> None:
    assert _said(_template()).startswith(
        "Not yet: MyAIMD(20, 15, 22) given (80, 12, False): the last on_sample returned 20, the contract "
        "expects 21: a success with 12 in flight, at least half of 20: 21. Replay: a = MyAIMD(20, 15, 22); "
    )
