"""Every write-it-yourself exercise (tests/writes) calls its right source Right and each broken source
Not yet, naming what broke, in one line: the same candidates the browser test types into the notebooks."""

from __future__ import annotations

import importlib

import pytest
import writes

CASES = [
    pytest.param(c, source, fragment, id=f"{c.exercise}-{'right' if fragment is None else i}")
    for c in writes.all_candidates()
    for i, (source, fragment) in enumerate([(c.right, None), *c.broken.items()])
]


@pytest.mark.parametrize(("candidates", "source", "fragment"), CASES)
def test_each_candidate_gets_the_verdict_it_is_labelled_with_in_one_line(candidates, source, fragment):
    exercises = importlib.import_module(f"bulkhead_lab.course.{candidates.notebook[3:-6]}.exercises")
    said = getattr(exercises, candidates.exercise).check(writes.define(source, candidates.name)).message
    assert "\n" not in said and "Traceback" not in said, said
    if fragment is None:
        assert said.startswith("Right:"), said
    else:
        assert said.startswith("Not yet:") and fragment in said, said
