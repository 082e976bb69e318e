"""Lesson 004's own numbers, as named constants, each saying where in the lesson it is stated.

The lesson ("Bulkhead", lesson 004 in ``../shared/seeds/004_*.txt``) runs a Node Order
Service (Express, http Agents, cockatiel's bulkhead) against Payment and Inventory, drives
it with ``load.js`` and checks it with ``check.js``. Its timings are what one Node run on
the lesson author's machine printed; the notebook's claims (:mod:`.claims`) put each beside
what a run here shows, and ``tests/course/test_fail_fast_queue_views.py`` checks them
against the lesson's text when the seeds are present.
"""

from __future__ import annotations

#: "Payment Service answers in 20 ms, or in 3 seconds when you switch it to 'slow'" (the services).
PAYMENT_MS = 20
SLOW_S = 3.0
#: "Inventory Service always answers in about 20 ms" (the services).
INVENTORY_MS = 20
#: "load.js sends 20 orders at once and, 100 ms later, 10 stock checks" (the first Order Service).
ORDERS = 20
STOCK_CHECKS = 10
STOCK_DELAY_MS = 100
#: "one Agent for every outgoing call, with at most 10 connections in total (maxTotalSockets)".
SHARED_POOL = 10
#: "two Agents: paymentPool and inventoryPool, each limited to 5 connections (maxSockets)".
POOL_EACH = 5
#: "cockatiel's bulkhead(5, 5) allows 5 calls to run and 5 more to wait".
LIMIT, QUEUE = 5, 5
#: Node's http server keeps an idle kept-alive socket open this long (``server.keepAliveTimeout``).
KEEPALIVE_CLOSE_S = 5.0  # "Inventory had to wait until they were closed, about 5 seconds later"

# --- what the lesson measured, run by run ----------------------------------------------------

#: "With Payment healthy, everything is fast: stock checks 27 - 29 ms." (shared pool, no keep-alive)
HEALTHY_STOCK_MS = (27, 29)
#: "the stock checks ... took about 6 seconds each. Payment's own counter shows 10 calls at once."
SHARED_STOCK_S = 6.0
SHARED_PAYMENT_PEAK = 10
#: Keep-alive, Payment healthy: "The orders finished in about 60 ms - and then the stock checks took
#: about 6 seconds anyway." ... "made a healthy call 300 times slower."
KEEPALIVE_ORDERS_MS = 60
KEEPALIVE_STOCK_S = 6.0
KEEPALIVE_SLOWER = 300
#: Separate pools, Payment slow: "the stock checks stayed at 38 - 58 ms ... the slowest one waited
#: 12 seconds ... four rounds of 3 seconds."
SEPARATE_STOCK_MS = (38, 58)
SEPARATE_SLOWEST_S = 12.0
SEPARATE_ROUNDS = 4
#: The bulkhead, Payment slow: "stock checks 30 - 53 ms. 10 orders were served (5 after 3 seconds, 5
#: after 6), and 10 were refused in 16 ms ... Payment never had more than 5 calls at once ...
#: /admin/bulkhead showed 5 running and 0 free waiting places."
LIMITED_STOCK_MS = (30, 53)
LIMITED_SERVED = 10
LIMITED_ROUNDS = {1: 5, 2: 5}
LIMITED_REFUSED = 10
REFUSAL_MS = 16
LIMITED_PAYMENT_PEAK = 5
BUSY_RUNNING, BUSY_FREE_WAITING = 5, 0
#: "the route answers HTTP 503 with a clear message" ... 'a clear "busy, try again" answer'.
BUSY_STATUS = 503
BUSY_MESSAGE = "busy, try again"
#: check.js: "stock checks stay under 300 ms, Payment never handles more than 5 calls at once, some
#: orders are refused, and refused orders are answered in under 200 ms."
CHECK_STOCK_MS, CHECK_REFUSAL_MS = 300, 200
#: "Against order-service-limited.js all four checks passed. Against order-service-shared.js three
#: failed - including a stock check that took 6.2 seconds."
CHECKS_FAILED_SHARED = 3
CHECK_SHARED_STOCK_S = 6.2

# --- sizing ---------------------------------------------------------------------------------

#: "If Payment receives 20 calls per second and each takes 0.1 seconds, about 2 calls are in progress"
RATE, HOLD, IN_FLIGHT = 20.0, 0.1, 2
#: "Set the limit a few times above that - say 5 or 6"
SUGGESTED = (5, 6)
