"""What notebook 04 shows of a live run: the runs themselves (made from a cell), and their tables.

Every number is read from an :class:`~bulkhead_lab.live.orders.load.OrdersRun` that :func:`run`
measured on real sockets in this kernel; its facts, label and time axis are read on the live side
(:mod:`bulkhead_lab.live.orders.reading`). The tables hold timings: the notebook shows them under
``# NBVAL_IGNORE_OUTPUT``.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from bulkhead_lab import sizing
from bulkhead_lab.course.ui.runner import run_sync
from bulkhead_lab.live.net.server import Progress, gather_all
from bulkhead_lab.live.orders import checks
from bulkhead_lab.live.orders.load import OrdersLoad, OrdersRun, orders_setup, run_orders
from bulkhead_lab.live.orders.reading import payment_state, run_label
from bulkhead_lab.live.orders.service import OrderSettings, Variant

VARIANT_WORDS: dict[Variant, str] = {  # the panel's buttons, the figures' titles
    "shared": "one shared pool",
    "separate": "a pool per dependency",
    "limited": "pools + bulkhead (limit, waiting places)",
}
RULE_WORDS = {"aiohttp": "aiohttp's pool", "node": "Node-like pool"}
LOAD_GAP = 0.5  # s between the loads of runs side by side: time for one burst to be answered


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


# --- spans and tables ------------------------------------------------------------------------


def ms(seconds: float) -> int:
    return round(seconds * 1000)


def span(values: Sequence[float]) -> str:
    """``27 - 29 ms``, the least and the most of ``values`` (s), in ms (``-``: none)."""
    if not values:
        return "-"
    lo, hi = ms(min(values)), ms(max(values))
    return f"{lo} ms" if lo == hi else f"{lo} - {hi} ms"


def summary_row(r: OrdersRun) -> dict[str, object]:
    """One run as the lesson reports it: stock checks, orders served and refused, peaks."""
    rejected = (r.bulkhead_after or {}).get("rejected")
    return {
        "stock checks": span([x.latency for x in r.stock_checks]),
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
