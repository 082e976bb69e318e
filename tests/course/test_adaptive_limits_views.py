"""Notebook 05's views: the tables it checks, and the facts each slider view shows."""

from __future__ import annotations

import pytest

from bulkhead_lab import memo
from bulkhead_lab.adaptive.compare import ROW_NAMES
from bulkhead_lab.adaptive.pool import model_spec, pool_run
from bulkhead_lab.course.adaptive_limits import views
from bulkhead_lab.pool.params import ROUNDS, Params


def test_the_comparison_rows_are_the_lessons_layouts_then_the_four_algorithms() -> None:
    for flows in ("both", "event"):
        frame = views.comparison_frame(flows)
        assert (
            tuple(frame.index)
            == ROW_NAMES
            == ("single pool (32)", "24/8", "AIMD", "Vegas", "Gradient2", "Envoy")
        )
        assert frame.loc["24/8"].tolist() == [172, 406, 172, 2011, 49640]
        assert frame.loc["single pool (32)"].tolist() == [78, 27, 2654, 600, 0]


def test_at_the_sources_defaults_the_algorithms_lose_the_slowdown_day_to_24_8_and_win_the_healthy_one() -> (
    None
):
    for flows in ("both", "event"):
        frame = views.comparison_frame(flows)
        adaptive = frame.loc[["AIMD", "Vegas", "Gradient2"]]
        assert (
            adaptive["slowdown tracking dropped"] > 10 * frame.loc["24/8", "slowdown tracking dropped"]
        ).all()
        assert (adaptive["healthy tracking dropped"] < frame.loc["24/8", "healthy tracking dropped"]).all()
        assert (adaptive["healthy event dropped"] < frame.loc["24/8", "healthy event dropped"]).all()
    facts = views.comparison_view().facts()
    assert "single pool 2654, 24/8 172" in facts and "2208-2648" in facts


def test_the_limits_have_climbed_above_the_fixed_compartments_when_the_failure_starts() -> None:
    frame = views.limits_at_failure()
    assert frame.loc["24/8", "event limit at the failure"] == 8
    for name in ("AIMD", "Vegas", "Gradient2", "Envoy"):
        assert frame.loc[name, "event limit at the failure"] >= 26
        assert frame.loc[name, "event limit, mean in the slowdown"] > 2 * 8


def test_the_sizing_question_is_the_lessons_sizing_table() -> None:
    frame = views.sizing_question()
    assert frame.loc["28/4", "healthy event dropped"] == 1754
    assert frame.loc["16/16", "healthy tracking dropped"] == 2591
    assert frame.loc["single pool (32)", "slowdown tracking dropped"] == 2654


def test_the_vocabulary_and_the_algorithms_table_carry_the_models_numbers() -> None:
    vocabulary = views.vocabulary()
    assert "5.83 event" in vocabulary.loc["in flight", "in lesson 000's model"]
    assert "Gradient2 0.41" in vocabulary.loc["gradient", "in lesson 000's model"]
    table = views.algorithms()
    assert list(table.index) == ["AIMD", "Vegas", "Gradient2", "Envoy"]
    assert "timeout 500 rounds (5 s)" in table.loc["AIMD", "here"]
    assert "timeout 5 s" in table.loc["AIMD", "source defaults"]
    assert "min_rtt_interval 6000 rounds (60 s)" in table.loc["Envoy", "here"]


def test_the_explore_view_puts_the_algorithm_beside_one_pool_and_24_8_on_the_same_slowdown() -> None:
    view = views.explore_view("Gradient2", None, 22, 500)
    assert list(view.frame.index) == ["single pool (32)", "24/8", "Gradient2, tolerance 1.5"]
    assert view.stop == 1500 and view.length == 500 and (view.event_before, view.event_lowest) == (28, 9)
    # 24/8's tracking compartment never sees the events' holds: the same tracking drops on both days.
    assert view.dropped("24/8", "slowdown tracking dropped") == view.dropped(
        "24/8", "healthy tracking dropped"
    )
    assert view.dropped("adaptive", "slowdown tracking dropped") == 275
    assert view.dropped("single pool (32)", "slowdown tracking dropped") == 438
    whole = views.explore_view("Gradient2")
    assert whole.stop == 4000 and whole.dropped("adaptive", "slowdown tracking dropped") == 2491
    assert len(whole.bins) == len(whole.event_inflight) == 4000 // views.BIN


def test_the_explore_views_in_flight_curves_are_the_runs_busy_slots_averaged() -> None:
    view = views.explore_view("AIMD", 21, 22, 1500)
    params = Params(mode="slowdown")
    knob = views.KNOBS["AIMD"]  # the knob the panel moves
    assert knob.setting == "timeout" and 21 in knob.options
    run = pool_run(
        params,
        model_spec("AIMD", 0, params, timeout=21),
        model_spec("AIMD", 1, params, timeout=21),
        trace=True,
        stop=2500,
    )
    assert run.trace is not None and run.trace.event_limit == view.event_limit
    assert view.event_inflight[0] == sum(run.trace.event_inflight[: views.BIN]) / views.BIN
    assert view.event_lowest == 1 and view.dropped("adaptive", "slowdown tracking dropped") < 172


def test_each_knob_offers_its_sources_default() -> None:
    for name, knob in views.KNOBS.items():
        assert knob.algorithm == name and knob.default in knob.options, name
    assert views.KNOBS["AIMD"].default == 500 and views.KNOBS["Gradient2"].default == 1.5


def test_bad_explore_inputs_are_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="algorithm must be one of AIMD, Vegas, Gradient2, Envoy"):
        views.explore_view("BBR")
    with pytest.raises(ValueError, match=r"length must be an integer in 0\.\.3000"):
        views.explore_view("AIMD", length=3001)


def test_the_drift_view_draws_the_whole_run_and_its_facts_are_gradient2_drifts() -> None:
    long, short = views.drift_view(3000), views.drift_view(300)
    assert long.back_at == 1380 and long.value("back at 28 at round") == "1380"
    assert short.back_at is None and short.value("back at 28 at round") == "not while the slowdown lasts"
    assert len(short.event_limit) == 4000 and short.stop == 1300  # the run goes on after the slowdown
    assert short.event_limit[:1300] == short.drift.event_limit
    since = long.tracking_since
    assert since["single pool (32)"][999] == 0 and since["single pool (32)"][-1] == 2629
    assert since["24/8"][-1] == 125 and since["Gradient2"][-1] == 2466


def test_a_larger_tolerance_brings_the_drift_back_sooner() -> None:
    backs = [views.drift_view(3000, t).back_at for t in (1.0, 1.5, 2.0)]
    assert backs == [2070, 1380, 1181]


def test_the_drift_table_pins_the_lengths_facts() -> None:
    table = views.drift_table()
    assert table.loc[300, "back at round"] == "not back" and table.loc[3000, "back at round"] == 1380
    assert table.loc[3000, "baseline at the end (rounds)"] == pytest.approx(22.0, abs=0.05)


def test_vegas_ramps_with_and_without_slow_start() -> None:
    view = views.ramp_view(1, slow_start=False, windowed=True)
    assert view.chosen.reached_at == 2434 and view.other.reached_at == 515
    frame = views.ramp_view(1).frame
    assert frame["reaches 24 at round"].tolist() == [18, 28, 515, 2434]


def test_the_reaction_view_sets_each_value_beside_its_default() -> None:
    view = views.reaction_view(0.1, 4.0)
    assert (view.vegas.chosen.reaction, view.vegas.baseline.reaction) == (98, 36)
    assert view.gradient2.chosen.reaction is None and view.gradient2.baseline.lowest == 9
    assert len(view.vegas.healthy[0]) == len(view.vegas.slowdown[1]) == 4000
    sweep = views.reaction_sweep()
    assert sweep.loc[("Vegas smoothing", "1"), "healthy day: spread (slots)"] == 9
    assert sweep.loc[("Gradient2 tolerance", "3"), "rounds to half its fall"] == "never falls"


def test_the_views_replay_the_lessons_stream_only() -> None:
    memo.clear()
    views.explore_view("Vegas")
    views.drift_view(500)
    streams = memo.stats()["streams"]
    assert streams.entries == 1 and ROUNDS == 4000
