"""Notebook 05's figures, panels and exercises: kept figures paint what fresh ones paint, panels redraw
their views, and each checker takes anything and accepts only the package's answer."""

from __future__ import annotations

import io

import pytest
from matplotlib.figure import Figure
from PIL import Image

from bulkhead_lab.course.adaptive_limits import exercises as ex
from bulkhead_lab.course.adaptive_limits import figures, panels, views
from bulkhead_lab.course.ui.style import to_png

# --- figures --------------------------------------------------------------------------------------


def _texts(fig: Figure) -> list[str]:
    return [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text")) if t.get_text()]


def _pixels(png: bytes) -> tuple[bytes, tuple[int, int]]:
    with Image.open(io.BytesIO(png)) as image:
        return image.convert("RGB").tobytes(), image.size


KEPT = {
    "explore": (
        figures.ExploreFigure,
        lambda: (views.explore_view("AIMD"),),
        lambda: (views.explore_view("AIMD", 21, 30, 1500),),
    ),
    "explore, another algorithm": (
        figures.ExploreFigure,
        lambda: (views.explore_view("AIMD"),),
        lambda: (views.explore_view("Envoy"),),
    ),
    "drift": (figures.DriftFigure, lambda: (views.drift_view(3000),), lambda: (views.drift_view(300, 2.0),)),
    "ramp": (
        figures.RampFigure,
        lambda: (views.ramp_view(1),),
        lambda: (views.ramp_view(3, slow_start=False, windowed=True),),
    ),
    "reaction": (
        figures.ReactionFigure,
        lambda: (views.reaction_view(),),
        lambda: (views.reaction_view(0.2, 2.5),),
    ),
}


@pytest.mark.parametrize("name", KEPT)
def test_a_kept_figure_redrawn_in_place_paints_what_a_fresh_one_paints(name: str) -> None:
    cls, first, second = KEPT[name]
    kept = cls()
    kept.update(*first()).png()
    (moved, size), (fresh, fresh_size) = (
        _pixels(kept.update(*second()).png()),
        _pixels(cls().update(*second()).png()),
    )
    assert size == fresh_size
    differing = sum(1 for i in range(0, len(moved), 3) if moved[i : i + 3] != fresh[i : i + 3])
    assert differing < 0.005 * size[0] * size[1], f"{differing} pixels differ"


def test_the_explore_figure_draws_the_limits_and_marks_the_slowdown() -> None:
    view = views.explore_view("Gradient2", None, 22, 500)
    fig = figures.explore_figure(view)
    flows, events = fig.axes[:2]
    (limit,) = [line for line in events.get_lines() if line.get_label() == "adaptive limit"]
    assert tuple(limit.get_ydata()) == view.event_limit
    (end,) = [line for line in events.get_lines() if line.get_label() == "slowdown ends"]
    assert end.get_xdata()[0] == 1500 and end.get_visible()
    (wall,) = [line for line in events.get_lines() if line.get_label() == "24/8's fixed wall"]
    assert wall.get_ydata()[0] == 8
    assert flows.get_ylabel() == "tracking: slots" and events.get_xlabel().startswith("round")
    assert any("Gradient2, tolerance 1.5" in t for t in _texts(fig))
    ended = figures.explore_figure(views.explore_view("Gradient2"))
    assert not [line for line in ended.axes[1].get_lines() if line.get_label() == "slowdown ends"][
        0
    ].get_visible()


def test_the_drift_figure_marks_where_the_limit_is_back() -> None:
    fig = figures.drift_figure(views.drift_view(3000))
    limit_ax, base_ax, drop_ax = fig.axes
    (back,) = [line for line in limit_ax.get_lines() if line.get_label() == "back at that level"]
    assert back.get_visible() and back.get_xdata()[0] == 1380
    assert base_ax.get_ylabel() == "round trip (rounds)"
    assert any("back at 28 in round 1380" in t for t in _texts(fig))
    short = figures.drift_figure(views.drift_view(300))
    assert not [line for line in short.axes[0].get_lines() if line.get_label() == "back at that level"][
        0
    ].get_visible()


def test_the_comparison_figure_shows_every_layout_on_both_days() -> None:
    fig = figures.comparison_figure(views.comparison_view(), "event")
    texts = _texts(fig)
    assert "2208" in texts and "172" in texts and "healthy day" in texts and "slowdown day" in texts
    assert fig.axes[0].get_ylabel() == "dropped requests in the 40 s run"
    assert to_png(fig)[:8] == b"\x89PNG\r\n\x1a\n"


# --- panels ---------------------------------------------------------------------------------------

PANELS = {
    "explore": panels.explore_panel,
    "drift": panels.drift_panel,
    "slow-start": panels.slow_start_panel,
    "reaction": panels.reaction_panel,
}


@pytest.fixture(scope="module")
def built() -> dict:
    return {name: build() for name, build in PANELS.items()}


@pytest.mark.parametrize("name", PANELS)
def test_each_panel_marks_its_parts_and_draws_a_figure_and_a_table(built, name: str) -> None:
    panel = built[name]
    assert f"bl-view-{name}" in panel.output._dom_classes and f"bl-panel-{name}" in panel.widget._dom_classes
    for control in panel.controls.values():
        assert control.description and any(c.startswith("bl-slider-") for c in control._dom_classes)
    kinds = [next(iter(o["data"])) for o in panel.output.outputs]
    assert kinds == ["image/png", "text/html"]


def test_the_explore_panel_shows_only_the_chosen_algorithms_setting() -> None:
    panel = panels.explore_panel()
    shown = {k for k, c in panel.controls.items() if c.layout.display != "none"}
    assert shown == {"algorithm", "slow", "length", "aimd_timeout"}
    view = panel.set(algorithm="Envoy", envoy_request_count=200)
    shown = {k for k, c in panel.controls.items() if c.layout.display != "none"}
    assert shown == {"algorithm", "slow", "length", "envoy_request_count"}
    assert view.frame.equals(views.explore_view("Envoy", 200).frame)
    assert panel.controls["slow"].layout is not panel.controls["aimd_timeout"].layout


def test_the_explore_panels_other_settings_do_not_change_the_view() -> None:
    panel = panels.explore_panel(algorithm="Vegas")
    before = panel.set(vegas_smoothing=0.5)
    after = panel.set(aimd_timeout=21)  # hidden: AIMD is not chosen
    assert after.frame.equals(before.frame) and after.value == 0.5


def test_the_pitfall_panels_redraw_their_views() -> None:
    assert panels.drift_panel().set(length=300, tolerance=2.0).frame.equals(views.drift_view(300, 2.0).frame)
    ramp = panels.slow_start_panel().set(initial=2, slow_start=False, windowed=True)
    assert ramp.frame.equals(views.ramp_view(2, False, True).frame) and ramp.chosen.slow_start is False
    assert panels.reaction_panel().set(smoothing=0.3).frame.equals(views.reaction_view(0.3).frame)


# --- exercises ------------------------------------------------------------------------------------

ANYTHING = (None, "", "  ", 0, -7, "banana", "21/11 or so", 3.5, [1, 2], {"a": 1}, True, float("nan"), 10**12)


@pytest.mark.parametrize("exercise", [ex.exercise_1, ex.exercise_2], ids=["1", "2"])
def test_a_checker_takes_anything_and_answers_one_line(exercise) -> None:
    for answer in ANYTHING:
        feedback = exercise.check(answer)
        assert "\n" not in feedback.message and not feedback.message.startswith("Right:"), answer
        assert feedback.message.startswith(("Not yet:", "No answer yet.")), (answer, feedback.message)


def test_the_largest_timeout_is_the_last_whole_round_under_the_slow_hold() -> None:
    assert ex.working_timeouts() == tuple(range(6, 22))  # over the normal 6-round hold, under the slow 22
    assert ex.largest_working_timeout() == 21
    assert ex.largest_working_timeout(views.LESSON.with_(slow=30)) == 29
    right = ex.timeout_result(21)
    assert (right.slowdown_tracking, right.slowdown_event, right.healthy_tracking) == (39, 2802, 78)
    assert not ex.timeout_result(22).beats_24_8 and not ex.timeout_result(5).beats_24_8


def test_every_timeout_over_the_longest_hold_behaves_as_the_longest_hold_plus_one() -> None:
    last = ex.timeout_candidates()[-1]
    assert last == 23
    for timeout in (24, 100, 500):
        a, b = ex.timeout_result(timeout), ex.timeout_result(last)
        assert (a.healthy_tracking, a.slowdown_tracking, a.slowdown_event) == (
            b.healthy_tracking,
            b.slowdown_tracking,
            b.slowdown_event,
        )


def test_exercise_1_accepts_the_largest_timeout_only() -> None:
    check = ex.exercise_1.check
    assert check(21).ok is True and check("21 rounds").ok is True
    assert "a longer timeout does too" in repr(check(10))
    assert "does not fire on the slow calls" in repr(check(500))
    assert "fires on normal calls too" in repr(check(4))
    parts = ex.exercise_1.worked_answer()
    assert "**21**" in parts[0] and "2140" in parts[1]
    assert list(parts[2]["beats 24/8"]) == [False, False, True, False]


def test_exercise_2_accepts_the_baseline_read_off_the_figure() -> None:
    r = ex.drift_return()
    assert (r.back_at, round(r.baseline, 2), round(r.settling_baseline, 2)) == (1380, 13.51, 12.57)
    check = ex.exercise_2.check
    for right in (13.5, "13.5 rounds", 13, 14, round(r.settling_baseline, 2)):
        assert check(right).ok is True, right
    for wrong, why in (
        (6, "before the failure"),
        (22, "ends up"),
        (1380, "looks like a round"),
        (15, "too high"),
    ):
        feedback = check(wrong)
        assert feedback.ok is False and why in repr(feedback), wrong
    parts = ex.exercise_2.worked_answer()
    assert "13.5 rounds" in parts[0] and list(parts[2]["back at round"]) == [2070, 1380, 1181]


def test_exercise_2_accepts_the_threshold_its_worked_answer_cites() -> None:
    r = ex.drift_return()
    threshold = r.slow / r.tolerance  # 22 / 1.5: from this baseline a slow call no longer shrinks the limit
    assert f"{threshold:.2f}" in ex.exercise_2.worked_answer()[1]
    for typed in (round(threshold, 1), f"{threshold:.2f}", "14.7 rounds"):
        assert ex.exercise_2.check(typed).ok is True, typed
    assert ex.exercise_2.check(round(threshold, 1) + 0.3).ok is False
