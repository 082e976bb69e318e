"""Issue 11: the queue, drawable. Each answer says how long it waited and how long its call ran;
the Order Service gives the bulkhead's own counters over time on request.

Facts are counts, orderings and bounds no machine can beat (a call never runs shorter than
Payment's own sleep; what the server measured fits inside what the client measured).
"""

from __future__ import annotations

import asyncio

import pytest
from outside import http, one_line_error, serving

from bulkhead_lab.live.orders.load import OrdersLoad, run_orders
from bulkhead_lab.live.orders.service import OrderSettings

pytestmark = pytest.mark.live

SLOW = 0.6  # seconds: the 20 orders all arrive within one slow call


def test_every_answer_says_how_long_it_waited_and_ran_and_the_queued_waited_for_the_first_wave() -> None:
    """Lesson 004's limited burst, Payment slow at SLOW. The bulkhead's own timeline (5 running, 5 waiting,
    every refusal before Payment's first answer) is notebook 04's claims table (04_fail_fast_queue.ipynb
    cell c66, claims 23, 30, 31, 33 and 49), which nbval compares; test_bulkhead pins it point by point."""
    run = asyncio.run(run_orders(OrderSettings("limited"), OrdersLoad(slow_latency=SLOW)))
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
