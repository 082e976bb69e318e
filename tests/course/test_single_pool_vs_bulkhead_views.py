"""The slider views: what the lesson says moves when a slider moves, and what stays put."""

from __future__ import annotations

import re

import pytest

from bulkhead_lab import memo
from bulkhead_lab.course.single_pool_vs_bulkhead import views
from bulkhead_lab.pool import lesson000
from bulkhead_lab.pool.params import LESSON_SPLIT, TOTAL, Params, split_label
from bulkhead_lab.pool.rounds import counters, occupancy, run

SPLITS = (16, 20, 24, 28)
HOLDS = ({}, {"hold_tracking": 3}, {"hold_event": 8}, {"slow": 40}, {"start": 2000})


@pytest.fixture(scope="module")
def sweep() -> views.TradeoffView:
    return views.tradeoff_view()


def test_a_bigger_event_pool_drops_fewer_events_on_a_healthy_day(sweep) -> None:
    # split grows -> event pool shrinks -> healthy event drops grow (never fall)
    drops = list(sweep.sweep["healthy event dropped"])
    assert all(a <= b for a, b in zip(drops, drops[1:], strict=False))
    assert drops[-1] > drops[TOTAL - 1 - 16] + 1000  # 31/1 is far worse than 16/16


def test_a_bigger_tracking_pool_drops_fewer_tracking_requests_on_both_days(sweep) -> None:
    for day in ("healthy", "slowdown"):
        drops = list(sweep.sweep[f"{day} tracking dropped"])
        assert all(a >= b for a, b in zip(drops, drops[1:], strict=False))


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("holds", HOLDS, ids=lambda h: ",".join(h) or "lesson")
def test_under_a_bulkhead_the_slowdown_day_does_not_touch_tracking_drops(split, holds) -> None:
    frame = views.layout_view(Params(split=split, **holds)).frame
    label = split_label(split)
    assert (
        frame.loc[(label, "healthy"), "tracking dropped"]
        == frame.loc[(label, "slowdown"), "tracking dropped"]
    )


@pytest.mark.parametrize("holds", HOLDS, ids=lambda h: ",".join(h) or "lesson")
def test_in_one_pool_the_slowdown_day_costs_tracking_requests(holds) -> None:
    frame = views.layout_view(Params(**holds)).frame
    label = split_label(None)
    assert (
        frame.loc[(label, "slowdown"), "tracking dropped"] > frame.loc[(label, "healthy"), "tracking dropped"]
    )


@pytest.mark.parametrize("holds", HOLDS, ids=lambda h: ",".join(h) or "lesson")
def test_a_single_pool_never_rejects_beside_an_idle_slot(holds) -> None:
    idle = views.idle_view(Params(split=24, **holds)).frame
    single = split_label(None)
    assert list(idle.loc[single, "idle slots at rejections"]) == [0, 0]
    assert idle.loc[(split_label(24), "healthy"), "idle slots at rejections"] > 0


def test_a_slower_slowdown_drops_more_in_one_pool_and_the_same_tracking_under_a_bulkhead() -> None:
    slow = [views.tradeoff_view(Params(slow=s)).at(None)["slowdown tracking dropped"] for s in (10, 22, 40)]
    assert slow[0] < slow[1] < slow[2]
    bulk = {views.tradeoff_view(Params(slow=s)).at(24)["slowdown tracking dropped"] for s in (10, 22, 40)}
    assert len(bulk) == 1


def test_a_later_failure_drops_fewer_on_the_slowdown_day() -> None:
    early, late = (views.layout_view(Params(start=s)).frame for s in (500, 3000))
    key = (split_label(None), "slowdown")
    assert early.loc[key, "dropped"] > late.loc[key, "dropped"]


def test_the_healthy_day_ignores_the_slowdown_sliders_and_reuses_its_runs() -> None:
    a = counters(Params(split=24, slow=5, start=10))
    b = counters(Params(split=24, slow=50, start=3000))
    assert a is b
    assert a == run(Params(split=24))


def test_the_layout_view_replays_the_lessons_runs() -> None:
    frame = views.layout_view(Params(split=LESSON_SPLIT)).frame
    day = lesson000.day_pair(Params(), LESSON_SPLIT)
    assert frame.loc[("24/8", "slowdown"), "event dropped"] == day.slowdown.event_dropped
    assert frame.loc[("24/8", "healthy"), "utilization"] == round(
        lesson000.utilization(day.healthy, 4000, 32), 3
    )


@pytest.mark.parametrize("holds", HOLDS, ids=lambda h: ",".join(h) or "lesson")
def test_every_split_of_the_tradeoff_equals_a_run_of_that_split(holds) -> None:
    sweep = views.tradeoff_view(Params(**holds)).sweep
    for split in range(1, TOTAL):
        h, y = (run(Params(split=split, mode=mode, **holds)) for mode in ("healthy", "slowdown"))
        expected = [h.tracking_dropped, h.event_dropped, y.tracking_dropped, y.event_dropped, h.idle, y.idle]
        assert list(sweep.loc[split]) == expected


def _compartment_runs(move) -> int:
    views.tradeoff_view(Params(hold_tracking=5, hold_event=7, slow=30, start=1500))  # fill the memo
    before = memo.stats()["compartments"].misses
    move()
    return memo.stats()["compartments"].misses - before


@pytest.mark.parametrize(
    ("moved", "reruns"),
    [
        ({"hold_tracking": 6}, TOTAL - 1),  # the tracking compartments only, shared by both days
        ({"hold_event": 8}, 2 * (TOTAL - 1)),  # the event compartments of both days
        ({"slow": 31}, TOTAL - 1),  # the slowdown day's event compartments only
        ({"start": 1550}, TOTAL - 1),
        ({"split": 13}, 0),  # a marker move replays nothing
    ],
    ids=lambda v: ",".join(v) if isinstance(v, dict) else str(v),
)
def test_a_slider_move_reruns_only_the_compartments_it_touches(moved, reruns) -> None:
    values = {"hold_tracking": 5, "hold_event": 7, "slow": 30, "start": 1500} | moved
    assert _compartment_runs(lambda: views.tradeoff_view(Params(**values))) == reruns


def test_the_tradeoff_table_lists_the_lessons_splits_and_the_marked_one() -> None:
    table = views.tradeoff_view(Params(split=13)).table()
    assert list(table.index) == ["single pool (32)", "28/4", "27/5", "24/8", "20/12", "16/16", "13/19"]
    assert (
        table.loc["28/4", "slowdown tracking dropped"]
        == lesson000.sizing_table()[1].slowdown.tracking_dropped
    )


def test_lesson_tables_match_the_lesson_module() -> None:
    main = views.main_table()
    assert main.loc[("bulkhead (24/8)", "healthy"), "idle slots"] == run(Params(split=24)).idle
    sizing = views.sizing_frame()
    assert list(sizing.index) == ["single pool (32)", "28/4", "24/8", "20/12", "16/16"]
    cost = lesson000.failure_free_cost()
    assert cost.bulkhead_dropped > cost.single_dropped
    assert f"({cost.drop_ratio:.1f}x)" in cost.sentence()
    gain = lesson000.failing_day_gain()
    assert gain.bulkhead.tracking_dropped < gain.single.tracking_dropped
    assert gain.bulkhead.event_dropped > gain.single.event_dropped  # the flooding compartment is not rescued
    sens = lesson000.sensitivity()
    assert sens.narrower.event_dropped > sens.lesson_split.event_dropped
    assert sens.utilization_at[5] > 1 > sens.utilization_at[8]


@pytest.mark.parametrize("split", (None, 8, 24, 30))
def test_busy_slots_never_exceed_a_pools_slots(split) -> None:
    view = views.occupancy_view(Params(split=split))
    for pool, slots in view.capacity.items():
        assert 0 <= view.busy(pool).min() and view.busy(pool).max() <= slots


def test_the_event_compartment_floods_after_the_failure_while_tracking_stays_below_full() -> None:
    summary = views.occupancy_view(Params(split=24)).summary()
    event, tracking = summary.loc["event pool (8)"], summary.loc["tracking pool (24)"]
    assert event["mean busy after"] > event["mean busy before"]
    assert event["rounds full after"] > 5 * tracking["rounds full after"]
    shared = summary.loc["single pool (32)"]
    assert shared["mean busy after"] > shared["mean busy before"]


@pytest.mark.parametrize("round_", (0, 950, 1000, 1150, 3999))
def test_a_compartments_busy_and_free_slots_add_up_to_its_slots(round_) -> None:
    view = views.compartment_view(round_, Params(split=24))
    assert list(view.frame["busy"] + view.frame["free"]) == list(view.frame["slots"])
    occ = occupancy(Params(split=24, mode="slowdown"))
    assert view.frame.loc["event pool (8)", "busy"] == occ.event[round_]
    assert view.failing == (round_ >= 1000)


@pytest.mark.parametrize(
    ("call", "name"),
    (
        (lambda: views.layout_view(Params(split=0)), "split"),
        (lambda: views.layout_view(Params(split=24, hold_event=0)), "hold_event"),
        (lambda: views.tradeoff_view(Params(split=32)), "split"),
        (lambda: views.occupancy_view(Params(split=24, start=5000)), "start"),
        (lambda: views.occupancy_view(Params(split=24), before=-1), "before"),
        (lambda: views.compartment_view(4000), "round"),
    ),
)
def test_a_bad_slider_value_is_one_line_naming_the_parameter(call, name) -> None:
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value).startswith(f"{name} must be") and "\n" not in str(err.value)


def test_the_model_reproduces_all_14_figures_lesson_000_states_exactly() -> None:
    claims = views.lesson_claims()
    assert len(claims) == 14 and all(c.reproduced for c in claims)
    assert views.claims_count(claims).splitlines() == [
        "lesson 000's claims reproduced in checked output: 14 of 14 (14 exactly)",
        "not reproduced: 0",
    ]
    other_day = views.lesson_claims(Params(slow=30))  # another slowdown: the lesson's figures no longer hold
    assert [c.verdict for c in other_day[:2]] == ["NO", "yes"]  # one pool suffers; 24/8's tracking does not


def test_every_number_of_lesson_000s_figures_is_in_its_text(seeds) -> None:
    text = next(seeds.glob("000_*.txt")).read_text(encoding="utf-8").replace("49,640", "49640")
    for where, says, value in views.LESSON_000:
        assert where in text.replace("’", "'"), where
        for number in re.findall(r"\d+(?:\.\d+)?", str(value)):
            assert re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", text), (says, number)
