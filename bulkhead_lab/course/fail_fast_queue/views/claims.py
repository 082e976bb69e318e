"""Lesson 004's claims, each beside what this notebook's runs show without timing, and how many hold.

A *claim* is a number or fact the lesson states about its services, its load, its runs,
check.js and its sizing rule; a fact the lesson states twice (its introduction repeats
its runs' numbers) counts once. The analogy, the four questions' definitions and the
advice are not claims a run can check; the notebook shows them beside the facts that
illustrate them. Each claim is reproduced one of three ways:

- :data:`EXACT`: the same value, counted by a service itself (peaks, counts, rounds, the
  503 body, ``/admin/bulkhead``, check.js's verdicts);
- :data:`INVARIANT`: a duration, which timing moves, as a fact timing cannot change: a
  floor no machine can beat (four rounds of 3 s), an order of events (every refusal
  before Payment's first answer), or check.js's own wide bounds (300 ms, 200 ms);
- :data:`NOT_HERE`: what these runs do not reproduce, and why.

Every ``here`` string is free of timing, so a notebook cell printing :func:`claims_table`
is compared by nbval: if a fact stops holding, the checked output changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bulkhead_lab import sizing
from bulkhead_lab.course.fail_fast_queue.views import lesson004 as L
from bulkhead_lab.course.fail_fast_queue.views.compare import NODE_BUFFER
from bulkhead_lab.course.fail_fast_queue.views.facts import (
    TOLERANCE,
    inventory_idle_while_orders_waited,
    refusals_before_first_answer,
    slowest_at_least_rounds,
    stock_after_every_order,
    stock_waited_for_payment,
)
from bulkhead_lab.course.ui.beside import NOT_HERE, Claim, WideFrame
from bulkhead_lab.course.ui.beside import claims_count as _count
from bulkhead_lab.course.ui.beside import claims_table as _table
from bulkhead_lab.course.ui.beside import exact as _exact
from bulkhead_lab.course.ui.beside import fact as _fact
from bulkhead_lab.live.orders.checks import check_orders, keepalive_facts
from bulkhead_lab.live.orders.load import OrdersRun
from bulkhead_lab.live.orders.service import BUSY, KEEPALIVE_TIMEOUT


@dataclass(frozen=True)
class Runs:
    """The notebook's runs the claims read (each from :func:`~.reading.run`)."""

    shared: OrdersRun  # one shared pool, the Node-like pool, Payment slow 3 s
    separate: OrdersRun  # a pool per dependency, Payment slow 3 s
    limited: OrdersRun  # pools + bulkhead 5 + 5, Payment slow 3 s
    baseline: OrdersRun  # one shared pool, Payment healthy, no keep-alive
    keepalive: OrdersRun  # one shared pool, Payment healthy, keep-alive, the Node-like pool
    keepalive_separate: OrdersRun  # a pool per dependency, the same
    small: OrdersRun  # a limit without headroom, Payment healthy
    big: OrdersRun  # a large limit, Payment slow


def _ran(runs: Iterable[OrdersRun], kind: str, at_least: float, under: float = float("inf")) -> bool:
    calls = [x for r in runs for x in r.of(kind) if x.outcome == "served"]
    return bool(calls) and all(at_least - TOLERANCE <= (x.ran or 0.0) < under for x in calls)


def _rounds(r: OrdersRun) -> str:
    return ", ".join(str(n) for n in r.served_waves().values())


def _pools(r: OrdersRun) -> str:
    p = r.pools or {}
    if p.get("shared"):
        return f"one pool of {p['payment']['limit']} for both"
    return f"{p.get('payment', {}).get('limit')} + {p.get('inventory', {}).get('limit')}"


def setup_claims(runs: Runs) -> list[Claim]:
    s = "The services and the load"
    slow = (runs.shared, runs.separate, runs.limited)
    every = (*slow, runs.baseline, runs.keepalive, runs.keepalive_separate)
    r = runs.limited
    return [
        _fact(s, "Payment answers in 20 ms", f"{L.PAYMENT_MS} ms", _ran([runs.baseline], "order", 0.020),
              "every healthy Payment call took at least 20 ms", "a Payment call was quicker than 20 ms"),
        _fact(s, "... or in 3 s when switched slow", f"{L.SLOW_S:g} s", _ran(slow, "order", L.SLOW_S),
              "every slow Payment call took at least 3 s", "a slow Payment call was quicker than 3 s"),
        _fact(s, "Inventory always answers in about 20 ms", f"{L.INVENTORY_MS} ms",
              _ran(every, "stock", 0.020, 1.0), "every Inventory call took 20 ms to under 1 s, in every run",
              "an Inventory call fell outside 20 ms to 1 s"),
        _exact(s, "load.js sends 20 orders at once and 10 stock checks", f"{L.ORDERS} + {L.STOCK_CHECKS}",
               f"{len(r.orders)} + {len(r.stock_checks)}"),
        _fact(s, "... the stock checks 100 ms after the orders", f"{L.STOCK_DELAY_MS} ms",
              all(min(x.start for x in q.stock_checks) >= L.STOCK_DELAY_MS / 1000 - TOLERANCE for q in every),
              "every run sent them at least 100 ms later", "a run sent them sooner"),
    ]  # fmt: skip


def shared_claims(runs: Runs) -> list[Claim]:
    s = "One shared pool"
    r, base = runs.shared, runs.baseline
    return [
        _exact(s, "one Agent for every call, at most 10 connections", f"one pool of {L.SHARED_POOL} for both",
               _pools(r)),
        _fact(s, "Payment healthy: stock checks 27 - 29 ms", "27 - 29 ms", base.slowest("stock") < 0.3,
              "under 300 ms (check.js's bound)", "300 ms or more"),
        _exact(s, "Payment slow: Payment's own counter shows 10 calls at once", L.SHARED_PAYMENT_PEAK,
               r.payment.get("peak")),
        _fact(s, "Payment slow: the stock checks took about 6 s each", f"about {L.SHARED_STOCK_S:g} s",
              stock_after_every_order(r) and len(r.served_waves()) == 2,
              "Node-like pool: each had a connection only after both rounds' orders had theirs",
              "a stock check got a connection before every waiting order"),
        _fact(s, "Inventory is healthy: there was no free connection to reach it", "no free connection",
              stock_waited_for_payment(r), "each waited for slow Payment calls; its own call took under 1 s",
              "a stock check did not wait, or its own call was slow"),
    ]  # fmt: skip


def keepalive_claims(runs: Runs) -> list[Claim]:
    s = "Keep-alive, Payment healthy"
    r, sep = runs.keepalive, runs.keepalive_separate
    f = keepalive_facts(r)
    answered = max(x.end for x in r.orders)
    waited_out = (
        all(x.run_start >= KEEPALIVE_TIMEOUT for x in r.stock_checks) and answered < KEEPALIVE_TIMEOUT
    )
    return [
        _fact(s, "the orders finished in about 60 ms", f"about {L.KEEPALIVE_ORDERS_MS} ms",
              all(x.latency < 1.0 for x in r.orders), "every order within 1 s", "an order took 1 s or more"),
        Claim(s, "... and then the stock checks took about 6 s anyway", f"about {L.KEEPALIVE_STOCK_S:g} s",
              "5 s: the Node-like pool's keep-alive timeout (see the next claim)", NOT_HERE, False,
              NODE_BUFFER),
        _exact(s, "the 10 idle kept-open connections counted towards the shared limit of 10",
               f"{L.SHARED_POOL} of {L.SHARED_POOL}, idle counted: True",
               f"{f.kept_open} of {f.pool_limit}, idle counted: {f.idle_counted}"),
        _fact(s, "Inventory waited until they were closed, about 5 s later",
              f"about {L.KEEPALIVE_CLOSE_S:g} s",
              waited_out, "every stock check had a connection only after the 5-s keep-alive ran out",
              "a stock check had a connection sooner"),
        Claim(s, "a healthy call made 300 times slower", f"{L.KEEPALIVE_SLOWER}",
              "a ratio of two timings (shown in the table above)", NOT_HERE, False,
              "it divides the stall by a 20-ms call; both ends are reproduced (the claims on either side), "
              "their ratio moves with every run"),
        _fact(s, "separate pools do not have this problem", "no stall",
              sep.slowest("stock") < 0.3 and all(x.run_start < KEEPALIVE_TIMEOUT for x in sep.stock_checks),
              "pool per dependency, Node-like, keep-alive: every stock check under 300 ms",
              "a stock check stalled"),
    ]  # fmt: skip


def separate_claims(runs: Runs) -> list[Claim]:
    s = "A pool per dependency"
    r = runs.separate
    rounds, held = slowest_at_least_rounds(r)
    return [
        _exact(s, "two Agents of 5 connections each", f"{L.POOL_EACH} + {L.POOL_EACH}", _pools(r)),
        _fact(s, "the stock checks stayed at 38 - 58 ms", "38 - 58 ms", r.slowest("stock") < 0.3,
              "under 300 ms (check.js's bound)", "300 ms or more"),
        _fact(s, "the slowest order waited 12 s", f"{L.SEPARATE_SLOWEST_S:g} s", held and rounds == 4,
              "at least 4 x 3 s = 12 s", f"{rounds} rounds, or quicker than them"),
        _exact(s, "four rounds of 3 s (20 payments through 5 connections)", "5, 5, 5, 5", _rounds(r)),
        _exact(s, "Payment can still use up its own 5", L.POOL_EACH, r.payment.get("peak")),
        _fact(s, "... but it cannot touch Inventory's, not even idle ones", "cannot borrow",
              inventory_idle_while_orders_waited(r) and r.payment.get("peak") == L.POOL_EACH,
              "Inventory's pool sat idle while orders waited; Payment's peak stayed 5", "Payment borrowed"),
    ]  # fmt: skip


def limited_claims(runs: Runs) -> list[Claim]:
    s = "The bulkhead"
    r, sep = runs.limited, runs.separate
    busy = r.bulkhead_busy or {}
    refused = [x for x in r.orders if x.outcome == "refused"]
    return [
        _exact(s, "bulkhead(5, 5): 5 calls run and 5 more wait", f"{L.LIMIT} running, {L.QUEUE} waiting",
               f"{busy.get('running')} running, {busy.get('queued')} waiting"),
        _exact(s, "when both are full the route answers HTTP 503", "503 for every refusal",
               "503 for every refusal" if refused and all(x.status == 503 for x in refused) else "another"),
        _exact(s, "... with a clear 'busy, try again'", BUSY,
               refused[0].body.get("error") if refused else "-"),
        _exact(s, "Inventory keeps its own pool as before", f"its own {L.POOL_EACH}, peak within it",
               f"its own {(r.pools or {}).get('inventory', {}).get('limit')}, peak within it"
               if r.inventory.get("peak", 99) <= L.POOL_EACH else "over its pool"),
        _fact(s, "stock checks 30 - 53 ms", "30 - 53 ms", r.slowest("stock") < 0.3,
              "under 300 ms (check.js's bound)", "300 ms or more"),
        _exact(s, "10 orders were served", L.LIMITED_SERVED, r.served),
        _exact(s, "... 5 after 3 s, 5 after 6", "5, 5", _rounds(r)),
        _exact(s, "10 were refused", L.LIMITED_REFUSED, r.refused),
        _fact(s, "... in 16 ms", f"{L.REFUSAL_MS} ms",
              refusals_before_first_answer(r) and r.slowest("order", "refused") < 0.2,
              "under 200 ms, every one before Payment's first answer", "a refusal was slow"),
        _fact(s, "... instead of waiting up to 12 s", "not 12 s",
              r.slowest("order", "refused") < 0.2 and slowest_at_least_rounds(sep)[1],
              "refused under 200 ms; without the bulkhead the last order took at least 12 s", "not so"),
        _exact(s, "Payment never had more than 5 calls at once", L.LIMITED_PAYMENT_PEAK,
               r.payment.get("peak")),
        _exact(s, "/admin/bulkhead: 5 running and 0 free waiting places",
               f"{L.BUSY_RUNNING} running, {L.BUSY_FREE_WAITING} free",
               f"{busy.get('running')} running, {busy.get('queueSlots')} free"),
    ]  # fmt: skip


def check_claims(runs: Runs) -> list[Claim]:
    s = "check.js"
    limited, shared = check_orders(runs.limited), check_orders(runs.shared)
    claims = [
        _exact(s, f"against the bulkhead: {c.check}", "PASS", "PASS" if c.passed else "FAIL") for c in limited
    ]
    claims += [
        _exact(s, f"against the shared pool: {c.check}", "FAIL", "PASS" if c.passed else "FAIL")
        for c in shared[:3]
    ]  # the lesson: "three failed" (the fourth has no refusal to fail on)
    two_rounds = 2 * L.SLOW_S - L.STOCK_DELAY_MS / 1000
    claims.append(
        _fact(
            s,
            "... including a stock check that took 6.2 s",
            f"{L.CHECK_SHARED_STOCK_S:g} s",
            runs.shared.slowest("stock") >= two_rounds - TOLERANCE,
            "Node-like pool: at least two rounds less the 100-ms head start, 5.9 s",
            "quicker",
        )
    )
    return claims


def sizing_claims(runs: Runs) -> list[Claim]:
    s = "Sizing"
    small, big, r = runs.small, runs.big, runs.limited
    load = sizing.in_flight(L.RATE, L.HOLD)
    small_limit = small.settings.limit if small.settings else "?"
    big_limit = big.settings.limit if big.settings else -1
    return [
        _exact(s, "20 calls/s x 0.1 s: about 2 in progress", L.IN_FLIGHT, f"{load:g}"),
        _exact(s, "set the limit a few times above: say 5 or 6", f"{L.SUGGESTED[0]} or {L.SUGGESTED[1]}",
               f"{sizing.suggested_limit(L.RATE, L.HOLD, 2.5)} or "
               f"{sizing.suggested_limit(L.RATE, L.HOLD, 3.0)}"),
        _fact(s, "too small: good requests are refused on a normal day", "refused",
              small.refused > 0 and not small.slow,
              f"limit {small_limit}, Payment healthy: orders refused", "none refused"),
        _exact(s, "too big: a slow dependency holds a large share before the wall stops it",
               "the whole limit", "the whole limit" if big.payment.get("peak") == big_limit else "less"),
        _exact(s, "watch how many requests it refuses (/admin/bulkhead)", f"rejected: {L.LIMITED_REFUSED}",
               f"rejected: {(r.bulkhead_after or {}).get('rejected')}"),
    ]  # fmt: skip


def burst_claims(runs: Runs) -> list[Claim]:
    s = "Bursts"
    sep, r = runs.separate, runs.limited
    return [
        _exact(s, "without a bulkhead a burst of 20 orders all reached Payment", L.ORDERS,
               sep.payment.get("calls")),
        _fact(s, "a bulkhead limits such a burst without waiting for failures", "limited at once",
              r.payment.get("calls") == L.LIMIT + L.QUEUE and refusals_before_first_answer(r),
              "Payment counted 10 calls; every refusal came before its first answer", "not so"),
    ]  # fmt: skip


def lesson_claims(runs: Runs) -> list[Claim]:
    """Every claim of lesson 004, in the lesson's order of runs."""
    return [
        *setup_claims(runs),
        *shared_claims(runs),
        *keepalive_claims(runs),
        *separate_claims(runs),
        *limited_claims(runs),
        *check_claims(runs),
        *sizing_claims(runs),
        *burst_claims(runs),
    ]


def claims_table(claims: Iterable[Claim]) -> WideFrame:
    """The claims as a numbered table: section, what the lesson says, its value, what holds here, verdict."""
    return _table(claims, "lesson 004", numbered=True)


def claims_count(claims: Iterable[Claim]) -> str:
    """How many claims checked output reproduces, exactly or as invariants, and which cannot be, and why."""
    return _count(claims, "lesson 004", "floors, orders of events, check.js's bounds")
