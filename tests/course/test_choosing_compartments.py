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


def test_the_seeded_hours_show_the_count_alert_wrong_twice_and_the_two_window_page_right() -> None:
    table, pages = views.hours_table(), views.pages_table()
    quiet, busiest, blip, slow, quiet_slow = production.STRETCHES
    count = "any refusal in a minute: minutes on"
    minute_burn = "burn >= 1 over a minute: minutes on"
    page = [c for c in pages.columns if c.startswith("page")][0]
    assert table.loc[busiest.label, "alerts"] == "none"
    assert pages.loc[busiest.label, count] >= 5  # a healthy peak sets off the count alert, again and again
    assert pages.loc[quiet_slow.label, count] <= 2  # the quiet hour's slowdown barely does
    assert table.loc[quiet_slow.label, "alerts"] == "SLO burn"  # only the burn rate sees it
    # a 5-minute blip: a one-minute burn of 1 is on for all of it, the page waits for the hour's burn
    assert pages.loc[blip.label, minute_burn] == 5 and pages.loc[blip.label, page] == "-"
    assert table.loc[blip.label, "burn, 5 min"] > views.ALERTS.burn > table.loc[blip.label, "burn, 1 h"]
    assert pages.loc[slow.label, page] == pages.loc[quiet_slow.label, page] == "fires"
    assert pages.loc[quiet.label, minute_burn] == pages.loc[busiest.label, minute_burn] == 0


def test_the_alert_lines_say_every_line_and_the_workbooks_windows() -> None:
    lines = views.alert_lines().splitlines()
    assert lines[0].startswith("the event compartment: 15 places and 4 waiting places")
    assert "at least 125 ms (half the SLO's 250 ms)" in lines[3]
    assert lines[4].startswith("SLO burn, page: at least 14.4 over the last hour and the last 5 minutes (2% ")
    assert "6 over the last 6 hours and the last 30 minutes (5% " in lines[5]
    assert "1 over the last 3 days and the last 6 hours (10% " in lines[6]


def test_the_limits_table_sizes_from_the_busiest_minute_beside_the_hours_mean() -> None:
    table = views.limits_table(production.limits(production.lesson_day()))
    assert table.loc["slots for 1%, from the busiest hour's mean", "tracking"] == 26  # section 1's number
    assert table.loc["slots for 1%, from the busiest minute", "tracking"] == 32
    assert table.loc["slots for 1%, from the busiest minute", "event"] == 15
    assert table.loc["  ... refuse in the busiest minute %", "tracking"] > 5


def test_the_composed_table_is_the_two_orders_of_resilience4js_decorators() -> None:
    table = views.composed_table()
    assert table.loc["time limiter outside"].to_dict() == {
        "caller's answer": "TimeoutException at 0.2 s", "permit back (s)": 2.0, "work ended (s)": 2.0,
        "a second call at 0.5 s": "refused at once", "calls running at once (limit 1)": 1,
    }  # fmt: skip
    assert table.loc["bulkhead outside", "permit back (s)"] == 0.2
    assert table.loc["bulkhead outside", "calls running at once (limit 1)"] == 2


def test_the_shard_counts_compare_c_n_k_and_say_what_one_more_worker_per_shard_does() -> None:
    table = views.shard_counts()
    assert table.loc["16 workers, shards of 3", "shards C(n, k)"] == 560
    assert table.loc["32 workers, shards of 2", "shards C(n, k)"] == 496
    assert table.loc["16 workers, shards of 2", "one more per shard: count x"] == round(14 / 3, 2)
    assert (
        table.loc["8 workers, shards of 3", "shards C(n, k)"]
        < table.loc["16 workers, shards of 2", "shards C(n, k)"]
    )
    # the wider shard sinks fewer, but more tenants lose a worker
    wide, doubled = table.loc["16 workers, shards of 3"], table.loc["32 workers, shards of 2"]
    assert wide["no healthy worker %"] < doubled["no healthy worker %"]
    assert wide["lose a worker or more %"] > 3 * doubled["lose a worker or more %"]


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
    assert shards.set(workers=32).fleet.shards == 496  # exercise 2's fleets are on the sliders
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


def test_a_third_worker_per_shard_beats_twice_the_fleet_and_the_checker_reads_either_spelling() -> None:
    a = shuffle.overlap_shares(shuffle.Fleet(32, 2))[-1]
    b = shuffle.overlap_shares(shuffle.Fleet(16, 3))[-1]
    assert b < a  # C(16, 3) = 560 > C(32, 2) = 496
    for typed in ("b", "(b)", "16 workers in shards of 3", "bigger shards"):
        assert ex.exercise_2.check(typed).ok is True, typed
    for typed in ("a", "32 workers in pairs", "more workers"):
        assert ex.exercise_2.check(typed).ok is False, typed
    said = ex.exercise_2.check("b").message
    assert "C(16, 3) = 560" in said and "C(32, 2) = 496" in said and "no hardware" in said
    assert ex.exercise_2.check("banana").message.startswith("Not yet: this asks for (a) 32 workers")


def test_the_alerts_checker_reads_names_in_any_order_and_says_what_is_missing() -> None:
    right = production.event_hour(ex.HOUR_5, ex.SLOWER_5, 60).firing(views.ALERTS)
    assert right == ("refusals",)  # each reading well away from its line: see the next test
    assert ex.exercise_5.check(", ".join(reversed(right))).ok is True
    said = ex.exercise_5.check("none")
    assert said.ok is False and "missing" in said.message
    assert ex.exercise_5.check("refusals and the page").message.startswith("Not yet: not SLO burn")


def test_exercise_5s_readings_are_not_a_call_away_from_their_lines() -> None:
    run, alerts = production.event_hour(ex.HOUR_5, ex.SLOWER_5, 60), views.ALERTS
    r = run.readings()
    assert r.refusal_ratio > 1.5 * alerts.refusal_ratio
    assert r.saturation < 0.6 * alerts.saturation
    assert r.p99_wait < 0.5 * alerts.wait_share * views.SLO.latency
    assert max(run.burn(alerts.long_window), run.burn(alerts.short_window)) < 0.8 * alerts.burn


def test_the_cost_figure_hides_the_targets_stricter_than_the_slider_until_it_reaches_them() -> None:
    figure = figures.CostFigure().update(views.cost_view(0.01))
    chosen = isolation.TARGETS.index(0.01)
    shown = [bar.get_visible() for bar in figure._bars[0]]
    assert shown == [i >= chosen for i in range(len(isolation.TARGETS))]
    figure.update(views.cost_view(ex.TARGET_1))
    assert all(bar.get_visible() for row in figure._bars for bar in row)


def test_no_worked_answer_is_computed_until_asked_and_each_is_shown_on_request() -> None:
    for number in range(1, 6):
        parts = getattr(ex, f"exercise_{number}").worked_answer()
        assert parts, number


def test_the_appendix_reproduces_the_sources_exact_figures_and_says_why_not_the_breakers() -> None:
    claims = views.appendix_claims()
    assert [c.reproduced for c in claims] == [True, True, True, False, False]
    assert "3 of 5 (3 exactly)" in views.appendix_count()
