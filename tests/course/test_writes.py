"""Every write-it-yourself exercise (tests/writes) calls each of its right sources Right, saying what it
checked, and each broken source Not yet, in one line naming the learner's code and a replay, within its
trial's deadline: the same candidates the browser test types into the notebooks. The notebook's template
cell and what else a learner may type get the lines their candidates expect."""

from __future__ import annotations

import gc
import time

import pytest
import writes
from threads import ours

from bulkhead_lab.course.ui.trial import DEADLINE, WALL

CASES = [
    *(
        pytest.param(c, source, True, id=f"{c.exercise}-right-{i}")
        for c in writes.all_candidates()
        for i, source in enumerate(c.rights)
    ),
    *(
        pytest.param(c, source, False, id=f"{c.exercise}-broken-{label}")
        for c in writes.all_candidates()
        for source, label in c.broken.items()
    ),
]


def _said(candidates: writes.Candidates, source: str) -> str:
    """The line ``candidates``' exercise gives what ``source`` defines."""
    return candidates.judged.check(writes.define(source, candidates.name)).message


@pytest.mark.parametrize(("candidates", "source", "right"), CASES)
def test_each_candidate_gets_the_verdict_it_is_labelled_with_in_one_line(candidates, source, right):
    said = _said(candidates, source)
    assert "\n" not in said and "Traceback" not in said and "Hint:" not in said, said
    assert said.startswith("Right:" if right else "Not yet:"), said
    if not right:  # an async def is named, not replayed
        assert candidates.name in said and (" Replay: " in said or "async def" in said), said
        assert not candidates.said_labels or candidates.broken[source] in said, said


@pytest.mark.parametrize("candidates", writes.all_candidates(), ids=lambda c: c.exercise)
def test_the_notebooks_template_cell_gets_the_line_its_candidates_expect(candidates) -> None:
    said = _said(candidates, writes.template(candidates))
    assert said.startswith(candidates.template), said


LINES = [
    pytest.param(c, source, line, id=f"{c.exercise}-line-{i}")
    for c in writes.all_candidates()
    for i, (source, line) in enumerate(c.lines.items())
]


@pytest.mark.parametrize(("candidates", "source", "line"), LINES)
def test_what_else_a_learner_may_type_gets_the_line_its_candidates_expect(candidates, source, line) -> None:
    said = _said(candidates, source)
    assert "\n" not in said and line in said, said


def _never_ends(candidates: writes.Candidates) -> str:
    """A candidate of the exercise's kind whose code never returns: a class whose __init__ spins, or a
    function that does."""
    if candidates.right.lstrip().startswith("class "):
        spins = "    def __init__(self, *args, **kwargs):\n        while True:\n            pass\n"
        return f"class {candidates.name}:\n{spins}"
    return f"def {candidates.name}(*args, **kwargs):\n    while True:\n        pass\n"


@pytest.mark.parametrize("candidates", writes.all_candidates(), ids=lambda c: c.exercise)
def test_a_check_returns_within_a_few_seconds_and_leaves_no_thread_behind(candidates) -> None:
    exercise = candidates.judged
    before = ours()
    for source in (candidates.right, _never_ends(candidates)):
        started = time.monotonic()
        said = exercise.check(writes.define(source, candidates.name)).message
        # 2 s of the check's own computing; on a machine busy with other work that takes longer, up to the
        # trial's wall-clock cap (WALL x DEADLINE), with a margin
        assert time.monotonic() - started < WALL * DEADLINE + 2.0, said
    assert said.startswith("Not yet: it was still running after 2 s."), said
    end = time.monotonic() + 5.0
    while ours() - before and time.monotonic() < end:
        time.sleep(0.02)
    assert ours() - before == set()


def _leaving(candidates: writes.Candidates, how: str) -> str:
    """A candidate of the exercise's kind that ``how`` (a statement) as soon as it is used: a class whose
    every method and whose __init__ do it, or a function that does."""
    if candidates.right.lstrip().startswith("class "):
        return (
            f"class {candidates.name}:\n    def __init__(self, *args, **kwargs):\n        {how}\n"
            f"    def __getattr__(self, name):\n        {how}\n"
        )
    return f"def {candidates.name}(*args, **kwargs):\n    {how}\n"


LEAVING = ("raise SystemExit(1)", "raise KeyboardInterrupt", "raise GeneratorExit", "import sys; sys.exit()")


@pytest.mark.parametrize("how", LEAVING)
@pytest.mark.parametrize("candidates", writes.all_candidates(), ids=lambda c: c.exercise)
def test_code_that_exits_gets_one_line_and_nothing_lands_in_a_later_cell(
    candidates, how, capfd, caplog, recwarn
) -> None:
    said = candidates.judged.check(writes.define(_leaving(candidates, how), candidates.name))
    gc.collect()  # what a check left unretrieved would be reported now, in the learner's next cell
    assert said.message.startswith("Not yet:") and "\n" not in said.message, said.message
    out, err = capfd.readouterr()
    assert out + err + caplog.text == "", out + err + caplog.text
    assert [str(w.message) for w in recwarn if issubclass(w.category, RuntimeWarning)] == []


@pytest.mark.parametrize("candidates", writes.all_candidates(), ids=lambda c: c.exercise)
def test_an_async_def_where_a_def_is_asked_gets_one_line_and_no_warning(candidates, capfd, recwarn) -> None:
    if candidates.right.lstrip().startswith(("class ", "async def ")):
        pytest.skip(f"{candidates.exercise} asks for a class")
    source = candidates.right.replace(f"def {candidates.name}(", f"async def {candidates.name}(", 1)
    said = candidates.judged.check(writes.define(source, candidates.name)).message
    gc.collect()
    assert said.startswith("Not yet:") and "async def" in said, said
    assert capfd.readouterr().err == ""
    assert [str(w.message) for w in recwarn if issubclass(w.category, RuntimeWarning)] == []
