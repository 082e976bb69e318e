"""Issue 11: the queue, drawable. Each answer says how long it waited and how long its call ran;
the bulkhead's own counters over time show the queue and the refusals.

Facts are counts, orderings and bounds no machine can beat (a call never runs shorter than
Payment's own sleep; what the server measured fits inside what the client measured).
"""

from __future__ import annotations

import asyncio

import pytest
from outside import http, one_line_error, serving

from bulkhead_lab.live.orders.clients import Received
from bulkhead_lab.live.orders.load import OrdersLoad, OrdersRun, run_orders
from bulkhead_lab.live.orders.service import OrderSettings

pytestmark = pytest.mark.live

SLOW = 0.6  # seconds: the 20 orders all arrive within one slow call


@pytest.fixture(scope="module")
def run() -> OrdersRun:
    """Lesson 004's limited burst, Payment slow at SLOW: both tests read this one run."""
    return asyncio.run(run_orders(OrderSettings("limited"), OrdersLoad(slow_latency=SLOW)))


def test_every_answer_says_how_long_it_waited_and_ran_and_the_queued_waited_for_the_first_wave(
    run: OrdersRun,
) -> None:
    for r in run.requests:
        assert r.waited is not None and r.ran is not None, r.body
        assert r.waited + r.ran <= r.latency  # the server's times fit inside the client's
        assert r.wait_start <= r.run_start <= r.end
    served = sorted((r for r in run.orders if r.outcome == "served"), key=lambda r: r.body["order"])
    first, queued = served[:5], served[5:]
    assert all(r.ran >= SLOW for r in served)  # Payment's own sleep, at least
    assert min(r.waited for r in queued) > max(r.waited for r in first)  # the queue is the wait
    assert all(r.ran == 0 for r in run.orders if r.outcome == "refused")  # never ran
    assert run.longest_wait("order") == max(r.waited for r in queued)


def test_the_bulkhead_timeline_shows_the_queue_filling_and_the_refusals_at_once(run: OrdersRun) -> None:
    points = run.bulkhead_timeline
    assert points[0][1:] == (0, 0, 0, 5) and points[-1][1:] == (0, 0, 10, 5)
    assert max(p.running for p in points) == 5 and max(p.queued for p in points) == 5
    assert all(p.running <= p.limit for p in points)
    full = next(p.t for p in points if p.rejected == 10)
    first_release = next(
        p.t
        for k, p in enumerate(points)
        if k and p.running + p.queued < points[k - 1].running + points[k - 1].queued
    )
    assert full < first_release  # all ten refusals came before Payment answered anything
    times = [p.t for p in points]
    assert times == sorted(times) and times[0] >= 0.0 and times[-1] <= run.duration
    assert run.limit_over_time() == [(0.0, 5)]
    assert run.order_service == Received(orders=20, stock_checks=10)


def test_admin_bulkhead_gives_its_timeline_on_request_and_admin_stats_counts_requests() -> None:
    with serving("serve-orders", "--variant", "limited") as s:
        order = s.port("Order Service")
        assert http(order, "POST", "/orders")[0] == 200
        assert http(order, "GET", "/stock")[0] == 200
        status, body = http(order, "GET", "/admin/bulkhead?timeline=1")
        assert status == 200 and body["limit"] == 5 and body["truncated"] is False
        assert [row[1:] for row in body["timeline"]] == [[0, 0, 0, 5], [1, 0, 0, 5], [0, 0, 0, 5]]
        assert "timeline" not in http(order, "GET", "/admin/bulkhead")[1]
        status, body = http(order, "GET", "/admin/bulkhead?timeline=yes")
        assert status == 400 and one_line_error(body) == "timeline must be 1 or 0 (got 'yes')"
        assert http(order, "GET", "/admin/stats") == (200, {"orders": 1, "stock_checks": 1})
        assert http(order, "POST", "/admin/reset")[0] == 200
        assert http(order, "GET", "/admin/stats") == (200, {"orders": 0, "stock_checks": 0})
        assert http(order, "GET", "/admin/bulkhead?timeline=1")[1]["timeline"] == [[0.0, 0, 0, 0, 5]]
