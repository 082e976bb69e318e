"""Notebook 03's course package on real sockets: the panel's live batch, and two exercises' checks agreeing
with a live batch (tests/course/test_pool_placement_exercises.py holds their every verdict, offline)."""

from __future__ import annotations

import pytest

from bulkhead_lab.course.pool_placement import exercises, panels

pytestmark = pytest.mark.live


def test_the_panel_runs_a_live_batch_and_redraws_a_figure_and_a_table() -> None:
    # 200 ms: the three skipped calls' own connections open and overlap well inside one call
    panel = panels.placement_panel(latency_ms=200, draw=False)
    assert panel.output.outputs == ()
    done = panel.set(notif=2, cat=4, skip=3)
    assert done is panel.result and (done.notification, done.catalog) == (2 + 3, 4)
    assert done.notification_latency == 0.2
    assert panel.progress.bar.value == panel.progress.bar.max == 80
    assert panel.progress.status.value.startswith("done in ")
    image, table = panel.output.outputs
    assert "image/png" in image["data"] and "text/html" in table["data"]
    assert "notification peak" in table["data"]["text/html"]


def test_exercise_1s_check_runs_a_live_batch_that_counts_the_predicted_peak() -> None:
    verdict = exercises.exercise_1.check(str(exercises.peak_1()))
    assert verdict.ok is True, verdict.message
    assert f"the batch just run counted {exercises.peak_1()}" in verdict.message


def test_exercise_2s_check_runs_a_live_batch_that_takes_at_least_the_predicted_floor() -> None:
    verdict = exercises.exercise_2.check(str(exercises.least_ms_2()))
    assert verdict.ok is True, verdict.message
