"""What notebook 04 shows of a live run: its facts as lines nbval compares, its tables, its time axis.

Every number is read from an :class:`~bulkhead_lab.live.orders.load.OrdersRun` that :func:`run`
measured on real sockets in this kernel; the facts a line states are computed on the live side
(:mod:`bulkhead_lab.live.orders.checks`). A fact line holds no number timing can change (counts,
peaks, the order of events, floors and check.js's wide bounds); the tables with timings are shown
under ``# NBVAL_IGNORE_OUTPUT``.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from bulkhead_lab import sizing
from bulkhead_lab.course.fail_fast_queue import lesson004 as L
from bulkhead_lab.course.ui.runner import run_sync
from bulkhead_lab.live.net.server import Progress, gather_all
from bulkhead_lab.live.orders import checks
from bulkhead_lab.live.orders.load import OrdersLoad, OrdersRun, orders_setup, planned_seconds, run_orders
from bulkhead_lab.live.orders.service import KEEPALIVE_TIMEOUT, VARIANTS, OrderSettings, Variant

VARIANT_WORDS: dict[Variant, str] = {  # the panel's buttons, the figures' titles
    "shared": "one shared pool",
    "separate": "a pool per dependency",
    "limited": "pools + bulkhead (limit, waiting places)",
}
RULE_WORDS = {"aiohttp": "aiohttp's pool", "node": "Node-like pool"}
LOAD_GAP = 0.5  # s between the loads of runs side by side: time for one burst to be answered
HEALTHY_UNDER = 1.0  # s: a healthy order (20 ms) is answered within this, however busy the machine


def run(variant: Variant = "limited", *, on_progress: Progress | None = None, **values: Any) -> OrdersRun:
    """One live run from a cell's short form, e.g. ``run("shared", keepalive=True, slow=False)``:
    ``values`` are the Order Service's settings and the load's, by name (``bulkhead=`` the class)."""
    settings, load = orders_setup(variant, **values)
    return measure(settings, load, on_progress=on_progress)


def measure(
    settings: OrderSettings, load: OrdersLoad | None = None, *, on_progress: Progress | None = None
) -> OrdersRun:
    """:func:`~bulkhead_lab.live.orders.load.run_orders` from a cell: an interrupted cell stops the run
    and waits until its services are closed (``run_sync``), so nothing is left listening."""
    return run_sync(run_orders(settings, load, on_progress=on_progress))


@dataclass(frozen=True)
class Experiment:
    """One live run to make: the Order Service's settings and the load (see :func:`experiment`);
    ``alone``: it runs by itself, before the others start (its wall-clock budgets keep their margin)."""

    settings: OrderSettings
    load: OrdersLoad
    alone: bool = False


def experiment(variant: Variant = "limited", *, alone: bool = False, **values: Any) -> Experiment:
    """An experiment in a cell's short form (:func:`run`'s), checked before anything starts."""
    return Experiment(*orders_setup(variant, **values), alone=alone)


def measure_together(
    experiments: Mapping[str, Experiment], *, on_progress: Progress | None = None
) -> dict[str, OrdersRun]:
    """The experiments on one loop, each on its own services and free ports; the runs by name.
    ``on_progress`` counts the answers of all of them. Those marked ``alone`` run first, one after
    another; then all the others at the same time (:func:`side_by_side`). Bound by sleeps, not CPU,
    they measure what they measure alone (peaks, counts, order). An interrupted cell cancels them
    all and waits until every service is closed (``run_sync``); one that fails cancels the others."""
    answered = {name: (0, e.load.requests) for name, e in experiments.items()}  # each run's (done, total)

    def counter(name: str) -> Progress:
        def count(done: int, total: int) -> None:
            answered[name] = (done, total)
            if on_progress is not None:
                on_progress(sum(d for d, _ in answered.values()), sum(t for _, t in answered.values()))

        return count

    async def all_of_them() -> dict[str, OrdersRun]:
        runs = {}
        for name, e in experiments.items():
            if e.alone:
                runs[name] = await run_orders(e.settings, e.load, on_progress=counter(name))
        together = {n: e for n, e in experiments.items() if not e.alone}
        runs |= await side_by_side(together, {n: counter(n) for n in together})
        return {name: runs[name] for name in experiments}

    return run_sync(all_of_them())


async def side_by_side(
    experiments: Mapping[str, Experiment], progress: Mapping[str, Progress]
) -> dict[str, OrdersRun]:
    """The experiments at the same time. Once all their services listen, the loads start one after
    another, :data:`LOAD_GAP` apart, in the order given (longest first): each run's burst of 30
    requests has the CPU to itself, and a later run's meets the earlier ones while they wait for
    slow Payment."""
    waiting, all_up = [len(experiments)], asyncio.Event()

    def up(turn: int) -> Callable[[], Awaitable[None]]:
        async def wait() -> None:  # this run's services listen: wait for the others', then its turn
            waiting[0] -= 1
            if waiting[0] == 0:
                all_up.set()
            await all_up.wait()
            await asyncio.sleep(turn * LOAD_GAP)

        return wait

    tasks = [asyncio.ensure_future(run_orders(e.settings, e.load, on_progress=progress[n], when_up=up(i)))
             for i, (n, e) in enumerate(experiments.items())]  # fmt: skip
    return dict(zip(experiments, await gather_all(tasks), strict=True))  # one fails: all stop


# --- labels, spans and one time axis ---------------------------------------------------------


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


def ms(seconds: float) -> int:
    return round(seconds * 1000)


def span(values: Sequence[float], unit: str = "") -> str:
    """``27 - 29 ms``, or ``2.94 - 2.98 s`` for seconds-long values (``unit="ms"``: always in ms)."""
    if not values:
        return "-"
    lo, hi = min(values), max(values)
    if hi >= 1.0 and unit != "ms":
        return f"{lo:.2f} s" if round(lo, 2) == round(hi, 2) else f"{lo:.2f} - {hi:.2f} s"
    return f"{ms(lo)} ms" if ms(lo) == ms(hi) else f"{ms(lo)} - {ms(hi)} ms"


_STEPS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def nice_end(seconds: float) -> float:
    """An axis end a little past ``seconds``: the least of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k."""
    value = max(seconds * 1.04, 0.1)
    power = 10 ** math.floor(math.log10(value))
    return round(next(m * power for m in _STEPS if m * power >= value - 1e-12), 6)


def time_axis(slow_latency: float = L.SLOW_S, pool: int = L.SHARED_POOL, limit: int = L.POOL_EACH,
              queue: int = L.QUEUE) -> float:  # fmt: skip
    """The time axis' end (s) every variant's figure shares at these sizes and latency: the longest of
    the three variants' planned runs, so switching the variant never rescales it (15 s at the lesson's)."""
    longest = max(
        planned_seconds(OrderSettings(v, pool, limit, queue), L.ORDERS, slow_latency)[0] for v in VARIANTS
    )
    return nice_end(longest + L.STOCK_DELAY_MS / 1000)


LESSON_AXIS = time_axis()


def wave_ends(r: OrdersRun) -> list[float]:
    """Where each wave of Payment's slow latency ends: 1, 2, 3 ... x latency (a slow run only)."""
    if not r.slow or not r.slow_latency:
        return []
    return [k * r.slow_latency for k in range(1, max(r.served_waves(), default=0) + 1)]


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
        f"every refusal under 200 ms: {r.slowest('order', 'refused') < 0.2}",
    ]  # fmt: skip


def facts(r: OrdersRun) -> str:
    """The run's invariant facts, one per line: counts, peaks, who was refused, waves."""
    s = r.settings
    lines = [f"{run_label(r)}, {payment_state(r)}",
             f"orders: {r.served} served, {r.refused} refused, {r.count('failed') + r.count('no answer')} "
             "failed",
             *_refusal_lines(r)]  # fmt: skip
    if waves := r.served_waves():
        each = ", ".join(f"{n} after {k} x {r.slow_latency:g} s" for k, n in waves.items())
        lines.append(f"served per wave of Payment's latency: {each}")
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
    lines.append(f"every stock check under 300 ms: {r.slowest('stock') < 0.3}")
    if s is not None and s.variant == "shared" and r.slow and r.slowest("stock") >= 0.3:
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


def keepalive_text(r: OrdersRun) -> str:
    """A shared pool's keep-alive run, Payment healthy, on either pool rule: its invariant facts."""
    f = checks.keepalive_facts(r)  # one clear ValueError for any other run
    answered = max((x.end for x in r.orders), default=0.0)
    waited_out = answered < KEEPALIVE_TIMEOUT and all(
        x.run_start >= KEEPALIVE_TIMEOUT for x in r.stock_checks
    )
    return "\n".join([
        f"{run_label(r)}, {payment_state(r)}",
        f"orders: {r.served} served, every one within {HEALTHY_UNDER:g} s: "
        f"{all(x.latency < HEALTHY_UNDER for x in r.orders)}",
        f"sockets open at once more than the pool's limit of {f.pool_limit}: {f.kept_open > f.pool_limit}",
        f"every stock check under 300 ms: {f.slowest_stock < 0.3}",
        f"stock checks had a connection only after Payment's idle sockets' {KEEPALIVE_TIMEOUT:g}-s "
        f"keep-alive ran out: {waited_out}",
        f"idle kept-alive connections counted against the limit: {f.idle_counted}",
    ])  # fmt: skip


def stall_text(stalled: OrdersRun, baseline: OrdersRun) -> str:
    """The keep-alive stall as measured, beside the lesson's (timing: the notebook does not compare it)."""
    ratio = stalled.slowest("stock") / max(baseline.slowest("stock"), 1e-6)
    return (
        f"keep-alive stall: slowest stock check {stalled.slowest('stock'):.2f} s (lesson 004: about "
        f"{L.KEEPALIVE_STOCK_S:g} s), {ratio:.0f} times the baseline's {ms(baseline.slowest('stock'))} ms "
        f"(lesson 004: {L.KEEPALIVE_SLOWER} times)"
    )


# --- tables -----------------------------------------------------------------------------------


def summary_row(r: OrdersRun) -> dict[str, object]:
    """One run as the lesson reports it: stock checks, orders served and refused, peaks."""
    rejected = (r.bulkhead_after or {}).get("rejected")
    return {
        "stock checks": span([x.latency for x in r.stock_checks], "ms"),
        "orders served": r.served,
        "orders refused": r.refused,
        "slowest order": f"{r.slowest('order'):.2f} s",
        "slowest refusal": f"{ms(r.slowest('order', 'refused'))} ms" if r.refused else "-",
        "Payment peak": "?" if r.payment.error else r.payment.peak,
        "Inventory peak": "?" if r.inventory.error else r.inventory.peak,
        "rejected (bulkhead)": "-" if rejected is None else rejected,
    }


def summary_table(runs: Iterable[OrdersRun], index: str = "Order Service", prefix: str = "") -> pd.DataFrame:
    """One row per run (its variant, sizes and Payment's state), the lesson's measures as columns."""
    frame = pd.DataFrame({f"{prefix}{run_label(r)}, {payment_state(r)}": summary_row(r) for r in runs}).T
    frame.index.name = index
    return frame


def requests_table(r: OrdersRun) -> pd.DataFrame:
    """Every request: its status and outcome, when it was sent, how long it waited and ran, in ms."""
    rows = [{"stream": x.kind, "#": x.index, "status": x.status, "outcome": x.outcome,
             "sent (ms)": ms(x.start), "waited (ms)": ms(x.waited or 0.0), "ran (ms)": ms(x.ran or 0.0),
             "answered (ms)": ms(x.end)} for x in r.requests]  # fmt: skip
    return pd.DataFrame(rows).set_index(["stream", "#"])


def checks_table(r: OrdersRun) -> pd.DataFrame:
    """check.js's four checks against one run: passed or not, and what was measured."""
    return pd.DataFrame(checks.check_orders(r)).set_index("check")


def limit_rule() -> str:
    """The line of the installed aiohttp that decides whether its pool has a free connection."""
    from aiohttp.connector import BaseConnector

    source = inspect.getsource(BaseConnector._available_connections)
    return next(line.strip() for line in source.splitlines() if "self._limit -" in line)


def headroom_table(loads: Sequence[float] = (2, 5, 20, 100), blocking: float = 0.01) -> pd.DataFrame:
    """For each load in flight, the smallest limit that refuses at most ``blocking`` of calls (Erlang-B,
    no waiting places: :func:`bulkhead_lab.sizing.smallest_pool`) beside the 2.5x rule of thumb."""
    rows = {}
    for load in loads:
        limit = sizing.smallest_pool(load, blocking)
        rows[f"{load:g}"] = {f"limit for {blocking:.0%} refused": limit,
                             "times the load": f"{limit / load:.2f}x",
                             "2.5x rule": math.ceil(2.5 * load)}  # fmt: skip
    return pd.DataFrame(rows).T.rename_axis("calls in flight (Little's Law)")
