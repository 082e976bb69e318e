"""Notebook 06's section 8 on real sockets: four kinds of client side by side against lesson 004's
Order Service, and what each layer counted. The facts the notebook prints (``live_facts``) nbval
compares; a Kernel > Interrupt is test_course_fail_fast_queue.py's (the same run_sync), and
test_interrupts.py cancels retrying clients at random points."""

from __future__ import annotations

import pytest

from bulkhead_lab.course.retries_and_budgets import figures, panels
from bulkhead_lab.live.orders import retrying
from bulkhead_lab.live.orders.reading.retries import ratio_bound
from bulkhead_lab.retries.budgets import SRE_BUDGET, RatioBudget

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def runs():
    progress: list[tuple[int, int]] = []
    runs = panels.live_runs(lambda done, total: progress.append((done, total)))
    assert progress[-1] == (80, 80)  # the four clients' orders, answered
    return runs


def test_retries_reach_the_order_service_never_payment(runs) -> None:
    frame = panels.live_frame(runs)
    assert list(frame.index) == [c.name for c in retrying.CLIENTS]
    per_order = frame[figures.PER_ORDER]
    # Payment 2 s a call: every retry (backoffs at most 0.2 + 0.4 s) meets a full bulkhead.
    assert list(per_order["client sent"]) == ["1.00", "2.00", "1.15", "2.00"]
    assert list(per_order["Order Service received"]) == list(per_order["client sent"])
    assert list(per_order["Payment counted"]) == ["0.50"] * 4
    assert list(frame["orders"]["retries denied"]) == [0, 0, 10, 0]
    assert all(w > 1.0 for w in frame["the queue"]["longest wait (s)"])
    for r in (r for run in runs for r in run.orders):  # every try recorded, each after the last one's answer
        assert r.attempts == len(r.tries) and r.tries[-1].status == r.status
        assert all(b.start >= a.end for a, b in zip(r.tries, r.tries[1:], strict=False))
    assert [r.attempts for r in runs[1].orders if r.outcome == "refused"] == [3] * 10  # no budget: 3 tries


def test_the_live_runs_stand_beside_the_sources_and_the_seeded_storm(runs) -> None:
    frame = panels.live_beside(runs)
    assert list(frame.index) == ["no budget", "SRE 10%", "AWS quota"]
    assert list(frame["the sources"]) == ["somewhat below 3x", "about 1.1x", "(no figure)"]
    assert list(frame["section 2"]) == ["3.000", "1.111", "1.005"]
    assert list(frame["section 4: 24/8 events"])[:2] == ["2.224", "1.111"]
    assert list(frame["live: Payment"]) == ["0.50"] * 3


def test_the_figure_shows_three_layers_for_each_kind_of_client(runs) -> None:
    fig = figures.live_figure(panels.live_frame(runs))
    (ax,) = fig.axes
    heights = [round(b.get_height(), 2) for container in ax.containers for b in container]
    assert heights == [1.0, 2.0, 1.15, 2.0, 1.0, 2.0, 1.15, 2.0, 0.5, 0.5, 0.5, 0.5]
    assert ax.get_ylabel() == "calls per order"


def test_the_ratio_bound_holds_for_any_number_of_orders() -> None:
    budget: RatioBudget = SRE_BUDGET
    for orders in range(1, 1001):
        retries = 0
        while budget.allows(retries, orders + retries):  # every retry the budget would ever grant
            retries += 1
        assert orders + retries < ratio_bound(orders), orders
