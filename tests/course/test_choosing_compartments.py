"""Notebook 08's views, figures, panels and exercises: the tables are the models' numbers, the kept figures
paint what fresh ones paint, a bad slider combination is one line, and each checker takes anything."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bulkhead_lab.compartments import breaker, isolation, production, shuffle
from bulkhead_lab.compartments.breaker import BreakerSettings
from bulkhead_lab.course.choosing_compartments import exercises as ex
from bulkhead_lab.course.choosing_compartments import figures, panels, views


def _pixels(png: bytes) -> bytes:
    with Image.open(io.BytesIO(png)) as image:
        return image.convert("RGB").tobytes()


def test_the_cost_table_is_26_and_12_apart_and_33_together() -> None:
    table = views.cost_view(0.01).table()
    assert list(table["slots"]) == [26, 12, 38, 33]
    assert table.loc["one pool, together", "Erlang-B blocking %"] <= 1.0
    model = views.cost_view(0.01).model_table()
    assert list(model.index) == ["split 26/12", "one pool of 33"]
    # the wall keeps the tracking flow where it was on the slowdown day; one pool does not
    assert (
        model.loc["split 26/12", "slowdown: tracking dropped %"]
        == model.loc["split 26/12", "healthy: tracking dropped %"]
    )
    assert model.loc["one pool of 33", "slowdown: tracking dropped %"] > 5


def test_the_shard_table_puts_the_formula_beside_the_deal_for_both_shardings() -> None:
    view = views.shard_view(8, 2)
    table = view.table()
    every = table.loc["2 of 2 (every worker)"]
    assert every["shuffle: formula %"] == round(100 / 28, 2) and every["plain: formula %"] == 25.0
    assert abs(every["shuffle: seeded deal %"] - every["shuffle: formula %"]) < 1.0
    assert "28 shuffle shards against 4 plain ones" in view.sentence()


def test_the_breaker_table_reads_its_runs_and_the_lessons_figures_stand_beside_them() -> None:
    runs = breaker.day_runs()
    table = views.breaker_table(runs)
    assert table.loc["24/8", "tracking dropped"] == 172
    assert table.loc["single pool", "breaker opened after (rounds)"] == "never"
    beside = views.breaker_beside(runs)
    assert list(beside["lesson 000"]) == ["220", "9"]
    assert list(beside["here"]) == [str(runs[1].before_open), str(runs[1].detected)]
    assert breaker.day_runs() is runs  # kept: a slider moved back replays nothing


def test_the_seeded_readings_show_the_count_alert_wrong_twice_and_the_burn_rate_right() -> None:
    table = views.seeded_readings()
    count = [c for c in table.columns if c.startswith("count alert")][0]
    assert table.loc["15:00, the busiest hour", "alerts"] == "none"
    assert table.loc["15:00, the busiest hour", count] == "fires"  # a healthy peak pages
    assert table.loc["3:00, latency x 22/6", count] == "-"  # a quiet hour's trouble does not
    assert "SLO burn" in table.loc["3:00, latency x 22/6", "alerts"]


@pytest.mark.parametrize(
    ("make", "first", "second"),
    [
        (figures.CostFigure, lambda: views.cost_view(0.01), lambda: views.cost_view(0.001)),
        (figures.BreakerFigure, breaker.day_runs, lambda: breaker.day_runs(BreakerSettings(ratio=0.2))),
    ],
)
def test_a_kept_figure_redrawn_paints_what_a_fresh_one_paints(make, first, second) -> None:
    kept = make()
    kept.update(first()).png()
    moved = kept.update(second()).png()
    assert _pixels(moved) == _pixels(make().update(second()).png())


def test_the_shard_figure_keeps_one_layout_per_shard_size() -> None:
    figure = figures.ShardFigure()
    two = figure.update(views.shard_view(8, 2))
    three = figure.update(views.shard_view(8, 3))
    assert two is not three and figure.update(views.shard_view(9, 2)) is two
    assert _pixels(two.png()) == _pixels(figures.ShardFigure().update(views.shard_view(9, 2)).png())


def test_each_panel_is_classed_for_the_browser_and_a_move_redraws_its_numbers() -> None:
    cost = panels.cost_panel()
    assert "bl-panel-cost" in cost.widget._dom_classes
    assert cost.set(target=0.001).cost.extra == isolation.equal_blocking(0.001).extra
    shards = panels.shard_panel()
    assert shards.set(workers=16).fleet.shards == 120
    breaker = panels.breaker_panel()
    runs = breaker.set(slow_call=30)
    assert all(r.opens == 0 for r in runs)


def test_a_shard_as_big_as_the_fleet_is_one_line_in_the_panel_not_a_traceback() -> None:
    shards = panels.shard_panel(workers=4, size=3)
    shards.set(size=4)
    (out,) = shards.output.outputs
    assert out["text"] == "cannot draw this view: size must be smaller than workers, 4 (got 4)\n"


RIGHT = {
    1: lambda: isolation.equal_blocking(ex.TARGET_1).extra,
    3: ex.refused_after_timeouts,
    4: breaker.blind_threshold,
}


@pytest.mark.parametrize("number", [1, 3, 4])
def test_a_numeric_checker_takes_the_packages_answer_and_anything_else_in_one_line(number: int) -> None:
    exercise = getattr(ex, f"exercise_{number}")
    assert exercise.check(RIGHT[number]()).ok is True
    for typed in (None, "", "banana", -7, "21/11 or so", 10**9, [1], float("nan")):
        said = exercise.check(typed)
        assert said.ok is not True and "\n" not in said.message and "Traceback" not in said.message


def test_the_known_wrong_answers_get_their_own_reasons() -> None:
    assert "cost at 1%" in ex.exercise_1.check(isolation.equal_blocking().extra).message
    assert "semaphore's answer" in ex.exercise_3.check(0).message
    assert "'longer than'" in ex.exercise_4.check(breaker.blind_threshold() + 1).message


def test_more_workers_beat_bigger_shards_and_the_checker_reads_either_spelling() -> None:
    a = shuffle.overlap_shares(shuffle.Fleet(16, 2))[-1]
    b = shuffle.overlap_shares(shuffle.Fleet(8, 3))[-1]
    assert a < b
    for typed in ("a", "(a)", "16 workers in shards of 2", "more workers"):
        assert ex.exercise_2.check(typed).ok is True, typed
    assert ex.exercise_2.check("b").ok is False
    assert ex.exercise_2.check("banana").message.startswith("Not yet: this asks for (a) 16 workers")


def test_the_alerts_checker_reads_names_in_any_order_and_says_what_is_missing() -> None:
    right = production.event_readings(ex.HOUR_5, ex.SLOWER_5).firing(views.SLO)
    assert ex.exercise_5.check(", ".join(reversed(right))).ok is True
    said = ex.exercise_5.check("none")
    assert said.ok is False and "missing" in said.message


def test_no_worked_answer_is_computed_until_asked_and_each_is_shown_on_request() -> None:
    for number in range(1, 6):
        parts = getattr(ex, f"exercise_{number}").worked_answer()
        assert parts, number


def test_the_appendix_reproduces_the_sources_exact_figures_and_says_why_not_the_breakers() -> None:
    claims = views.appendix_claims()
    assert [c.reproduced for c in claims] == [True, True, True, False, False]
    assert "3 of 5 (3 exactly)" in views.appendix_count()
