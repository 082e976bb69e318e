"""Notebook 05's figures and panels: each panel shows only the settings that apply (test_figures.py: a kept
figure redrawn paints what a fresh one paints); exercises 1 and 2 judge the learner's choice by running it."""

from __future__ import annotations

from drawn import explored, line, texts

from bulkhead_lab.adaptive.compare import explore, timeout_result, working_timeouts
from bulkhead_lab.adaptive.pitfalls import drift_runs, longest_confined
from bulkhead_lab.course.adaptive_limits import exercises as ex
from bulkhead_lab.course.adaptive_limits import figures, panels

# --- figures --------------------------------------------------------------------------------------


def test_the_explore_figure_draws_the_limits_and_marks_the_slowdown() -> None:
    run, frame, label = explored("Gradient2", None, 22, 500)
    fig = figures.ExploreFigure().update(run, frame, label).figure
    flows, events = fig.axes[:2]
    assert tuple(line(events, "adaptive limit").get_ydata()) == run.trace.event_limit
    end = line(events, "slowdown ends")
    assert end.get_xdata()[0] == 1500 and end.get_visible()
    assert line(events, "24/8's fixed wall").get_ydata()[0] == 8
    assert flows.get_ylabel() == "tracking: slots" and events.get_xlabel().startswith("round")
    assert any("Gradient2, tolerance 1.5" in t for t in texts(fig))
    ended = figures.ExploreFigure().update(*explored("Gradient2")).figure
    assert not line(ended.axes[1], "slowdown ends").get_visible()


def test_the_drift_figure_marks_where_the_limit_is_back() -> None:
    fig = figures.DriftFigure().update(drift_runs(3000)).figure
    limit_ax, base_ax, _ = fig.axes
    back = line(limit_ax, "back at that level")
    assert back.get_visible() and back.get_xdata()[0] == 1380
    assert base_ax.get_ylabel() == "round trip (rounds)"
    assert any("back at 28 in round 1380" in t for t in texts(fig))
    short = figures.DriftFigure().update(drift_runs(300)).figure
    assert not line(short.axes[0], "back at that level").get_visible()


# --- panels ---------------------------------------------------------------------------------------


def test_the_explore_panel_shows_only_the_chosen_algorithms_setting() -> None:
    panel = panels.explore_panel()
    shown = {k for k, c in panel.controls.items() if c.layout.display != "none"}
    assert shown == {"algorithm", "slow", "length", "aimd_timeout"}
    assert panel.controls["aimd_timeout"].value == 500 and panel.controls["gradient2_tolerance"].value == 1.5
    run = panel.set(algorithm="Envoy", envoy_request_count=200)
    shown = {k for k, c in panel.controls.items() if c.layout.display != "none"}
    assert shown == {"algorithm", "slow", "length", "envoy_request_count"}
    assert run == explore("Envoy", 200)
    assert panel.controls["slow"].layout is not panel.controls["aimd_timeout"].layout


def test_the_explore_panels_other_settings_do_not_change_the_run() -> None:
    panel = panels.explore_panel(algorithm="Vegas")
    before = panel.set(vegas_smoothing=0.5)
    after = panel.set(aimd_timeout=21)  # hidden: AIMD is not chosen
    assert after == before and after.value == 0.5


# --- exercises 1 and 2 ------------------------------------------------------------------------------


def test_aimd_beats_24_8_with_a_timeout_over_the_normal_holds_and_under_the_slow_one() -> None:
    assert working_timeouts() == tuple(range(6, 22))
    right = timeout_result(21)
    assert (right.aimd.slowdown.tracking_dropped, right.aimd.slowdown.event_dropped) == (39, 2802)
    assert not timeout_result(22).beats_24_8 and not timeout_result(5).beats_24_8
    assert (
        timeout_result(20.5).aimd == timeout_result(20).aimd
        and timeout_result(500).aimd == timeout_result(23).aimd
    )


def test_exercise_1_runs_the_learners_timeout() -> None:
    check = ex.exercise_1.check
    for right in (21, "21 rounds", 6, 12):
        assert check(right).ok is True, right
    assert "never fires on the slow calls" in repr(check(500))
    assert "fires on normal calls too" in repr(check(4))
    parts = ex.exercise_1.worked_answer()
    assert "from 6 to 21 rounds" in parts[0] and "tracking drops 2333 again" in parts[2]


def test_exercise_1_says_what_a_right_timeout_costs_the_event_flow() -> None:
    """Issue 37: a right timeout pins the event limit at 1 for the rest of the run; the verdict and the
    worked answer say so, with the events it drops against 24/8's."""
    for right in (6, 21):
        said = ex.exercise_1.check(right).message
        assert "beats 24/8 for tracking: slowdown tracking dropped 39 (24/8: 172)" in said, said
        assert "falls to 1 and stays there to the end of the run (from round 1037)" in said, said
        assert "events drop 2802 on the slowdown day (24/8: 2011)" in said, said
    assert "events drop 2802 on the slowdown day (24/8: 2011)" in ex.exercise_1.worked_answer()[1]
    result = timeout_result(12)
    assert result.event_lowest == 1 and result.event_pinned_from == 1037 and result.rounds == 4000
    assert timeout_result(500).event_pinned_from is None


def test_exercise_2_runs_the_learners_slowdown_length() -> None:
    assert longest_confined(1.5) == 380
    check = ex.exercise_2.check
    for right in (380, "375 rounds", 361):
        assert check(right).ok is True, right
    assert "stays confined, and so does a longer" in repr(check(300))
    assert "back at 28 in round 1380" in repr(check(400))
    assert "**380**" in ex.exercise_2.worked_answer()[0]


def test_exercise_2_names_the_threshold_its_worked_answer_cites_as_the_baseline_not_a_length() -> None:
    # 22 / 1.5: the baseline from which a slow call no longer shrinks the limit (the worked answer's why)
    assert ex.THRESHOLD == 22 / 1.5 and "22 / 1.5 = 14.7 rounds" in ex.exercise_2.worked_answer()[1]
    for typed in (14.7, "14.7", "14.67 rounds", "22/1.5", "22 / 1.5"):
        said = ex.exercise_2.check(typed).message
        assert said.startswith("Not yet: 14.7 rounds (22 / 1.5) is the baseline"), (typed, said)
        assert "how long the slowdown lasts" in said and "not a whole number" not in said
    assert "not a whole number" in ex.exercise_2.check(15.5).message
