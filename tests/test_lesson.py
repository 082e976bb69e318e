"""Lesson 000's printed output against its JavaScript under other constants, and every figure its text
quotes found in that text (notebook 02's printout and claims table pin the figures, under nbval;
tests/test_cli.py pins the printed output byte for byte)."""

from __future__ import annotations

import re

import pytest
from js_reference import run_js
from test_model import OTHER_PARAMS

from bulkhead_lab.pool import lesson000
from bulkhead_lab.pool.params import Params


@pytest.mark.node
@pytest.mark.parametrize("p", OTHER_PARAMS, ids=lambda p: f"seed{p.seed}")
def test_report_equals_the_lessons_javascript_under_other_constants(p: Params, node, seeds, tmp_path) -> None:
    # Includes a run whose failure starts at its last round: the JavaScript prints
    # Infinity/NaN there, and so must we rather than crash.
    js_report, _ = run_js(node, seeds / "code" / "bulkhead-run.mjs", p, [], tmp_path)
    assert lesson000.report(p) == js_report


def test_js_division_semantics_reach_the_text() -> None:
    assert lesson000.percent_less(0, 0) != lesson000.percent_less(0, 0)  # NaN, as in JavaScript
    assert lesson000.failure_scale(Params(rounds=100, start=100)) == float("inf")


def test_the_smallest_event_pool_is_the_first_under_two_percent() -> None:
    n = lesson000.smallest_event_pool(0.02)
    assert lesson000.event_drop_share(n) < 0.02 <= lesson000.event_drop_share(n - 1)


def test_a_looser_target_needs_a_smaller_event_pool() -> None:
    smallest = lesson000.smallest_event_pool
    assert smallest(0.10) < smallest(0.02) < smallest(0.005)


def test_every_number_of_lesson_000s_figures_is_in_its_text(lesson_text) -> None:
    text = lesson_text("000").replace("49,640", "49640")
    for where, says, value in lesson000.STATED:
        assert where in text.replace("’", "'"), where
        for number in re.findall(r"\d+(?:\.\d+)?", str(value)):
            assert re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", text), (says, number)
