"""Notebook 08's figures, panels and exercises: a bad slider combination is one line, and each checker's
reasons for a wrong answer (the browser test types the right ones; nbval compares the tables the notebook
prints, the seeded hours and their pages and the shard counts among them)."""

from __future__ import annotations

from bulkhead_lab.compartments import breaker, isolation_cost, production, shuffle
from bulkhead_lab.course.choosing_compartments import exercises as ex
from bulkhead_lab.course.choosing_compartments import figures, panels, views


def test_exercise_2s_fleets_are_on_the_sliders_and_a_slow_call_past_the_holds_never_opens() -> None:
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


def test_the_known_wrong_answers_get_their_own_reasons() -> None:
    assert "cost at 1%" in ex.exercise_1.check(isolation_cost.equal_blocking().extra).message
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
    chosen = isolation_cost.TARGETS.index(0.01)
    shown = [bar.get_visible() for bar in figure._bars[0]]
    assert shown == [i >= chosen for i in range(len(isolation_cost.TARGETS))]
    figure.update(views.cost_view(ex.TARGET_1))
    assert all(bar.get_visible() for row in figure._bars for bar in row)
