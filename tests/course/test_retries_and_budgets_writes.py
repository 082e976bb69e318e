"""Notebook 06's exercise 4, a retry budget of the learner's own: what tests/course/test_writes.py does not
pin (it judges every candidate in tests/writes, its exits and its async def). The judge against its oracle
(section 2's RetryBudget) and at the stated boundary, the replay in a Not yet line doing what the line says
on a small case, the template cell's verdict, and the worked answer's worst case."""

from __future__ import annotations

import ast
import asyncio
import json
import re
from pathlib import Path

import pytest
from writes import define
from writes import n06_budget as budgets
from writes.n06_budget import CANDIDATES

from bulkhead_lab.course.judges import retry_budget as judge
from bulkhead_lab.course.retries_and_budgets import exercises as ex
from bulkhead_lab.retries.budgets import RetryBudget
from bulkhead_lab.retries.policy import REFUSED, call_with_retries

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / CANDIDATES.notebook
EXERCISE = ex.write_budget


def _template() -> object:
    """What notebook 06's template cell (the code cell defining ``class MyBudget``) defines."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    (source,) = [s for s in sources if s.startswith(f"class {CANDIDATES.name}")]
    return define(source.split("\nexercises.")[0], CANDIDATES.name)  # the class, not a check after it


def _said(candidate: object) -> str:
    return EXERCISE.check(candidate).message


async def worst_case(budget: object, requests: int = 1000) -> int:
    """Notebook 06's section 2 ``worst_case``: calls sent for ``requests`` requests, every call refused."""
    calls = 0

    async def refused() -> int:
        nonlocal calls
        calls += 1
        return REFUSED

    for _ in range(requests):
        await call_with_retries(refused, budget, attempts=3, backoff=lambda n: 0.0)  # type: ignore[arg-type]
    return calls


def _replayed(replay: str, cls: type) -> object:
    """What the replay's last expression gives, run as a notebook cell runs it (top-level await)."""
    *before, last = replay.split("; ")
    namespace = {CANDIDATES.name: cls, "worst_case": worst_case}
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    if "=" in last.split("(")[0]:  # a = MyBudget(0.0): the budget could not be built
        before, last = [*before, last], "None"
    for statement in before:
        done = eval(compile(statement, "<replay>", "exec", flags=flags), namespace)  # the judge's own line
        if asyncio.iscoroutine(done):
            asyncio.run(done)
    return eval(compile(last, "<replay>", "eval"), namespace)


def test_the_oracle_is_the_cells_budget_and_a_tie_is_false_where_binary_holds_the_ratio() -> None:
    for ratio, calls, retries in [(0.5, 2, 1), (0.25, 8, 2), (0.0, 5, 0), (1.0, 3, 3), (2.0, 3, 6)]:
        assert judge.expected(ratio, calls, retries) == {False}  # exactly ratio x calls: not under it
    assert judge.expected(0.5, 3, 1) == {True} and judge.expected(0.1, 9, 1) == {False}
    assert 0.017 * 3000 > 51 and judge.expected(0.017, 3000, 51) == {True, False}  # rounded past the tie
    assert judge.expected(0.1, 10, 1) == {True, False}  # so at any tie of a ratio binary cannot hold


def test_the_boundary_a_retry_at_exactly_ratio_x_calls_is_named_at_a_ratio_binary_holds() -> None:
    said = _said(define(budgets.AT_THE_BOUNDARY, CANDIDATES.name))
    ratio = re.search(r"a = MyBudget\(([\d.]+)\)", said).group(1)  # type: ignore[union-attr]
    assert float(ratio) in (0.0, 0.25, 0.5, 1.0, 2.0)
    assert "it returned True, where the contract expects False" in said and " is not under " in said


@pytest.mark.parametrize(
    "source",
    [s for s, kind in CANDIDATES.broken.items() if kind not in ("counts shared by every instance",)],
    ids=[k for k in CANDIDATES.broken.values() if k != "counts shared by every instance"],
)
def test_the_replay_in_a_not_yet_line_does_what_the_line_says(source: str) -> None:
    cls = define(source, CANDIDATES.name)
    said = _said(cls)
    replay = said.split(" Replay: ")[1]
    got = re.search(r": it (returned|raised) ([^,:]+)", said)
    assert got is not None, said
    if got.group(1) == "raised":
        with pytest.raises(BaseException) as raised:
            _replayed(replay, define(source, CANDIDATES.name))
        assert type(raised.value).__name__ == got.group(2)
    elif got.group(2) in ("True", "False"):
        assert bool(_replayed(replay, define(source, CANDIDATES.name))) is (got.group(2) == "True")


def test_the_smallest_case_is_small_one_budget_a_few_calls() -> None:
    for source, kind in CANDIDATES.broken.items():
        said = _said(define(source, CANDIDATES.name))
        replay = said.split(" Replay: ")[-1]
        assert replay.count("; ") <= 6 and "b = " not in replay, (kind, said)


def test_the_notebooks_template_cell_is_not_yet_with_the_smallest_case_and_its_replay() -> None:
    said = _said(_template())
    assert said == (
        "Not yet: a = MyBudget(0.1), after 1 call sent, 0 of them retries, then a.can_retry(): it returned "
        "False, where the contract expects True: 0 retries are under 0.1 x 1 call = 0.1. Replay: "
        "a = MyBudget(0.1); a.on_request(); a.can_retry()"
    )


def test_the_worked_answer_shows_the_courses_own_cell_and_its_worst_case() -> None:
    assert ex.worst_case_with(RetryBudget) == pytest.approx(1.112, abs=0.001)  # 1112 calls, 1000 requests
    (worked,) = EXERCISE.worked_answer()
    assert "class RetryBudget:" in worked and "1.112 calls" in worked
