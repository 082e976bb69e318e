"""Notebook 05's exercise 3, an AIMD limiter of the learner's own, judged by AIMD's contract (the course's
AIMDLimit the oracle): what tests/course/test_writes.py does not pin. Each stated boundary is sampled and
named by its case; limiters that share their limit are caught; numpy's integers are numbers; the replay
line reproduces what the verdict says; a hang is named by its sample; the template's verdict."""

from __future__ import annotations

import contextlib
import io
import json
import time
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
    said = EXERCISE.check(candidate).message
    assert "\n" not in said and "Traceback" not in said and "Hint:" not in said, said
    return said


def test_the_exercise_is_number_3_its_alias_and_its_box_holds_the_templates_name() -> None:
    assert ex.exercise_3 is EXERCISE and EXERCISE.number == CANDIDATES.number == 3
    assert EXERCISE.typed == CANDIDATES.name == "MyAIMD"


def test_the_courses_own_cell_is_right_and_the_line_says_what_was_checked() -> None:
    """Every search, or (on a machine too loaded to run them all within the deadline) the first ones."""
    said = _said(AIMDLimit)
    lines = []
    for n in (1, 2, 3):
        checked = len(aimd.TOUR) + sum(s[0] for s in aimd.SEARCHES[:n])
        lines.append(f"Right: checked {checked} generated scenarios: {'; '.join(aimd.PROPERTIES[:n])}.")
    assert said in lines, said


def test_the_tour_expects_the_oracles_limits_and_the_oracle_is_the_saved_cell() -> None:
    """Every tour scenario holds for the package's AIMD (with its builder's checks) as for the cell."""
    for plan in aimd.TOUR:
        aimd.drive(AIMDLimit, plan)  # raises Broke on any difference
    assert "class AIMDLimit(AdaptiveLimit):" in EXERCISE.worked_answer()[1]


@pytest.mark.parametrize(
    ("source", "case"),
    [
        (w.AT_500, "MyAIMD(20, 1, 200) given (500, 10, False): the last on_sample returned 18, the "
                   "contract expects 21: 500 ms is not over 500 ms, so a success with 10 in flight"),
        (w.STRICT_HALF, "given (500, 10, False): the last on_sample returned 20, the contract expects 21"),
        (w.FLOOR_HALF, "MyAIMD(21, 1, 200) given (80, 10, False): the last on_sample returned 22, the "
                       "contract expects 21: a success with 10 in flight, under half of 21: it stays 21"),
        (w.ROUNDED, "MyAIMD(15, 1, 200) given (0, 1, True): the last on_sample returned 14, the contract "
                    "expects 13: a drop backs 15 off to int(15 x 0.9) = 13"),
        (w.NO_MIN, "MyAIMD(15, 15, 22) given (0, 1, True): the last on_sample returned 13, the contract "
                   "expects 15"),
        (w.NO_MAX, "MyAIMD(22, 15, 22) given (80, 22, False): the last on_sample returned 23, the contract "
                   "expects 22"),
        (w.TWICE, "given (900, 15, True): the last on_sample returned 16, the contract expects 18: a drop "
                  "backs 20 off to int(20 x 0.9) = 18 (once, though its 900 ms is over 500 too)"),
        (w.SECONDS, "MyAIMD(20, 15, 22) given (80, 12, False): the last on_sample returned 18"),
    ],
)  # fmt: skip
def test_each_stated_boundary_is_sampled_and_named_by_its_case(source: str, case: str) -> None:
    said = _said(define(source, CANDIDATES.name))
    assert said.startswith("Not yet: ") and case in said, said


@pytest.mark.parametrize("source", [w.GLOBAL, w.CLASS_ATTRIBUTE])
def test_a_limit_every_limiter_shares_is_named_by_two_limiters_side_by_side(source: str) -> None:
    said = _said(define(source, CANDIDATES.name))
    assert said.startswith(
        "Not yet: two limiters side by side, a, b = MyAIMD(20, 15, 22), MyAIMD(8, 1, 32), then "
        "a.on_sample(80, 12, False): a's last on_sample returned 15, the contract expects 21"
    ), said


def test_a_limit_shared_from_the_second_limiter_on_is_named_by_two_runs_of_the_same_samples() -> None:
    said = _said(define(w.SHARED_DEFAULT, CANDIDATES.name))
    assert "then the same on new limiters: the last call returned" in said, said
    assert "the same settings and samples give the same limits, whatever was built before" in said


def test_numpy_integers_and_whole_floats_are_limits() -> None:
    for source in (w.NUMPY, w.HISTORY):
        assert _said(define(source, CANDIDATES.name)).startswith("Right:")


def test_a_function_that_makes_a_limiter_is_judged_as_a_class_is() -> None:
    assert _said(define(w.CLOSURE, CANDIDATES.name)).startswith("Right:")


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


def test_an_async_def_on_sample_is_one_line() -> None:
    said = _said(define(w.ASYNC, CANDIDATES.name))
    assert said == "Not yet: MyAIMD(20, 1, 200)'s on_sample is an async def: this asks for a plain def."


class Quiet:
    def __init__(self, initial, min_limit, max_limit):
        self.limit = initial


class HangsWhenSlow(AIMDLimit):
    def on_sample(self, rtt, inflight, dropped=False):
        while rtt > 800:
            pass
        return super().on_sample(rtt, inflight, dropped)


class Raises(Quiet):
    def on_sample(self, rtt, inflight, dropped):
        raise LookupError("no such sample")


class InitRaises:
    def __init__(self, initial, min_limit, max_limit):
        raise RuntimeError("not today")


class NoOnSample(Quiet):
    pass


def test_a_call_that_hangs_is_named_by_its_sample_within_the_deadline() -> None:
    started = time.monotonic()
    said = _said(HangsWhenSlow)
    assert said.startswith(
        "Not yet: HangsWhenSlow(20, 15, 22) given (900, 10, False): on_sample(900, 10, False) was still "
        f"running after {aimd.CALL_BUDGET:g} s, the contract expects 18"
    ), said
    assert time.monotonic() - started < 2.5


@pytest.mark.parametrize(
    ("answer", "line"),
    [
        (None, "No answer yet. Type your class's name, then press Check (Hint helps)."),
        (3, "Not yet: 3 is not a class: pass the class itself, e.g. check(MyAIMD)."),
        (len, "Not yet: <built-in function len> is not a class"),
        ("not a name", "Not yet: 'not a name' is not a name: type your class's name, as its cell"),
        ("MyAIMD", "Not yet: nothing is called MyAIMD in this notebook yet: run the cell that defines it."),
        (Raises, "Not yet: Raises(20, 15, 22) given (80, 12, False): on_sample(80, 12, False) raised "
                 "LookupError: no such sample, the contract expects 21"),
        (InitRaises, "Not yet: InitRaises(20, 1, 200) raised RuntimeError: not today."),
        (NoOnSample, "Not yet: NoOnSample(20, 1, 200) has no on_sample method"),
    ],
)  # fmt: skip
def test_anything_else_gets_one_line(answer: object, line: str) -> None:
    said = _said(answer)
    assert said.startswith(line), said


def test_the_notebooks_template_is_not_yet_at_the_first_sample_that_moves_the_limit() -> None:
    assert _said(_template()).startswith(
        "Not yet: MyAIMD(20, 15, 22) given (80, 12, False): the last on_sample returned 20, the contract "
        "expects 21: a success with 12 in flight, at least half of 20: 21. Replay: a = MyAIMD(20, 15, 22); "
    )
