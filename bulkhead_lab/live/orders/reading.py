"""A finished run read for notebook 04: its label, its time axis, each request's bar, its counters over
time, and its invariant facts as lines (nbval compares them: counts, peaks, orders of events, floors).

Nothing here touches a socket or draws: the course side turns these rows into a figure or a table.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from bulkhead_lab.live.orders import checks
from bulkhead_lab.live.orders.clients import Kind, Outcome
from bulkhead_lab.live.orders.load import OrdersLoad, OrdersRun, planned_seconds
from bulkhead_lab.live.orders.settings import (
    KEEPALIVE_TIMEOUT,
    SLOW_LATENCY,
    VARIANTS,
    OrderSettings,
    Variant,
)

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
        f"every refusal answered before Payment's first answer: {checks.refusals_before_first_answer(r)}",
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
                     f"{checks.stock_waited_for_payment(r)}")  # fmt: skip
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
    f = checks.keepalive_facts(r)  # one clear ValueError for any other run
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
