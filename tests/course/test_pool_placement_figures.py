"""Notebook 03's figure: each request's latency by stream, and what each dependency saw against its pool."""

from __future__ import annotations

from bulkhead_lab.course.pool_placement import figures, views
from bulkhead_lab.course.ui.style import EVENT, TRACKING
from bulkhead_lab.live.placement.batch import PlacementResult


def skipped_batch() -> PlacementResult:
    r = PlacementResult("separate", 4, 4, 8, 40, 40, 12, 4, 2460.0)
    r.latencies_ms = {"notification": [300.0 + 300 * (j // 4) for j in range(40)], "catalog": [5.0] * 40}
    r.timelines = {
        "notification": [(0.0, 0), (0.01, 12), (0.3, 4)],
        "catalog": [(0.0, 0), (0.01, 4), (0.06, 0)],
    }
    return r


def test_a_figure_marks_skipped_call_sites_and_each_pools_limit_in_its_streams_colour() -> None:
    fig = figures.placement_figure(skipped_batch())
    left, right = fig.axes
    assert "skipped call site" in [t.get_text() for t in left.get_legend().get_texts()]
    limits = {
        line.get_label(): line.get_color() for line in right.get_lines() if line.get_linestyle() == "--"
    }
    assert limits == {"notification pool": EVENT, "catalog pool": TRACKING}
    assert left.get_ylabel() == "latency, ms" and right.get_ylabel() == "open requests"
    assert fig._suptitle.get_text() == views.describe(skipped_batch())


def test_the_shared_pools_figure_draws_one_limit_for_both_streams() -> None:
    r = skipped_batch()
    r.placement, r.skip = "single", 0
    _, right = figures.placement_figure(r).axes
    (limit,) = [line for line in right.get_lines() if line.get_linestyle() == "--"]
    assert limit.get_label() == "shared pool limit" and limit.get_ydata()[0] == 8


def test_a_batch_at_the_lessons_settings_gets_the_lessons_row_beside_it() -> None:
    shared = PlacementResult("single", 4, 4, 0, 40, 0, 8, 6, 1586.0)
    table = views.batch_table(shared)
    assert list(table.index) == ["this run", "lesson 003"]
    assert table.loc["lesson 003", "catalog peak"] == 1 and table.loc["this run", "slots"] == "8 shared"
    other = PlacementResult("separate", 3, 4, 0, 40, 40, 3, 4, 4010.0)
    assert list(views.batch_table(other).index) == ["this run"]
