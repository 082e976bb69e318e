"""A run's invariant facts as plain lines: counts, peaks, who was refused, rounds, True/False.

These are what nbval compares, so no line holds a number that timing can change: only
counts, peaks, the order of events and comparisons with wide margins (check.js's 300 ms
and 200 ms, lower bounds no machine can beat, such as "at least four rounds of 3 s").
"""

from __future__ import annotations

import json

from bulkhead_lab.course.fail_fast_queue.views import lesson004
from bulkhead_lab.course.fail_fast_queue.views.reading import payment_state, run_label, waiting
from bulkhead_lab.live.orders.checks import keepalive_facts
from bulkhead_lab.live.orders.load import OrdersRun
from bulkhead_lab.live.orders.service import KEEPALIVE_TIMEOUT

TOLERANCE = 0.005  # s: a timer may fire a clock tick early; no lower bound here comes closer than this
INVENTORY_RAN_UNDER = 1.0  # s: fifty times Inventory's 20 ms; its own call never takes longer here
HEALTHY_UNDER = 1.0  # s: a healthy order (20 ms) is answered within this, however busy the machine


def refusals_before_first_answer(r: OrdersRun) -> bool:
    """Every refusal was answered before Payment answered any order (no failure to judge yet)."""
    refused = [x.end for x in r.orders if x.outcome == "refused"]
    served = [x.end for x in r.orders if x.outcome == "served"]
    return bool(refused) and (not served or max(refused) < min(served))


def stock_waited_for_payment(r: OrdersRun) -> bool:
    """Every stock check waited at least half a slow Payment call for its connection, and its own
    Inventory call was quick: the wait, not Inventory, took the time."""
    latency = r.slow_latency or 0.0
    return bool(r.stock_checks) and all(
        (x.waited or 0.0) >= latency / 2 and (x.ran or 0.0) < INVENTORY_RAN_UNDER for x in r.stock_checks
    )


def stock_after_every_order(r: OrdersRun) -> bool:
    """No stock check had a connection before every order had one: Payment's own waiters went first."""
    orders = [x.run_start for x in r.orders if x.outcome == "served"]
    stock = [x.run_start for x in r.stock_checks if x.outcome == "served"]
    return bool(orders and stock) and min(stock) >= max(orders) - TOLERANCE


def slowest_at_least_rounds(r: OrdersRun) -> tuple[int, bool]:
    """Rounds of Payment's latency the served orders needed, and whether the slowest order took at
    least that many rounds (a floor: Payment's sleeps never end early)."""
    rounds = len(r.served_waves())
    return rounds, r.slowest("order", "served") >= rounds * (r.slow_latency or 0.0) - TOLERANCE


def inventory_idle_while_orders_waited(r: OrdersRun) -> bool:
    """Inventory's pool held no call at some moment while orders waited for Payment's connections."""
    inv = r.timelines.get("inventory", [])
    waits = waiting(r, "order")
    for t, n in waits:
        if n > 0:
            before = [k for s, k in inv if s <= t]
            if before and before[-1] == 0:
                return True
    return False


def facts(r: OrdersRun) -> str:
    """The run's invariant facts, one per line: counts, peaks, who was refused, rounds. (What the lesson's
    own runs show beyond these, each section's claims say: :mod:`.claims`.)"""
    s = r.settings
    failed = r.count("failed") + r.count("no answer")
    lines = [f"{run_label(r)}, {payment_state(r)}"]
    lines.append(f"orders: {r.served} served, {r.refused} refused, {failed} failed")
    if r.refused:
        who = r.refused_arrivals()
        consecutive = who == list(range(who[0], who[-1] + 1))
        lines.append(
            f"refused: orders {who[0]} to {who[-1]} in order of arrival"
            if consecutive
            else f"refused, by order of arrival: {who}"
        )
        lines.append(
            f"every refusal answered before Payment's first answer: {refusals_before_first_answer(r)}"
        )
        lines.append(f"every refusal under 200 ms: {r.slowest('order', 'refused') < 0.2}")
    waves = r.served_waves()
    if waves:
        lines.append(  # the lesson's "rounds of 3 seconds": a wave here (a round is a model step)
            "served per wave of Payment's latency: "
            + ", ".join(f"{n} after {k} x {r.slow_latency:g} s" for k, n in waves.items())
        )
    peak = None if r.payment.error else r.payment.peak
    whose = ""
    if s is not None and peak is not None:
        places = s.pool if s.variant == "shared" else s.limit
        own = {
            "shared": "the whole shared pool",
            "separate": "its own pool",
            "limited": "the bulkhead's limit",
        }
        whose = f" ({own.get(s.variant, 'its limit')})" if peak == places else f" (of {places} places)"
    lines.append(f"Payment's peak: {peak}{whose}")
    if s is not None and s.variant != "shared":
        lines.append(f"Inventory's peak within its own pool of {s.limit}: {r.inventory.peak <= s.limit}")
    stock = r.slowest("stock")
    lines.append(f"every stock check under 300 ms: {stock < 0.3}")
    if s is not None and s.variant == "shared" and r.slow and stock >= 0.3:
        lines.append(f"every stock check waited for slow Payment calls to free a connection: "
                     f"{stock_waited_for_payment(r)}")  # fmt: skip
    if r.bulkhead_busy is not None:
        b = r.bulkhead_busy
        lines.append(
            f"bulkhead while busy: {b['running']} running, {b.get('queued', '?')} waiting, "
            f"{b['queueSlots']} free waiting places"
        )
    return "\n".join(lines)


def refusal_text(r: OrdersRun) -> str:
    """What a refused client reads: the 503 and its body's error, the same for every refusal."""
    refused = [x for x in r.orders if x.outcome == "refused"]
    if not refused:
        return "no order was refused"
    first = refused[0]
    error = {"error": first.body.get("error")}
    same = all(x.status == first.status and x.body.get("error") == error["error"] for x in refused)
    return "\n".join(
        [
            f"HTTP {first.status} {json.dumps(error)}",
            f"every refused order got this answer: {same}",
            f"the body also says why: {first.body.get('bulkhead')}",
        ]
    )


def bulkhead_counters_text(r: OrdersRun) -> str:
    """``GET /admin/bulkhead`` after the run, and the counter to watch: ``rejected``."""
    after = {k: v for k, v in (r.bulkhead_after or {}).items() if k != "timeline"}
    if not after:
        return f"{r.variant} has no bulkhead (GET /admin/bulkhead answers 404)"
    return "\n".join(
        [f"GET /admin/bulkhead after the run: {json.dumps(after)}", f"rejected: {after['rejected']}"]
    )


def keepalive_text(r: OrdersRun) -> str:
    """A shared pool's keep-alive run, Payment healthy, on either pool rule: its invariant facts."""
    f = keepalive_facts(r)  # one clear ValueError for any other run
    answered = max((x.end for x in r.orders), default=0.0)
    waited_out = answered < KEEPALIVE_TIMEOUT and all(
        x.run_start >= KEEPALIVE_TIMEOUT for x in r.stock_checks
    )
    return "\n".join(
        [
            f"{run_label(r)}, {payment_state(r)}",
            f"orders: {r.served} served, every one within {HEALTHY_UNDER:g} s: "
            f"{all(x.latency < HEALTHY_UNDER for x in r.orders)}",
            f"sockets open at once more than the pool's limit of {f.pool_limit}: "
            f"{f.kept_open > f.pool_limit}",
            f"every stock check under 300 ms: {f.slowest_stock < 0.3}",
            f"stock checks had a connection only after Payment's idle sockets' {KEEPALIVE_TIMEOUT:g}-s "
            f"keep-alive ran out: {waited_out}",
            f"idle kept-alive connections counted against the limit: {f.idle_counted}",
        ]
    )


def stall_text(stalled: OrdersRun, baseline: OrdersRun) -> str:
    """The keep-alive stall as measured, beside the lesson's (timing: the notebook does not compare it)."""
    waits = [x.waited or 0.0 for x in stalled.stock_checks]
    ratio = stalled.slowest("stock") / max(baseline.slowest("stock"), 1e-6)
    return "\n".join(
        [
            f"keep-alive stall, {run_label(stalled)}: stock checks {min(waits):.2f} - {max(waits):.2f} s "
            f"waiting for a connection, {stalled.slowest('stock'):.2f} s in all "
            f"(lesson 004: about {lesson004.KEEPALIVE_STOCK_S:g} s)",
            f"the baseline's slowest stock check: {baseline.slowest('stock') * 1000:.0f} ms "
            f"(lesson 004: {lesson004.HEALTHY_STOCK_MS[0]} - {lesson004.HEALTHY_STOCK_MS[1]} ms): "
            f"{ratio:.0f} times slower (lesson 004: {lesson004.KEEPALIVE_SLOWER})",
        ]
    )
