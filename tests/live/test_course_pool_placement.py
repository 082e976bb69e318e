"""Notebook 03's course package on real sockets: two exercises' checks agreeing with a live batch
(tests/course/test_pool_placement_exercises.py holds their every verdict, offline). The panel's live batch
redrawn as a slider moves is the browser tests' (MOVES["03_pool_placement.ipynb"]: the skipped call sites
on the notification peak, the placement, the shared slots)."""

from __future__ import annotations

import pytest

from bulkhead_lab.course.pool_placement import exercises

pytestmark = pytest.mark.live


def test_exercise_1s_check_runs_a_live_batch_that_counts_the_predicted_peak() -> None:
    verdict = exercises.exercise_1.check(str(exercises.peak_1()))
    assert verdict.ok is True, verdict.message
    assert f"the batch just run counted {exercises.peak_1()}" in verdict.message


def test_exercise_2s_check_runs_a_live_batch_that_takes_at_least_the_predicted_floor() -> None:
    verdict = exercises.exercise_2.check(str(exercises.least_ms_2()))
    assert verdict.ok is True, verdict.message
