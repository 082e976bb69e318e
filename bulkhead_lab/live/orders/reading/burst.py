"""Lesson 004's burst read (notebook 04): a run's label, its time axis, each request's bar, its counters
over time, check.js's four checks, the facts timing cannot change (orders of events, floors) and the
keep-alive experiment's, each as values and as the lines nbval compares.

Nothing here touches a socket or draws: the course side turns these rows into a figure or a table.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import NamedTuple

from bulkhead_lab.live.orders.clients import Kind, Outcome
from bulkhead_lab.live.orders.load import OrdersLoad, planned_seconds
from bulkhead_lab.live.orders.results import OrdersRun
from bulkhead_lab.live.orders.settings import (
    KEEPALIVE_TIMEOUT,
    SLOW_LATENCY,
    VARIANTS,
    OrderSettings,
    Variant,
)
from bulkhead_lab.live.orders.socket_pools import PoolRule

HEALTHY_UNDER = 1.0  # s: a healthy order (20 ms) is answered within this, however busy the machine
STOCK_UNDER, REFUSAL_UNDER = 0.3, 0.2  # s: check.js's bounds on stock checks and refusals
Step = list[tuple[float, int]]


def run_label(r: OrdersRun) -> str:
    """A run's variant and sizes, e.g. ``limited (pools 5+5, bulkhead 5+5)``."""
    s = r.settings
    if s is None:
        return r.variant
    size = f"pool {s.pool}" if s.variant == "shared" else f"pools {s.limit}+{s.limit}"
    size += f", bulkhead {s.limit}+{s.queue}" if s.variant == "limited" else ""
    size += ", Node-like" if s.variant == "shared" and s.pool_rule == "node" else ""
    size += ", keep-alive" if s.keepalive else ""
    return f"{s.variant} ({size})"


def payment_state(r: OrdersRun) -> str:
    if not r.slow:
        return "Payment healthy"
    return f"Payment slow ({r.slow_latency:g} s)" if r.slow_latency else "Payment slow"


_STEPS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def nice_end(seconds: float) -> float:
    """An axis end a little past ``seconds``: the least of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k."""
    value = max(seconds * 1.04, 0.1)
    power = 10 ** math.floor(math.log10(value))
    return round(next(m * power for m in _STEPS if m * power >= value - 1e-12), 6)


def time_axis(slow_latency: float = SLOW_LATENCY, pool: int = 10, limit: int = 5, queue: int = 5) -> float:
    """The time axis' end (s) every variant's run shares at these sizes and latency: the longest of the
    three variants' planned runs of the lesson's load, so switching the variant never rescales it."""
    load = OrdersLoad()
    longest = max(
        planned_seconds(OrderSettings(v, pool, limit, queue), load.orders, slow_latency)[0] for v in VARIANTS
    )
    return nice_end(longest + load.stock_delay)


LESSON_AXIS = time_axis()  # 15 s: a pool each, 4 x 3 s, and the stock checks' 100 ms


def wave_ends(r: OrdersRun) -> list[float]:
    """Where each wave of Payment's slow latency ends: 1, 2, 3 ... x latency (a slow run only)."""
    if not r.slow or not r.slow_latency:
        return []
    return [k * r.slow_latency for k in range(1, max(r.served_waves(), default=0) + 1)]


@dataclass(frozen=True)
class Bar:
    """One request: when it was sent, when its call had a connection, when it ended (s)."""

    kind: Kind
    index: int  # the client's sending order, from 1
    outcome: Outcome
    sent: float
    started: float  # its call had a connection (= answered, for a refusal)
    ended: float

    @property
    def waited(self) -> float:
        return self.started - self.sent


def bars(r: OrdersRun) -> list[Bar]:
    """Every request, orders first then stock checks, each split into its wait and its run."""
    out = []
    for kind in ("order", "stock"):
        for x in sorted(r.of(kind), key=lambda x: x.index):
            started = x.end if x.outcome == "refused" else min(max(x.run_start, x.start), x.end)
            out.append(Bar(x.kind, x.index, x.outcome, x.start, started, x.end))
    return out


@dataclass(frozen=True)
class Counters:
    """Calls running and waiting over time, refusals so far, and Payment's places."""

    payment_running: Step
    orders_waiting: Step
    inventory_running: Step
    stock_waiting: Step
    refused: Step  # refusals so far (the bulkhead's ``rejected``)
    limit: int  # Payment's places: the shared pool, its own pool, or the bulkhead's running places
    source: str  # where the Payment counts come from


def counters(r: OrdersRun) -> Counters:
    """The bulkhead's own timeline where there is one (running, queued, rejected); otherwise Payment's
    own count of open calls and each answer's wait."""
    inventory, stock = r.timelines.get("inventory", [(0.0, 0)]), r.waiting("stock")
    if points := r.bulkhead_timeline:
        return Counters([(p.t, p.running) for p in points], [(p.t, p.queued) for p in points], inventory,
                        stock, [(p.t, p.rejected) for p in points], places(r),
                        "the bulkhead's own counters (/admin/bulkhead?timeline=1)")  # fmt: skip
    return Counters(r.timelines.get("payment", [(0.0, 0)]), r.waiting("order"), inventory, stock,
                    [(0.0, 0)], places(r), "Payment's own count and each answer's waited_ms")  # fmt: skip


def places(r: OrdersRun) -> int:
    """Payment's places: the shared pool's connections, or its own pool's (= the bulkhead's limit)."""
    s = r.settings
    return 0 if s is None else (s.pool if s.variant == "shared" else s.limit)


# --- a run's facts, as lines nbval compares ----------------------------------------------------


def _refusal_lines(r: OrdersRun) -> list[str]:
    who = r.refused_arrivals()
    if not who:
        return []
    consecutive = who == list(range(who[0], who[-1] + 1))
    return [
        f"refused: orders {who[0]} to {who[-1]} in order of arrival" if consecutive
        else f"refused, by order of arrival: {who}",
        f"every refusal answered before Payment's first answer: {refusals_before_first_answer(r)}",
        f"every refusal under 200 ms: {r.slowest('order', 'refused') < REFUSAL_UNDER}",
    ]  # fmt: skip


OWN_PLACES: dict[Variant, str] = {
    "shared": "the whole shared pool",
    "separate": "its own pool",
    "limited": "the bulkhead's limit",
}


def _peak_lines(r: OrdersRun) -> list[str]:
    s, peak = r.settings, None if r.payment.error else r.payment.peak
    whose = ""
    if s is not None and peak is not None:
        mine = f" ({OWN_PLACES.get(s.variant, 'its limit')})"
        whose = mine if peak == places(r) else f" (of {places(r)} places)"
    lines = [f"Payment's peak: {peak}{whose}"]
    if s is not None and s.variant != "shared":
        lines.append(f"Inventory's peak within its own pool of {s.limit}: {r.inventory.peak <= s.limit}")
    return lines


def facts(r: OrdersRun) -> str:
    """The run's invariant facts, one per line: counts, peaks, who was refused, waves."""
    s, failed = r.settings, r.count("failed") + r.count("no answer")
    lines = [
        f"{run_label(r)}, {payment_state(r)}",
        f"orders: {r.served} served, {r.refused} refused, {failed} failed",
        *_refusal_lines(r),
    ]
    if waves := r.served_waves():
        each = ", ".join(f"{n} after {k} x {r.slow_latency:g} s" for k, n in waves.items())
        lines.append(f"served per wave of Payment's latency: {each}")
    lines += [*_peak_lines(r), f"every stock check under 300 ms: {r.slowest('stock') < STOCK_UNDER}"]
    if s is not None and s.variant == "shared" and r.slow and r.slowest("stock") >= STOCK_UNDER:
        lines.append("every stock check waited for slow Payment calls to free a connection: "
                     f"{stock_waited_for_payment(r)}")  # fmt: skip
    if (b := r.bulkhead_busy) is not None:
        lines.append(f"bulkhead while busy: {b['running']} running, {b.get('queued', '?')} waiting, "
                     f"{b['queueSlots']} free waiting places")  # fmt: skip
    return "\n".join(lines)


def served_in_turn(r: OrdersRun) -> str:
    """Which orders were served in which turn, numbered by arrival: first come, first served or not."""
    served = r.served_arrivals()
    turn = "first come, first served" if served == sorted(served) else "not in order of arrival"
    refused = r.refused_arrivals()
    return "\n".join([
        f"served, in the order they were answered: orders {', '.join(map(str, served))} ({turn})",
        f"refused at once: orders {refused[0]} to {refused[-1]}" if refused else "refused: none",
    ])  # fmt: skip


def refusal_text(r: OrdersRun) -> str:
    """What a refused client reads: the 503 and its body's error, the same for every refusal."""
    refused = [x for x in r.orders if x.outcome == "refused"]
    if not refused:
        return "no order was refused"
    first = refused[0]
    same = all(x.status == first.status and x.body.get("error") == first.body.get("error") for x in refused)
    return "\n".join([f"HTTP {first.status} {json.dumps({'error': first.body.get('error')})}",
                      f"every refused order got this answer: {same}",
                      f"the body also says why: {first.body.get('bulkhead')}"])  # fmt: skip


def bulkhead_counters_text(r: OrdersRun) -> str:
    """``GET /admin/bulkhead`` after the run, and the counter to watch: ``rejected``."""
    after = {k: v for k, v in (r.bulkhead_after or {}).items() if k != "timeline"}
    if not after:
        return f"{r.variant} has no bulkhead (GET /admin/bulkhead answers 404)"
    return f"GET /admin/bulkhead after the run: {json.dumps(after)}\nrejected: {after['rejected']}"


def waited_out_keepalive(r: OrdersRun) -> bool:
    """Every order was answered before the keep-alive timeout, and every stock check had a connection
    only after it: the idle kept-alive sockets held the places until they were closed."""
    answered = max((x.end for x in r.orders), default=0.0)
    return answered < KEEPALIVE_TIMEOUT and all(x.run_start >= KEEPALIVE_TIMEOUT for x in r.stock_checks)


def keepalive_text(r: OrdersRun) -> str:
    """A shared pool's keep-alive run, Payment healthy, on either pool rule: its invariant facts."""
    f = keepalive_facts(r)  # one clear ValueError for any other run
    return "\n".join([
        f"{run_label(r)}, {payment_state(r)}",
        f"orders: {r.served} served, every one within {HEALTHY_UNDER:g} s: "
        f"{all(x.latency < HEALTHY_UNDER for x in r.orders)}",
        f"sockets open at once more than the pool's limit of {f.pool_limit}: {f.kept_open > f.pool_limit}",
        f"every stock check under 300 ms: {f.slowest_stock < STOCK_UNDER}",
        f"stock checks had a connection only after Payment's idle sockets' {KEEPALIVE_TIMEOUT:g}-s "
        f"keep-alive ran out: {waited_out_keepalive(r)}",
        f"idle kept-alive connections counted against the limit: {f.idle_counted}",
    ])  # fmt: skip


# --- check.js's four checks -----------------------------------------------------------------


class Check(NamedTuple):
    """One of check.js's checks: what it checks, whether it passed, and the measured value."""

    check: str
    passed: bool
    measured: str


def check_orders(
    run: OrdersRun,
    *,
    stock_under: float = STOCK_UNDER,
    peak_at_most: int = 5,
    refusal_under: float = REFUSAL_UNDER,
) -> list[Check]:
    """check.js against one run: stock checks fast, Payment's peak bounded, some orders refused,
    refusals fast. (With no refusals the last check has nothing to fail, as in check.js.)"""
    refusals = [r.latency for r in run.orders if r.outcome == "refused"]
    slowest_stock = run.slowest("stock")
    return [
        Check(
            f"stock checks stay under {stock_under * 1000:.0f} ms",
            bool(run.stock_checks) and slowest_stock < stock_under,
            f"slowest {slowest_stock * 1000:.0f} ms",
        ),
        Check(
            f"Payment never handles more than {peak_at_most} calls at once",
            run.payment.error is None and run.payment.peak <= peak_at_most,
            f"peak {run.payment.peak if run.payment.error is None else 'unknown: ' + run.payment.error}",
        ),
        Check("some orders are refused", bool(refusals), f"{len(refusals)} refused"),
        Check(
            f"refused orders are answered in under {refusal_under * 1000:.0f} ms",
            all(t < refusal_under for t in refusals),
            f"slowest refusal {max(refusals) * 1000:.0f} ms" if refusals else "no refusals",
        ),
    ]


# --- lesson 004's runs, read as facts timing cannot change -----------------------------------

TOLERANCE = 0.005  # s: a timer may fire a clock tick early; no lower bound here comes closer than this
INVENTORY_RAN_UNDER = 1.0  # s: fifty times Inventory's 20 ms; its own call never takes longer here


def refusals_before_first_answer(run: OrdersRun) -> bool:
    """Every refusal was answered before Payment answered any order (no failure to judge yet)."""
    refused = [x.end for x in run.orders if x.outcome == "refused"]
    served = [x.end for x in run.orders if x.outcome == "served"]
    return bool(refused) and (not served or max(refused) < min(served))


def stock_waited_for_payment(run: OrdersRun) -> bool:
    """Every stock check waited at least half a slow Payment call for its connection, and its own
    Inventory call was quick: the wait, not Inventory, took the time."""
    half = (run.slow_latency or 0.0) / 2
    return bool(run.stock_checks) and all(
        (x.waited or 0.0) >= half and (x.ran or 0.0) < INVENTORY_RAN_UNDER for x in run.stock_checks
    )


def stock_after_every_order(run: OrdersRun) -> bool:
    """No stock check had a connection before every order had one: Payment's own waiters went first."""
    orders = [x.run_start for x in run.orders if x.outcome == "served"]
    stock = [x.run_start for x in run.stock_checks if x.outcome == "served"]
    return bool(orders and stock) and min(stock) >= max(orders) - TOLERANCE


def slowest_at_least_waves(run: OrdersRun) -> tuple[int, bool]:
    """Waves of Payment's latency the served orders needed, and whether the slowest order took at
    least that many (a floor: Payment's sleeps never end early)."""
    waves = len(run.served_waves())
    return waves, run.slowest("order", "served") >= waves * (run.slow_latency or 0.0) - TOLERANCE


def inventory_idle_while_orders_waited(run: OrdersRun) -> bool:
    """Inventory's pool held no call at some moment while orders waited for Payment's connections."""
    inventory = run.timelines.get("inventory", [])
    for t, n in run.waiting("order"):
        before = [k for s, k in inventory if s <= t]
        if n > 0 and before and before[-1] == 0:
            return True
    return False


# --- the keep-alive experiment --------------------------------------------------------------

IDLE_WAIT = 1.0  # seconds of waiting no healthy call explains: fifty times Payment's 20 ms


@dataclass(frozen=True)
class KeepaliveFacts:
    """What the shared pool did with keep-alive on and Payment healthy, under its pool rule."""

    pool_limit: int
    kept_open: int  # the most sockets the pool held at once, busy or idle (measured: connected, not closed)
    slowest_stock: float
    pool_rule: PoolRule = "aiohttp"
    idle_wait: float = 0.0  # the longest a stock check went on waiting for a connection after every order
    #                         was answered, when every Payment socket was idle (seconds)

    @property
    def idle_counted(self) -> bool:
        """Did idle kept-alive connections count against the limit (Node's behaviour in the lesson)?

        True when the pool never held more sockets than its limit *and* a stock check waited
        :data:`IDLE_WAIT` or more for a connection after every order had been answered, when
        nothing but idle sockets held the places. False when the pool held more sockets than
        its limit at once (at most ``limit`` can be counted), or no call waited on idle ones.
        """
        return self.kept_open <= self.pool_limit and self.idle_wait >= IDLE_WAIT


def keepalive_facts(run: OrdersRun) -> KeepaliveFacts:
    """Read the keep-alive experiment's facts from a ``shared``, keep-alive run with Payment healthy."""
    if run.settings is None or run.pools is None or not run.pools.shared:
        raise ValueError("run must be a shared-pool run from run_orders (got another)")
    if not run.settings.keepalive or run.slow:
        raise ValueError("run must have keepalive=True and slow=False, Payment healthy (got another)")
    p = run.pools.payment
    answered = max((r.end for r in run.orders), default=0.0)
    idle_wait = max(
        (
            max(0.0, r.run_start - max(r.wait_start, answered))
            for r in run.stock_checks
            if r.waited is not None
        ),
        default=0.0,
    )
    return KeepaliveFacts(
        pool_limit=p.limit,
        kept_open=p.peak,
        slowest_stock=run.slowest("stock"),
        pool_rule=run.pools.pool_rule,
        idle_wait=idle_wait,
    )
