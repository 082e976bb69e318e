"""The figures: titled, labelled, with the lesson's splits marked and the numbers drawn from the views."""

from __future__ import annotations

import io

import matplotlib.colors
import pytest
from drawn import explored, line, texts
from matplotlib.collections import PatchCollection
from PIL import Image

from bulkhead_lab.adaptive.pitfalls import drift_runs, vegas_slow_start
from bulkhead_lab.compartments import breaker, partition_sweep
from bulkhead_lab.compartments.breaker import BreakerSettings
from bulkhead_lab.course.adaptive_limits import figures as figures05
from bulkhead_lab.course.choosing_compartments import figures as figures08
from bulkhead_lab.course.choosing_compartments import views as views08
from bulkhead_lab.course.littles_law_sizing import figures as figures01
from bulkhead_lab.course.littles_law_sizing import views as views01
from bulkhead_lab.course.retries_and_budgets import figures as figures06
from bulkhead_lab.course.retries_and_budgets import views as views06
from bulkhead_lab.course.sharing_compartments import figures as figures09
from bulkhead_lab.course.single_pool_vs_bulkhead import figures, views
from bulkhead_lab.course.timeouts_and_queues import figures as figures07
from bulkhead_lab.course.timeouts_and_queues import views as views07
from bulkhead_lab.course.ui.style import EVENT, TRACKING
from bulkhead_lab.pool.params import Params
from bulkhead_lab.pool.rounds import occupancy
from bulkhead_lab.retries.seeded import retry_load, storm_load


@pytest.fixture(scope="module")
def tradeoff() -> views.TradeoffView:
    return views.tradeoff_view(Params(split=22))


def test_the_tradeoff_lines_are_the_sweeps_numbers_on_both_days(tradeoff) -> None:
    """Each split's mark on both days: tests/course/test_single_pool_vs_bulkhead_panels.py."""
    fig = figures.TradeoffFigure().update(tradeoff).figure
    drawn = texts(fig)
    assert "healthy day" in drawn and "slowdown day" in drawn
    assert any("22/10" in t for t in drawn)  # the marked split is in the title
    healthy, slowdown = fig.axes[:2]
    event = line(slowdown, "event dropped (bulkhead)")
    assert list(event.get_ydata()) == list(tradeoff.sweep["slowdown event dropped"])
    single = line(healthy, "tracking dropped (single pool)")
    assert single.get_ydata()[0] == tradeoff.single["healthy tracking dropped"]
    assert healthy.get_xlabel().startswith("split") and healthy.get_ylabel().startswith("dropped")


@pytest.mark.parametrize("round_", (960, 1100))
def test_the_compartments_fill_one_cell_per_busy_slot(round_) -> None:
    view = views.compartment_view(round_, Params(split=24))
    fig = figures.CompartmentFigure().update(view).figure
    (cells,) = [c for c in fig.axes[0].collections if isinstance(c, PatchCollection)]
    faces = [matplotlib.colors.to_hex(f) for f in cells.get_facecolors()]
    assert len(faces) == 32 + 24 + 8
    assert faces.count("#ffffff") == view.frame["free"].sum()
    # Each busy cell shows its flow, in the single pool too.
    assert faces.count(TRACKING.lower()) == view.frame["tracking"].sum()
    assert faces.count(EVENT.lower()) == view.frame["event"].sum()
    title = next(t for t in texts(fig) if t.startswith("round "))
    assert f"round {round_}" in title and ("into the failure" in title) == (round_ >= 1000)


def test_the_blocking_figure_shows_the_curve_the_models_points_and_the_two_numbers() -> None:
    view = views01.littles_law_view(20.0, 0.1, 5)
    fig = figures01.blocking_figure(view)
    ax = fig.axes[0]
    assert list(line(ax, "seeded model (one flow, 40 s)").get_ydata()) == list(view.curve["seeded model"])
    assert line(ax, "Erlang-B (rate x hold)")
    title = fig.texts[0].get_text()
    assert ax.get_xlabel() == "pool size (slots)" and "20 calls/s" in title
    assert f"{view.erlang_b:.1%} (Erlang-B)" in title and f"{view.simulated:.1%} (model)" in title


@pytest.mark.parametrize("args", ((97.22, 0.06, 8, 2.5), (300.0, 0.5, 64, 5.0), (1.0, 0.01, 1, 1.0)))
def test_the_blocking_figures_titles_stay_inside_the_figure(args) -> None:
    """A learner saw "ggested limit 15 ...": a title centred on the axes ran off the figure's left edge."""
    kept = figures01.BlockingFigure().update(views01.littles_law_view(*args))
    kept.png()
    renderer = kept.figure.canvas.get_renderer()
    width = kept.figure.bbox.width
    for text in kept.figure.texts:
        box = text.get_window_extent(renderer)
        assert 0 <= box.x0 and box.x1 <= width, f"{text.get_text()!r} runs off the figure"


def test_the_flood_figure_stacks_each_flows_slots_of_the_one_pool_around_the_failure() -> None:
    fig = figures01.flood_figure()
    (ax,) = fig.axes
    areas = [c for c in ax.collections if c.get_label() in ("tracking", "events")]
    assert [a.get_label() for a in areas] == ["tracking", "events"]
    busy = occupancy(Params(mode="slowdown")).busy[900:1300]
    assert areas[1].get_paths()[0].vertices[:, 1].max() == max(busy)  # events on top: the pool's total
    assert line(ax, "events' dependency slows").get_xdata()[0] == 1000
    assert "after" in ax.get_title()


@pytest.mark.parametrize("headroom", (1.0, 5.0))
def test_the_suggested_limit_is_drawn_and_stays_in_view(headroom) -> None:
    view = views01.littles_law_view(97.22, 0.06, 8, headroom)
    ax = figures01.blocking_figure(view).axes[0]
    (line,) = [x for x in ax.get_lines() if x.get_label().startswith("suggested limit")]
    assert line.get_xdata()[0] == view.suggested_limit
    low, high = ax.get_xlim()
    assert low < view.suggested_limit < high


def _pixels(png: bytes) -> tuple[bytes, tuple[int, int]]:
    with Image.open(io.BytesIO(png)) as image:
        return image.convert("RGB").tobytes(), image.size


def _stops() -> figures09.StopsFigure:
    return figures09.StopsFigure(partition_sweep.soft_view(2 / 8), "share", [f"{k}/8" for k in range(9)])


# Each notebook's kept figures: how one is made, a view it is first drawn with, and what a slider move brings.
KEPT = {
    "01 blocking": (
        figures01.BlockingFigure,
        lambda: (views01.littles_law_view(97.22, 0.06, 8),),
        lambda: (views01.littles_law_view(97.22, 0.06, 11, 4.0),),
    ),
    "02 tradeoff to single pool": (
        figures.TradeoffFigure,
        lambda: (views.tradeoff_view(Params(split=24)),),
        lambda: (views.tradeoff_view(Params(slow=40)),),
    ),
    "02 compartments": (
        figures.CompartmentFigure,
        lambda: (views.compartment_view(1000, Params(split=24)),),
        lambda: (views.compartment_view(1100, Params(split=24)),),
    ),
    "02 compartments, another split": (
        figures.CompartmentFigure,
        lambda: (views.compartment_view(1000, Params(split=24)),),
        lambda: (views.compartment_view(1100, Params(split=25)),),
    ),
    "05 explore": (figures05.ExploreFigure, lambda: explored("AIMD"), lambda: explored("AIMD", 21, 30, 1500)),
    "05 drift": (figures05.DriftFigure, lambda: (drift_runs(3000),), lambda: (drift_runs(300, 2.0),)),
    "05 ramp": (
        figures05.RampFigure,
        lambda: (vegas_slow_start(1), 1, True, False),
        lambda: (vegas_slow_start(3), 3, False, True),
    ),
    "06 retries, another split, more attempts": (
        figures06.RetryFigure,
        lambda: (retry_load(24, views06.setup_of()),),
        lambda: (retry_load(20, views06.setup_of(attempts=5, jitter="none")),),
    ),
    "06 retries, to the single pool": (
        figures06.RetryFigure,
        lambda: (retry_load(24, views06.setup_of()),),
        lambda: (retry_load(None, views06.setup_of()),),
    ),
    "06 storm, a later end, no jitter": (
        figures06.StormFigure,
        lambda: (storm_load(24, views06.setup_of()),),
        lambda: (storm_load(24, views06.setup_of(jitter="none"), 2500),),
    ),
    "07 storm": (
        figures07.StormFigure,
        lambda: (views07.storm_view(),),
        lambda: (views07.storm_view(views07.setup_of(bound="20", fix="CoDel-like timeout")),),
    ),
    "08 cost": (
        figures08.CostFigure,
        lambda: (views08.cost_view(0.01),),
        lambda: (views08.cost_view(0.001),),
    ),
    "08 breaker": (
        figures08.BreakerFigure,
        lambda: (breaker.day_runs(),),
        lambda: (breaker.day_runs(BreakerSettings(ratio=0.2)),),
    ),
    "08 shard, a layout per size": (
        figures08.ShardFigure,
        lambda: (views08.shard_view(8, 3),),
        lambda: (views08.shard_view(9, 2),),
    ),
    "09 stops": (
        _stops,
        lambda: (partition_sweep.soft_view(7 / 8),),
        lambda: (partition_sweep.soft_view(2 / 8),),
    ),
}


@pytest.mark.parametrize("name", KEPT)
def test_a_kept_figure_redrawn_in_place_shows_no_trace_of_the_view_before(name) -> None:
    """Pixel for pixel what a fresh figure paints: the browser test sees a move change the figure, this
    that nothing of the view before stays on it."""
    make, first, second = KEPT[name]
    kept = make()
    kept.update(*first()).png()
    assert _pixels(kept.update(*second()).png()) == _pixels(make().update(*second()).png())


def test_the_shard_figure_keeps_one_layout_per_shard_size() -> None:
    figure = figures08.ShardFigure()
    two = figure.update(views08.shard_view(8, 2))
    three = figure.update(views08.shard_view(8, 3))
    assert two is not three and figure.update(views08.shard_view(9, 2)) is two
