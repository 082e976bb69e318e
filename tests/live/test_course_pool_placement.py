"""Notebook 03's course package: the lesson's tables and facts from batches, its figure and live panel."""

from __future__ import annotations

import pytest

from bulkhead_lab.course.pool_placement import figures, panels, views
from bulkhead_lab.live.placement import PlacementResult


def result(placement: str, notif: int, cat: int, skip: int, before: int, peaks: tuple[int, int], ms: float):
    return PlacementResult(placement, notif, cat, skip, 40, before, peaks[0], peaks[1], ms)


LESSON_LIKE = [
    ("single shared pool", result("single", 4, 4, 0, 0, (8, 1), 1980.0)),
    ("pool per dependency", result("separate", 4, 4, 0, 40, (4, 4), 3010.0)),
    ("pool per dependency + 8 skipped", result("separate", 4, 4, 8, 40, (12, 4), 2460.0)),
]


def test_the_placement_table_has_the_lessons_columns_and_rounded_durations() -> None:
    table = views.placement_table(LESSON_LIKE)
    assert list(table.index) == [label for label, *_ in views.PLACEMENT_ROWS]
    assert list(table.columns[:4]) == [
        "catalog done before",
        "notification peak",
        "catalog peak",
        "duration ms",
    ]
    assert list(table["catalog done before"]) == ["0 / 40", "40 / 40", "40 / 40"]
    assert list(table["duration ms"]) == [2000, 3000, 2500]
    assert list(table["ideal ms"]) == [1525, 3000, 2400]


def test_the_facts_say_which_placement_saved_the_neighbouring_stream() -> None:
    facts = views.placement_facts(LESSON_LIKE)
    assert "the neighbouring stream was saved by: pool per dependency" in facts
    assert "notification peak 12 = pool 4 + skipped 8" in facts
    shared_everywhere = [
        (label, result("single", 4, 4, r.skip, 0, (8, 1), 1500.0)) for label, r in LESSON_LIKE
    ]
    assert "saved by: neither" in views.placement_facts(shared_everywhere)


def test_the_sizing_facts_name_the_slowest_and_fastest_rows() -> None:
    rows = [
        ("1 / 4", result("separate", 1, 4, 0, 40, (1, 4), 12050.0)),
        ("4 / 4", result("separate", 4, 4, 0, 40, (4, 4), 3010.0)),
        ("40 / 4", result("separate", 40, 4, 0, 40, (40, 4), 320.0)),
        ("4 / 1", result("separate", 4, 1, 0, 40, (4, 1), 3020.0)),
    ]
    facts = views.sizing_facts(rows)
    assert "slowest row: 1 / 4" in facts and "fastest row: 40 / 4" in facts
    assert facts.endswith("catalog peak stayed 4 whatever the notification pool: True")
    assert list(views.sizing_table(rows)["duration ms"]) == [12000, 3000, 500, 3000]


def test_batch_facts_leave_out_the_shared_pools_catalog_peak_which_varies() -> None:
    assert "catalog peak" not in views.batch_facts(LESSON_LIKE[0][1])
    assert "catalog peak 4" in views.batch_facts(LESSON_LIKE[1][1])


def test_the_pool_definition_shown_is_the_marked_block_of_the_package() -> None:
    source = views.pool_definition_source()
    assert source.startswith("# >>> pool definition") and source.endswith("# <<<")
    assert "pool(notif + cat)" in source


@pytest.mark.live
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
    assert all(c._dom_classes[0].startswith("bl-slider-") for c in panel.controls.values())
    assert "bl-view-placement" in panel.output._dom_classes


def test_the_panel_refuses_an_unknown_slider_with_one_line() -> None:
    panel = panels.placement_panel(draw=False)
    with pytest.raises(ValueError, match=r"^slider must be one of placement, notif, cat, skip, latency_ms"):
        panel.set(pool=3)


def test_a_figure_marks_skipped_call_sites_and_pool_limits() -> None:
    skipped = LESSON_LIKE[2][1]
    skipped.latencies_ms = {"notification": [300.0] * 40, "catalog": [5.0] * 40}
    skipped.timelines = {"notification": [(0.0, 0), (0.01, 12)], "catalog": [(0.0, 0), (0.01, 4)]}
    fig = figures.placement_figure(skipped)
    left, right = fig.axes
    assert "skipped call site" in [t.get_text() for t in left.get_legend().get_texts()]
    assert {"notification pool", "catalog pool"} <= {t.get_text() for t in right.get_legend().get_texts()}
