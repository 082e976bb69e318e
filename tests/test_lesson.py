"""Lesson 000's printed output and every figure its text quotes, recomputed (tests/test_cli.py pins the
printed output byte for byte; here, against the lesson's JavaScript under other constants)."""

from __future__ import annotations

import re

import pytest
from js_reference import run_js
from test_model import OTHER_PARAMS

from bulkhead_lab.pool import lesson000
from bulkhead_lab.pool.params import LESSON_SPLIT, Params, split_label


@pytest.mark.node
@pytest.mark.parametrize("p", OTHER_PARAMS, ids=lambda p: f"seed{p.seed}")
def test_report_equals_the_lessons_javascript_under_other_constants(p: Params, node, seeds, tmp_path) -> None:
    # Includes a run whose failure starts at its last round: the JavaScript prints
    # Infinity/NaN there, and so must we rather than crash.
    js_report, _ = run_js(node, seeds / "code" / "bulkhead-run.mjs", p, [], tmp_path)
    assert lesson000.report(p) == js_report


@pytest.fixture(scope="module")
def days() -> dict[str, lesson000.Day]:
    base = Params()
    return {"single": lesson000.day_pair(base, None), "bulk": lesson000.day_pair(base, LESSON_SPLIT)}


def test_the_failure_free_days_cost(days) -> None:
    s0, b0 = days["single"].healthy, days["bulk"].healthy
    assert (lesson000.dropped(s0), lesson000.dropped(b0)) == (105, 578)
    assert round(lesson000.drop_ratio(s0, b0), 1) == 5.5
    assert (b0.tracking_dropped - s0.tracking_dropped, b0.event_dropped - s0.event_dropped) == (94, 379)
    u0, u1 = (round(lesson000.utilization(c, 4000, 32), 3) for c in (s0, b0))
    assert (u0, u1) == (0.541, 0.524)
    assert round(lesson000.utilization(s0, 4000, 32) - lesson000.utilization(b0, 4000, 32), 3) == 0.017
    assert (round(lesson000.average_busy(s0, 4000), 2), round(lesson000.average_busy(b0, 4000), 2)) == (
        17.31,
        16.77,
    )
    assert (s0.idle, b0.idle) == (0, 4239)


def test_the_failing_days_gain(days) -> None:
    s1, b1 = days["single"].slowdown, days["bulk"].slowdown
    assert (s1.tracking_dropped, b1.tracking_dropped) == (2654, 172)
    assert round(lesson000.percent_less(s1.tracking_dropped, b1.tracking_dropped), 1) == 93.5
    assert round(lesson000.rescued(s1.tracking_dropped, b1.tracking_dropped, Params())) == 49640
    assert (days["single"].slowdown.event_dropped, b1.event_dropped) == (600, 2011)


def test_the_sizing_table_and_sensitivity_row() -> None:
    rows = {
        split_label(d.split, 32): (
            d.healthy.tracking_dropped,
            d.healthy.event_dropped,
            d.slowdown.tracking_dropped,
            d.slowdown.event_dropped,
        )
        for d in lesson000.sizing_table()
    }
    assert rows == {
        "single pool (32)": (78, 27, 2654, 600),
        "28/4": (11, 1754, 11, 2876),
        "24/8": (172, 406, 172, 2011),
        "20/12": (868, 37, 868, 1416),
        "16/16": (2591, 0, 2591, 942),
    }
    s = lesson000.sensitivity()
    assert (s.tracking_dropped, s.event_dropped) == (26, 1303)
    assert [round(lesson000.event_pool_utilization(Params(), n), 3) for n in (8, 5)] == [0.729, 1.167]


def test_js_division_semantics_reach_the_text() -> None:
    assert lesson000.percent_less(0, 0) != lesson000.percent_less(0, 0)  # NaN, as in JavaScript
    assert lesson000.failure_scale(Params(rounds=100, start=100)) == float("inf")


def test_the_smallest_event_pool_is_the_first_under_two_percent() -> None:
    n = lesson000.smallest_event_pool(0.02)
    assert lesson000.event_drop_share(n) < 0.02 <= lesson000.event_drop_share(n - 1)


def test_a_looser_target_needs_a_smaller_event_pool() -> None:
    smallest = lesson000.smallest_event_pool
    assert smallest(0.10) < smallest(0.02) < smallest(0.005)


def test_every_number_of_lesson_000s_figures_is_in_its_text(seeds) -> None:
    text = next(seeds.glob("000_*.txt")).read_text(encoding="utf-8").replace("49,640", "49640")
    for where, says, value in lesson000.STATED:
        assert where in text.replace("’", "'"), where
        for number in re.findall(r"\d+(?:\.\d+)?", str(value)):
            assert re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", text), (says, number)
