"""How notebook 04 reads a live run: the runs themselves, one time axis, each request's wait and run.

:func:`run` measures one :class:`~bulkhead_lab.live.orders.load.OrdersRun` on real sockets.
:func:`time_axis` is the axis every variant's figure shares at the same sizes and latency;
:func:`bars` splits each request into its wait and its run; :func:`counters` is what the
lower plot draws over time (the bulkhead's own counters where there is a bulkhead). The
labels and spans here are shared by :mod:`.views`, :mod:`.facts` and :mod:`.claims`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from bulkhead_lab.course.fail_fast_queue.views import lesson004
from bulkhead_lab.course.ui.runner import run_sync
from bulkhead_lab.live.net.server import Progress
from bulkhead_lab.live.orders.clients import Kind, Outcome
from bulkhead_lab.live.orders.load import OrdersLoad, OrdersRun, orders_setup, planned_seconds, run_orders
from bulkhead_lab.live.orders.service import VARIANTS, OrderSettings, Variant

# Variants in the learner's words (the panel's toggle, the tables' rows).
VARIANT_WORDS: dict[Variant, str] = {
    "shared": "one shared pool",
    "separate": "a pool per dependency",
    "limited": "pools + bulkhead (limit, waiting places)",
}
RULE_WORDS = {"aiohttp": "aiohttp's pool", "node": "Node-like pool"}


def run(variant: Variant = "limited", *, on_progress: Progress | None = None, **values: Any) -> OrdersRun:
    """One live run from a cell's short form, e.g. ``run("shared", keepalive=True, slow=False)``:
    ``values`` are the Order Service's settings and the load's, by name
    (:class:`~bulkhead_lab.live.orders.service.OrderSettings`,
    :class:`~bulkhead_lab.live.orders.load.OrdersLoad`), each checked once (:func:`measure`).
    """
    settings, load = orders_setup(variant, **values)
    return measure(settings, load, on_progress=on_progress)


def measure(
    settings: OrderSettings, load: OrdersLoad | None = None, *, on_progress: Progress | None = None
) -> OrdersRun:
    """:func:`~bulkhead_lab.live.orders.load.run_orders` from plain code: start, drive once, stop.

    The load's defaults are the lesson's: Payment slow at 3 s, 20 orders at once, 10 stock
    checks 100 ms later. An interrupted cell (Ctrl-C, the kernel's stop button) cancels the
    live run and waits until its services are closed before the interrupt goes on
    (``run_sync`` does that), so nothing is left listening.
    """
    return run_sync(run_orders(settings, load, on_progress=on_progress))


def waves_needed(orders: int, limit: int) -> int:
    """How many waves of Payment's latency ``orders`` calls need through ``limit`` connections."""
    return math.ceil(orders / limit)


# --- one time axis --------------------------------------------------------------------------

_STEPS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def nice_end(seconds: float) -> float:
    """An axis end a little past ``seconds``: the least of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k."""
    value = max(seconds * 1.04, 0.1)
    power = 10 ** math.floor(math.log10(value))
    return round(next(m * power for m in _STEPS if m * power >= value - 1e-12), 6)


def time_axis(
    slow_latency: float = lesson004.SLOW_S,
    pool: int = lesson004.SHARED_POOL,
    limit: int = lesson004.POOL_EACH,
    queue: int = lesson004.QUEUE,
    orders: int = lesson004.ORDERS,
    stock_delay: float = lesson004.STOCK_DELAY_MS / 1000,
) -> float:
    """The end of the time axis (s) every variant's figure shares at these sizes and latency.

    The longest of the three variants' planned runs (``ceil(orders served / places) x
    latency``), so switching the variant never rescales the axis and runs compare by eye.
    At the lesson's sizes and 3 s: a pool per dependency needs four waves, 12 s.
    """
    longest = max(
        planned_seconds(OrderSettings(v, pool, limit, queue), orders, slow_latency)[0] for v in VARIANTS
    )
    return nice_end(longest + stock_delay)


LESSON_AXIS = time_axis()  # the lesson's three variants at Payment slow = 3 s: 0 - 15 s


# --- what the figures draw ------------------------------------------------------------------


@dataclass(frozen=True)
class Bar:
    """One request on the figure: where it waited (queue, pool) and where its call ran, in seconds."""

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
    kinds: tuple[Kind, ...] = ("order", "stock")
    for kind in kinds:
        for x in sorted(r.of(kind), key=lambda x: x.index):
            started = x.end if x.outcome == "refused" else min(max(x.run_start, x.start), x.end)
            out.append(Bar(kind, x.index, x.outcome, x.start, started, x.end))
    return out


Step = list[tuple[float, int]]


def _steps(intervals: Iterable[tuple[float, float]]) -> Step:
    """How many intervals are open at each change, as ``(t, n)`` from ``(0, 0)``."""
    changes: dict[float, int] = {}
    for a, b in intervals:
        if b > a:
            changes[a] = changes.get(a, 0) + 1
            changes[b] = changes.get(b, 0) - 1
    points, n = [(0.0, 0)], 0
    for t in sorted(changes):
        n += changes[t]
        points.append((t, n))
    return points


SETUP_WAIT = 0.010  # s: a shorter wait is a connection being set up, not a queue


def waiting(r: OrdersRun, kind: Kind) -> Step:
    """Requests of ``kind`` waiting at Order Service for a connection (the bulkhead's queue, the pool's
    wait), from each answer's ``waited_ms``; refusals never wait, and a wait under 10 ms is a
    connection being set up, not a queue."""
    return _steps(
        (b.sent, b.started)
        for b in bars(r)
        if b.kind == kind and b.outcome != "refused" and b.waited >= SETUP_WAIT
    )


@dataclass(frozen=True)
class Counters:
    """What the lower plot draws, over time: calls running and waiting, refusals so far, the limit."""

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
    s = r.settings
    limit = 0 if s is None else (s.pool if s.variant == "shared" else s.limit)
    if r.bulkhead_timeline:
        points = r.bulkhead_timeline
        return Counters(
            payment_running=[(p.t, p.running) for p in points],
            orders_waiting=[(p.t, p.queued) for p in points],
            inventory_running=r.timelines.get("inventory", [(0.0, 0)]),
            stock_waiting=waiting(r, "stock"),
            refused=[(p.t, p.rejected) for p in points],
            limit=limit,
            source="the bulkhead's own counters (/admin/bulkhead?timeline=1)",
        )
    return Counters(
        payment_running=r.timelines.get("payment", [(0.0, 0)]),
        orders_waiting=waiting(r, "order"),
        inventory_running=r.timelines.get("inventory", [(0.0, 0)]),
        stock_waiting=waiting(r, "stock"),
        refused=[(0.0, 0)],
        limit=limit,
        source="Payment's own count and each answer's waited_ms",
    )


def wave_ends(r: OrdersRun) -> list[float]:
    """Where each wave of Payment's slow latency ends: 1, 2, 3 ... x latency (a slow run only)."""
    if not r.slow or not r.slow_latency:
        return []
    served = r.served_waves()
    return [k * r.slow_latency for k in range(1, (max(served) if served else 0) + 1)]


# --- tables ---------------------------------------------------------------------------------


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


def run_label(r: OrdersRun) -> str:
    """A run's variant and sizes, e.g. ``limited (pools 5+5, bulkhead 5+5)``."""
    s = r.settings
    if s is None:
        return r.variant
    size = f"pool {s.pool}" if s.variant == "shared" else f"pools {s.limit}+{s.limit}"
    if s.variant == "limited":
        size += f", bulkhead {s.limit}+{s.queue}"
    if s.variant == "shared" and s.pool_rule == "node":
        size += ", Node-like"
    if s.keepalive:
        size += ", keep-alive"
    return f"{s.variant} ({size})"


def payment_state(r: OrdersRun) -> str:
    if not r.slow:
        return "Payment healthy"
    return f"Payment slow ({r.slow_latency:g} s)" if r.slow_latency else "Payment slow"
