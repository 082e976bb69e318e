"""Notebook 06's figures, panels and exercises 1 to 3: the lines are the views' numbers, and each checker
accepts the package's answer and only that (exercise 4: test_writes.py, test_judges.py)."""

from __future__ import annotations

from drawn import line, texts
from matplotlib.figure import Figure

from bulkhead_lab.course.retries_and_budgets import exercises as ex
from bulkhead_lab.course.retries_and_budgets import figures, views
from bulkhead_lab.pool.arrivals import EVENT, TRACKING
from bulkhead_lab.retries.seeded import retry_load, storm_load

# --- figures ---------------------------------------------------------------------------------------


def test_the_retry_figure_draws_each_flow_and_layout_from_the_view() -> None:
    view = retry_load(24, views.setup_of())
    fig = figures.RetryFigure().update(view).figure
    axes = fig.axes
    assert len(axes) == 4
    event_24 = axes[3]  # rows: tracking, event; columns: single pool, 24/8
    assert list(line(event_24, "calls, slowdown day").get_ydata()) == list(
        view.rates[(24, EVENT)]["slowdown"]
    )
    assert list(line(axes[0], "gave up, slowdown day").get_ydata()) == list(
        view.rates[(None, TRACKING)]["gave up"]
    )
    assert line(axes[0], "slowdown starts").get_xdata()[0] == 10.0
    assert axes[0].get_ylabel() == "tracking calls/s" and axes[2].get_ylabel() == "event calls/s"
    assert axes[3].get_xlabel() == "time (s)"
    assert {"single pool (32)", "24/8"} <= set(texts(fig))


def test_the_storm_figure_marks_the_end_and_the_round_the_load_is_back() -> None:
    view = storm_load(24, views.setup_of())
    fig = figures.StormFigure().update(view).figure
    single, bulk = fig.axes
    assert line(single, "slowdown ends").get_xdata()[0] == 2000
    assert line(single, "every flow back").get_xdata()[0] == 2000 + view.back(None)
    assert line(bulk, "every flow back").get_xdata()[0] == 2000 + view.back(24)
    assert list(line(bulk, "event calls").get_ydata()) == list(view.excess[(24, EVENT)])
    assert single.get_ylabel() == "calls/s above the healthy day"


def test_the_contention_figure_shows_work_and_time_for_each_strategy() -> None:
    fig = figures.contention_figure(views.contention(runs=2))
    calls, done = fig.axes
    assert isinstance(fig, Figure) and done.get_yscale() == "log"
    assert line(calls, "exponential, no jitter").get_ydata()[-1] == 1275
    assert calls.get_xlabel() == done.get_xlabel() == "contending clients"


# --- panels ----------------------------------------------------------------------------------------


# --- exercises -------------------------------------------------------------------------------------


def test_exercise_1_is_the_largest_ratio_at_or_under_the_cap() -> None:
    right = ex.largest_ratio_under()
    assert ex.event_load(right) <= ex.LOAD_CAP < ex.event_load(right + 1)
    check = ex.exercise_1.check
    assert check(right).ok is True and check(f"{right}%").ok is True and check(right / 100).ok is True
    assert "over 1.2" in repr(check(right + 1)) and "a larger budget" in repr(check(right - 1))
    assert check("banana").ok is False and check(None).ok is None


def test_exercise_2_is_the_smallest_shared_ratio_on_the_slider_that_protects_tracking() -> None:
    right, target = ex.smallest_slider_ratio(), ex.own_budget_level()
    assert sorted(ex.SLIDER) == [5, 10, 20, 30, 50]  # the budget slider's ratios
    below = [p for p in ex.SLIDER if p < right]
    assert ex.slider_gave_up(right) <= target and all(ex.slider_gave_up(p) > target for p in below)
    exact = ex.smallest_shared_ratio()  # in whole percent: between the slider's 20% and 30%
    assert ex.tracking_gave_up(exact) <= target < ex.tracking_gave_up(exact - 1) and 20 < exact <= right
    assert ex.exercise_2.check(right).ok is True and ex.exercise_2.check(f"{right}%").ok is True
    assert ex.exercise_2.check(10).ok is False and "a smaller one" in repr(ex.exercise_2.check(50))
    assert "not on the budget slider" in repr(ex.exercise_2.check(exact))


def test_exercise_3_is_the_fewest_calls_in_the_contention_table_at_ten_clients() -> None:
    right = ex.fewest_calls(ex.CLIENTS)
    at = views.contention().frame.xs(ex.CLIENTS, level="clients")
    assert at.loc[right, "calls"] == at["calls"].min()
    assert ex.exercise_3.check(right.split()[0].upper()).ok is True
    assert ex.exercise_3.check("no jitter").ok is False
    assert ex.exercise_3.check(42).message.startswith("Not yet: this asks for a strategy")
