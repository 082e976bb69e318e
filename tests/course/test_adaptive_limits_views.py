"""Notebook 05's tables, and the runs behind its panels (adaptive.compare.explore, pitfalls.drift_runs)."""

from __future__ import annotations

import pytest

from bulkhead_lab import memo
from bulkhead_lab.adaptive.compare import ROW_NAMES, explore
from bulkhead_lab.adaptive.pitfalls import drift_runs
from bulkhead_lab.adaptive.pool import model_spec, pool_run
from bulkhead_lab.course.adaptive_limits import views
from bulkhead_lab.course.ui.beside import WideFrame
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
    facts = views.comparison_facts()
    assert "single pool 2654, 24/8 172" in facts and "2208-2648" in facts


def test_the_limits_have_climbed_above_the_fixed_compartments_when_the_failure_starts() -> None:
    frame = views.limits_at_failure()
    assert frame.loc["24/8", "event limit at the failure"] == 8
    for name in ("AIMD", "Vegas", "Gradient2", "Envoy"):
        assert frame.loc[name, "event limit at the failure"] >= 26
        assert frame.loc[name, "event limit, mean"] > 2 * 8


def test_the_sizing_question_is_the_lessons_sizing_table() -> None:
    frame = views.sizing_question()
    assert frame.loc["28/4", "healthy event dropped"] == 1754
    assert frame.loc["16/16", "healthy tracking dropped"] == 2591
    assert frame.loc["single pool (32)", "slowdown tracking dropped"] == 2654


def test_the_algorithms_table_is_shown_whole_with_the_settings_used_here() -> None:
    table = views.algorithms()
    assert isinstance(table, WideFrame) and list(table.index) == ["AIMD", "Vegas", "Gradient2", "Envoy"]
    assert "..." not in repr(table) and "timeout 500" in table.loc["AIMD", "settings here (event flow)"]
    assert "min_rtt_interval 6000" in table.loc["Envoy", "settings here (event flow)"]


def test_envoys_gradient_is_at_its_floor_only_for_a_buffer_up_to_0_83() -> None:
    lines = views.gradient_floor().splitlines()
    assert lines[1] == "Gradient2: 1.5 x 6 / 22 = 0.409, clamped to 0.5"
    assert lines[2].endswith("0.545 at buffer 1; at its 0.5 floor for a buffer up to 0.83")


def test_explore_puts_the_algorithm_beside_one_pool_and_24_8_on_the_same_slowdown() -> None:
    run = explore("Gradient2", None, 22, 500)
    frame = views.explore_frame(run)
    assert list(frame.index) == ["single pool (32)", "24/8", "Gradient2, tolerance 1.5"]
    assert run.stop == 1500 and run.length == 500 and (run.event_before, run.event_lowest) == (28, 9)
    # 24/8's tracking compartment never sees the events' holds: the same tracking drops on both days.
    assert frame.loc["24/8", "slowdown tracking dropped"] == frame.loc["24/8", "healthy tracking dropped"]
    assert frame.iloc[2]["slowdown tracking dropped"] == 275
    assert frame.loc["single pool (32)", "slowdown tracking dropped"] == 438
    assert "lowest 9 while it lasts (500 rounds of 22-round calls)" in views.explore_facts(run)
    whole = explore("Gradient2")
    assert whole.stop == 4000 and whole.rows[2].slowdown.tracking_dropped == 2491


def test_explores_trace_is_the_runs_with_the_algorithms_main_setting() -> None:
    run = explore("AIMD", 21, 22, 1500)
    params = Params(mode="slowdown")
    specs = [model_spec("AIMD", flow, params, timeout=21) for flow in (0, 1)]
    traced = pool_run(params, *specs, trace=True, stop=2500).trace
    assert traced is not None and traced.event_limit == run.trace.event_limit
    assert run.event_lowest == 1 and run.rows[2].slowdown.tracking_dropped < 172


def test_bad_explore_inputs_are_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="algorithm must be one of AIMD, Vegas, Gradient2, Envoy"):
        explore("BBR")
    with pytest.raises(ValueError, match=r"length must be an integer in 0\.\.3000"):
        explore("AIMD", length=3001)


def test_the_drift_runs_go_on_after_the_slowdown_and_their_facts_are_gradient2_drifts() -> None:
    long, short = drift_runs(3000), drift_runs(300)
    assert (
        long.drift.back_at == 1380 and views.drift_frame(long).loc["back at 28 at round", "value"] == "1380"
    )
    assert short.drift.back_at is None
    assert views.drift_frame(short).loc["back at 28 at round", "value"] == "not while the slowdown lasts"
    assert len(short.event_limit) == 4000 and short.stop == 1300  # the run goes on after the slowdown
    assert short.event_limit[:1300] == short.drift.event_limit
    since = long.tracking_since
    assert since["single pool (32)"][999] == 0 and since["single pool (32)"][-1] == 2629
    assert since["24/8"][-1] == 125 and since["Gradient2"][-1] == 2466


def test_a_larger_tolerance_brings_the_drift_back_sooner() -> None:
    assert [drift_runs(3000, t).drift.back_at for t in (1.0, 1.5, 2.0)] == [2070, 1380, 1181]


def test_the_drift_table_pins_the_lengths_facts() -> None:
    table = views.drift_table()
    assert table.loc[300, "back at round"] == "not back" and table.loc[3000, "back at round"] == 1380


def test_vegas_ramps_with_and_without_slow_start() -> None:
    assert views.ramp_frame(1)["reaches 24 at round"].tolist() == [18, 28, 515, 2434]


def test_the_reaction_sweep_trades_reaction_for_stability() -> None:
    sweep = views.reaction_sweep()
    assert sweep.loc[("Vegas smoothing", "1"), "healthy day: spread (slots)"] == 9
    assert sweep.loc[("Vegas smoothing", "0.1"), "rounds to half its fall"] == 98
    assert sweep.loc[("Gradient2 tolerance", "3"), "rounds to half its fall"] == "never falls"


def test_the_views_replay_the_lessons_stream_only() -> None:
    memo.clear()
    explore("Vegas")
    drift_runs(500)
    assert memo.stats()["streams"].entries == 1 and ROUNDS == 4000


def test_the_healthy_day_is_won_by_aimd_vegas_and_gradient2_and_lost_by_envoy_on_both_flows() -> None:
    """Issue 37: Envoy drops 300 tracking requests on the healthy day against 24/8's 172, most of them while
    its first minRTT measurement pins its limit at min_concurrency."""
    facts = views.healthy_facts()
    assert "single pool 78 and 27, 24/8 172 and 406" in facts
    assert "AIMD, Vegas and Gradient2 78 and 32 on both flows, 78 and 32 on the event flow only" in facts
    assert "Envoy 300 and 100 on both flows, 74 and 100 on the event flow only" in facts
    assert "min_concurrency (3) for the first 69 rounds, until 50 calls" in facts
    assert "tracking drops 226 of its 300 there" in facts


def test_in_flight_is_littles_law_five_point_eight_event_calls_not_the_arrivals_a_round() -> None:
    facts = views.in_flight_facts()
    assert "0.9722 arrivals a round x 6 rounds = 5.83 calls in flight" in facts
    assert "20 orders a second x 0.02 s = 0.4 calls in flight" in facts


def test_the_fixed_points_table_is_the_ports_own_update_run_to_rest() -> None:
    table = views.gradient_fixed_points()
    assert list(table.index) == ["0.5", "0.75", "0.9", "1"]
    assert table["Gradient2: shrinks while L above"].tolist() == ["8", "16", "40", "never (+0.8 an update)"]
    assert table["Gradient2 from 28: settles at"].tolist() == [8.0, 16.0, 40.0, 200.0]
    assert table["Envoy: shrinks while L above"].tolist() == ["2", "12", "90", "never"]
    assert table["Envoy from 32: settles at"].tolist() == [3, 12, 69, 1000]  # 3: min_concurrency


def test_exercise_1s_answers_cost_the_event_flow_what_the_appendix_prints() -> None:
    facts = views.tuned_aimd_facts()
    assert "timeouts that beat 24/8: 6 to 21 rounds (each the same run)" in facts
    assert "tracking dropped: AIMD 39, 24/8 172" in facts and "event dropped: AIMD 2802, 24/8 2011" in facts
    assert "falls to 1 and stays there from round 1037 to the end of the run (2963 rounds)" in facts
