"""Notebook 07's views, figures, panel and exercises: what the tables claim, the panel redraws what set()
asks, and each checker says why a wrong answer is wrong (the browser test types each right answer; nbval
compares the tables and facts the notebook prints)."""

from __future__ import annotations

from bulkhead_lab.course.timeouts_and_queues import exercises as ex
from bulkhead_lab.course.timeouts_and_queues import figures, panels, views
from bulkhead_lab.queues import design


def test_the_storm_figure_draws_the_views_series() -> None:
    view = views.storm_view()
    fig = figures.storm_figure(view)
    calls, queue = fig.axes
    lines = {line.get_label(): line for line in calls.get_lines()}
    assert list(lines[figures.LINES["goodput"]["label"]].get_ydata()) == list(view.series["goodput"])
    assert list(queue.get_lines()[0].get_ydata()) == list(view.series["queue"])


def test_the_panel_opens_on_the_storm_and_set_moves_its_sliders() -> None:
    panel = panels.storm_panel()
    assert panel.result.storm.recovery is None
    view = panel.set(fix="CoDel-like timeout", bound="20")
    assert view.storm.run.setup.dependency.queue == 20 and view.storm.recovery is not None
    assert list(view.frame.columns) == [view.what]


def test_exercise_1_refuses_a_queue_too_long_for_the_timeout_and_one_too_short_for_a_healthy_day() -> None:
    said = ex.exercise_1.check("40, 30").message
    assert said.startswith(
        "Not yet: queue 40 calls, timeout 30 rounds (300 ms): goodput is not back for good"
    )
    assert "healthy day refuses" in ex.exercise_1.check("0, 30").message
    assert "at most 30" in ex.exercise_1.check("10, 45").message


def test_the_queue_timeout_is_named_codel_like_never_codel() -> None:
    # Fail at Scale's fixed M and N, not RFC 8289's control law: no table, label or claim says "CoDel" alone
    assert views.QUEUE_TIMEOUT in views.PANEL_FIXES and "CoDel" not in views.PANEL_FIXES
    assert views.QUEUE_TIMEOUT in views.recovery_table().index
    assert "CoDel-like" in views.describe(views.setup_of(fix=views.QUEUE_TIMEOUT))
    claim = next(c for c in views.source_claims() if "Fail at Scale" in c.where)
    assert "CoDel-like" in claim.says and "CoDel-like" in claim.here


def test_exercise_1_reads_a_timeout_in_ms_or_s_and_says_the_units_it_read() -> None:
    # "10 30ms" is 30 ms, 3 rounds: never 30 rounds
    assert ex.read_design("10 30ms") == (10, 3)
    assert ex.exercise_1.check("10 30ms").message.startswith(
        "Not yet: queue 10 calls, timeout 3 rounds (30 ms)"
    )
    assert (
        ex.read_design("10, 300 ms")
        == ex.read_design("10 calls, 0.3 s")
        == ex.read_design("10, 30")
        == (10, 30)
    )
    assert ex.read_design("bound 10 timeout 30 rounds.") == (10, 30)
    for typed, says in (
        ("10, 25 ms", "25 ms is 2.5 rounds, not a whole number of rounds (a round is 10 ms)"),
        ("10 ms, 30", "the queue bound is a number of calls, not 10 ms"),
        ("10, 30 calls", "the timeout is a time, not 30 calls"),
    ):
        said = ex.exercise_1.check(typed)
        assert said.ok is not True and says in said.message and "\n" not in said.message, (
            typed,
            said.message,
        )


def test_the_panel_shows_both_of_exercise_1s_conditions_as_its_checker_reads_them() -> None:
    bound, timeout = design.a_right_design()
    frame = views.storm_view(views.setup_of(timeout=timeout, bound=str(bound))).frame.iloc[:, 0]
    assert frame[views.HEALTHY_REFUSED] == f"{design.refused_share(bound, timeout):.1%}"
    assert frame["rounds to recover"] == design.recovers(bound, timeout)
    too_short = views.storm_view(views.setup_of(bound="5", timeout=10)).frame.iloc[:, 0]
    assert too_short[views.HEALTHY_REFUSED] == f"{design.refused_share(5, 10):.1%}"


def test_exercise_3_says_which_way_to_go() -> None:
    right = design.largest_limit()
    assert "go higher" in ex.exercise_3.check(right - 8).message
    assert "under 90%" in ex.exercise_3.check(right + 1).message
