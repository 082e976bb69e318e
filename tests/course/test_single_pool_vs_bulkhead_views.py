"""The slider views: what the lesson says moves when a slider moves, and what stays put."""

from __future__ import annotations

import pytest

from bulkhead_lab import memo
from bulkhead_lab.course.single_pool_vs_bulkhead import views
from bulkhead_lab.pool import lesson000
from bulkhead_lab.pool.params import TOTAL, Params
from bulkhead_lab.pool.rounds import occupancy, run

SPLITS = (16, 20, 24, 28)
HOLDS = ({}, {"slow": 40})


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


@pytest.mark.parametrize("holds", HOLDS, ids=lambda h: ",".join(h) or "lesson")
def test_behind_any_wall_the_slowdown_never_reaches_tracking_and_in_one_pool_it_does(holds) -> None:
    view = views.tradeoff_view(Params(**holds))
    sweep = view.sweep
    assert (sweep["healthy tracking dropped"] == sweep["slowdown tracking dropped"]).all()
    assert view.single["slowdown tracking dropped"] > view.single["healthy tracking dropped"]
    assert view.single["healthy idle slots"] == view.single["slowdown idle slots"] == 0  # no neighbour
    assert (sweep.loc[16:28, "healthy idle slots"] > 0).all()


def test_the_refusals_table_runs_the_day_it_is_given() -> None:
    seen: list[Params] = []

    def run_day(params: Params):
        seen.append(params)
        return run(params)

    layouts = {"24/8": Params(split=24), "26/12": Params(total=38, split=26)}
    frame = views.refusals(run_day, layouts)
    assert len(seen) == 4 and {p.mode for p in seen} == {"healthy", "slowdown"}  # its numbers: nbval, c26
    sized = run(Params(total=38, split=26))
    assert frame.loc["26/12", "tracking dropped, slowdown"] == sized.tracking_dropped


def test_a_slower_slowdown_drops_more_in_one_pool_and_the_same_tracking_under_a_bulkhead() -> None:
    slow = [views.tradeoff_view(Params(slow=s)).at(None)["slowdown tracking dropped"] for s in (10, 22, 40)]
    assert slow[0] < slow[1] < slow[2]
    bulk = {views.tradeoff_view(Params(slow=s)).at(24)["slowdown tracking dropped"] for s in (10, 22, 40)}
    assert len(bulk) == 1


def test_every_split_of_the_tradeoff_is_a_run_of_that_split_in_its_columns() -> None:
    """tests/test_sweep.py proves the sweep equals run() for every split and day; here, the view's columns."""
    sweep = views.tradeoff_view().sweep
    for split in range(1, TOTAL):
        h, y = (run(Params(split=split, mode=mode)) for mode in ("healthy", "slowdown"))
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


@pytest.mark.parametrize("round_", (999, 1000))
def test_a_compartments_busy_and_free_slots_add_up_to_its_slots(round_) -> None:
    view = views.compartment_view(round_, Params(split=24))
    assert list(view.frame["busy"] + view.frame["free"]) == list(view.frame["slots"])
    assert (view.frame["free"] >= 0).all()
    occ = occupancy(Params(split=24, mode="slowdown"))
    assert view.frame.loc["event pool (8)", "busy"] == occ.event[round_]
    assert view.failing == (round_ >= 1000)


def test_the_lessons_figures_no_longer_hold_on_another_slowdown() -> None:
    """On the lesson's days all 14 hold: the notebook prints their count, for nbval to compare."""
    other_day = views.lesson_claims(Params(slow=30))  # another slowdown: the lesson's figures no longer hold
    assert [c.verdict for c in other_day[:2]] == ["NO", "yes"]  # one pool suffers; 24/8's tracking does not


def test_the_bulkheads_lower_utilization_is_the_work_it_refuses_not_the_same_work_done_with_less() -> None:
    """Issue 37: section 4 said 24/8 "does the same work with less of the same resource". The busy
    slot-rounds it saves are exactly the holds of what it refuses more (busy slots are read after a round's
    frees, so a served call counts hold - 1 rounds); the served, refused and utilization: nbval, cell c18."""
    base = Params()
    single, bulk = run(base), run(base.with_(split=24))
    more = (bulk.tracking_dropped - single.tracking_dropped, bulk.event_dropped - single.event_dropped)
    held = more[0] * (base.hold_tracking - 1) + more[1] * (base.hold_event - 1)
    assert single.busy_rounds - bulk.busy_rounds == held
