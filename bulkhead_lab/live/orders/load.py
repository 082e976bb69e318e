"""Lesson 004's load from outside: ``load.js`` and the measuring half of ``check.js``.

An :class:`OrdersLoad` is what the load does: Payment slow (or not), ``orders`` orders at
once and ``stock_checks`` stock checks ``stock_delay`` seconds later, each sent once by
:class:`~.clients.Client`; every value is checked once, when it is made. :func:`drive` sends
one to a running Order Service and records every answer as a :class:`~.clients.RequestResult` in
an :class:`OrdersRun`, with what Payment, Inventory, Order Service and the bulkhead reported.
:func:`run_orders` starts Payment, Inventory and an Order Service of an :class:`~.settings.OrderSettings`
on free ports (:func:`order_services`), drives them once and stops them. A *wave* is the orders Payment
serves together in one stretch of its latency: :meth:`OrdersRun.served_waves` counts them.

Timelines, all in seconds on the drive's clock (0 = the orders are sent):
``run.timelines[name]`` is ``(t, open calls)`` for ``payment`` and ``inventory``;
``run.bulkhead_timeline`` is :class:`~.bulkhead.BulkheadPoint` ``(t, running, queued,
rejected, limit)`` at every change. From :func:`run_orders` they are exact (one clock);
from :func:`drive` alone the bulkhead's is read over HTTP and placed within the
millisecond or two of the Order Service's reset.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

import aiohttp

from bulkhead_lab.live.bulkhead import BulkheadPoint
from bulkhead_lab.live.heap import heap_frozen
from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.net.lag import LagWatch, watch_lag
from bulkhead_lab.live.net.server import Progress, all_or_cancel, cancel_all, check_fd_budget, check_planned
from bulkhead_lab.live.net.side_by_side import Experiment, Gate, SummedProgress
from bulkhead_lab.live.orders.clients import (
    Client,
    Readings,
    RequestResult,
    admin_json,
    bulkhead_reading,
    outside_client,
    read_services,
    slow_url,
)
from bulkhead_lab.live.orders.results import OrdersRun, Recorder, exact_timelines
from bulkhead_lab.live.orders.schedule import Payment, Schedule, Sent, keep_checked
from bulkhead_lab.live.orders.service import (
    FAST_LATENCY,
    KEEPALIVE_TIMEOUT,
    SLOW_LATENCY,
    OrderService,
    OrderSettings,
    Variant,
    inventory,
    payment,
)
from bulkhead_lab.validation import check_int, check_real

MAX_REQUESTS = 10_000  # of each kind in one drive
MAX_SLOW_LATENCY = 60.0  # seconds: the longest slowdown of Payment a run asks for
MAX_STOCK_DELAY = 60.0  # seconds between sending the orders and the stock checks
_POLL = 0.01  # seconds between two readings of /admin/bulkhead while waiting for it to be busy


@dataclass(frozen=True)
class OrdersLoad:
    """Lesson 004's load: Payment slow at ``slow_latency`` seconds a call (or healthy, ``slow=False``),
    ``orders`` orders at once, ``stock_checks`` stock checks ``stock_delay`` seconds later; every bad
    value is a one-line :class:`ValueError` naming it and its range.

    The defaults are the lesson's: 3 s, 20 orders, 10 stock checks 100 ms later. ``slow_latency``
    None leaves Payment's own slow latency (a service started elsewhere); :func:`run_orders` starts
    Payment at 3 s then. ``fast_latency`` is Payment's and Inventory's healthy latency in a run that
    starts them.
    """

    slow: bool = True
    orders: int = 20
    stock_checks: int = 10
    stock_delay: float = 0.1
    slow_latency: float | None = None
    fast_latency: float = FAST_LATENCY

    def __post_init__(self) -> None:
        if not isinstance(self.slow, bool):
            raise ValueError(f"slow must be True or False (got {self.slow!r})")
        keep_checked(self, "orders", check_int("orders", self.orders, 0, MAX_REQUESTS))
        keep_checked(self, "stock_checks", check_int("stock_checks", self.stock_checks, 0, MAX_REQUESTS))
        keep_checked(self, "stock_delay", check_real("stock_delay", self.stock_delay, 0.0, MAX_STOCK_DELAY))
        if self.slow_latency is not None:
            keep_checked(
                self, "slow_latency", check_real("slow_latency", self.slow_latency, 0.0, MAX_SLOW_LATENCY)
            )
        keep_checked(
            self, "fast_latency", check_real("fast_latency", self.fast_latency, 0.0, MAX_SLOW_LATENCY)
        )

    @property
    def requests(self) -> int:
        """Orders and stock checks: the requests the client sends (retries aside)."""
        return self.orders + self.stock_checks

    @property
    def slowdown(self) -> float:
        """Payment's latency when slow: ``slow_latency``, or the lesson's 3 s."""
        return SLOW_LATENCY if self.slow_latency is None else self.slow_latency

    @property
    def latency(self) -> float:
        """Payment's latency in this run: the slowdown, or its healthy latency."""
        return self.slowdown if self.slow else self.fast_latency

    # -- as a schedule (:class:`Schedule`): a burst ---------------------------------------------
    @property
    def what(self) -> str:
        return f"orders + stock_checks = {self.requests}"

    @property
    def in_flight(self) -> int:
        return self.requests

    def started(self) -> OrdersLoad:
        """This load in a run that starts Payment: at the lesson's slowdown unless it names one."""
        return self if self.slow_latency is not None else replace(self, slow_latency=SLOW_LATENCY)

    def client(self, session: aiohttp.ClientSession, t0: float, on_progress: Progress | None) -> Client:
        return Client(session, t0, self.requests, on_progress)

    def planned(self, settings: OrderSettings) -> tuple[float, str]:
        seconds, how = planned_seconds(settings, self.orders, self.latency)
        return self.stock_delay + seconds, how

    def timeout(self, seconds: float) -> float:
        return max(120.0, 4 * (self.orders + 1) * self.slowdown + seconds)

    async def prepare(self, session: aiohttp.ClientSession, payment_url: str) -> None:
        """Payment slow (at ``slow_latency`` when set) before the orders are sent."""
        if self.slow:
            await admin_json(session, "POST", slow_url(payment_url, self.slow_latency))

    async def send(
        self, client: Client, session: aiohttp.ClientSession, urls: tuple[str, str], timeout: float
    ) -> Sent:
        """The orders at once, the stock checks ``stock_delay`` later; the bulkhead once it is busy, and
        every answer. Every request still open is cancelled if the drive fails or is cancelled."""
        order_url = urls[0]
        tasks: list[asyncio.Task[RequestResult]] = []
        try:
            tasks += [
                asyncio.create_task(client.send("order", i + 1, "POST", order_url + "/orders"))
                for i in range(self.orders)
            ]
            await asyncio.sleep(self.stock_delay)
            tasks += [
                asyncio.create_task(client.send("stock", i + 1, "GET", order_url + "/stock"))
                for i in range(self.stock_checks)
            ]
            busy = await _bulkhead_when_busy(session, order_url, tasks[: self.orders], timeout)
        except BaseException:
            await cancel_all(tasks)
            raise
        return Sent(await all_or_cancel(tasks), busy)


def orders_setup(variant: Variant = "limited", **values: Any) -> tuple[OrderSettings, OrdersLoad]:
    """The Order Service's settings and the load, from keywords in either's names (a cell's short
    form: ``orders_setup("shared", keepalive=True, slow=False)``); an unknown name is one line."""
    service = {f.name for f in fields(OrderSettings)}
    load = {f.name for f in fields(OrdersLoad)}
    for name in values:
        if name not in service | load:
            raise ValueError(
                f"{name} is not a setting of a run: it takes {', '.join(sorted(service - {'variant'}))} "
                f"(the Order Service's) and {', '.join(sorted(load))} (the load's)"
            )
    return (
        OrderSettings(variant, **{k: v for k, v in values.items() if k in service}),
        OrdersLoad(**{k: v for k, v in values.items() if k in load}),
    )


async def drive(
    order_url: str,
    payment_url: str,
    inventory_url: str,
    load: Schedule | None = None,
    *,
    on_progress: Progress | None = None,
    timeout: float = 120.0,
) -> OrdersRun:
    """Send ``load`` (a :class:`Schedule`: lesson 004's burst by default) to running services from
    outside; every answer recorded.

    Each service is reset first; a burst switches Payment slow (at ``load.slow_latency`` when set)
    before its orders, a steady load while it runs; Payment is switched back to normal at the end,
    whatever happened. ``timeout``: seconds the whole drive may take.
    """
    load = load or OrdersLoad()
    check_fd_budget(load.what, load.in_flight + 4)  # this side's ends
    async with outside_client(order_url, payment_url, inventory_url, timeout) as session:
        reset_at = time.monotonic()  # Order Service's clock starts within this reset's round trip
        await load.prepare(session, payment_url)
        t0 = time.monotonic()
        client = load.client(session, t0, on_progress)
        async with watch_lag() as lag:  # a starved machine, if a fact comes out NO (net.lag)
            sent = await load.send(client, session, (order_url, payment_url), timeout)
        duration = time.monotonic() - t0
        read = await read_services(session, order_url, payment_url, inventory_url, timeline=True)
    return _drive_run(load, read, sent, duration, t0, shift=reset_at - t0, lag=lag)


def _drive_run(
    load: Schedule, read: Readings, sent: Sent, duration: float, t0: float, *, shift: float, lag: LagWatch
) -> OrdersRun:
    """The drive's :class:`OrdersRun`; the bulkhead's timeline moved by ``shift`` onto the drive's clock."""
    after = read.bulkhead
    timeline = []
    if after is not None:
        timeline = [BulkheadPoint(max(0.0, p[0] + shift), *p[1:]) for p in after.pop("timeline", [])]
        after.pop("truncated", None)
    return OrdersRun(
        variant=read.pools.variant,
        settings=None,
        slow=load.slow,
        slow_latency=load.slow_latency,
        requests=sent.results,
        payment=read.payment,
        inventory=read.inventory,
        bulkhead_busy=sent.busy,
        bulkhead_after=after,
        pools=read.pools,
        duration=duration,
        stock_delay=load.stock_delay,
        bulkhead_timeline=timeline,
        order_service=read.order_service,
        load=load,
        slow_window=sent.slow_window,
        t0=t0,
        lag=lag,
    )


async def _bulkhead_when_busy(
    session: aiohttp.ClientSession,
    order_url: str,
    orders: list[asyncio.Task[RequestResult]],
    timeout: float,
) -> dict[str, int] | None:
    """``/admin/bulkhead`` once it is seen busy, polled with a deadline (not after a guessed pause).

    Busy means every running place is taken and every order has reached the bulkhead
    (running, waiting, refused or already answered), which is the moment lesson 004
    reads "5 running, 0 free waiting places". If every order is answered first (a
    healthy Payment), or the deadline passes, the last reading is returned.
    """
    deadline = time.monotonic() + timeout
    while True:
        stats = await bulkhead_reading(session, order_url)
        if stats is None:
            return None  # a variant without a bulkhead
        answered = [t.result() for t in orders if t.done()]
        if len(answered) == len(orders) or time.monotonic() >= deadline:
            return _counters(stats)
        reached = stats["running"] + stats["queued"] + stats["rejected"]
        reached += sum(r.outcome != "refused" for r in answered)  # refusals are in "rejected" already
        if stats["executionSlots"] == 0 and reached >= len(orders):
            return _counters(stats)
        await asyncio.sleep(_POLL)


_COUNTERS = ("running", "queued", "executionSlots", "queueSlots", "rejected", "limit")


def _counters(stats: dict[str, Any]) -> dict[str, int]:
    """The bulkhead's counters and limit (an adaptive one's extra readings left out)."""
    return {k: stats[k] for k in _COUNTERS if k in stats}


def planned_seconds(settings: OrderSettings, orders: int, latency: float) -> tuple[float, str]:
    """How long Payment needs for ``orders`` at ``latency`` under ``settings``, and the sum in words.

    ``ceil(orders served / places) x latency``: the pool (or the bulkhead's running places)
    serves its orders in waves; the bulkhead serves at most ``limit + queue`` of a burst and
    refuses the rest at once. A call never lasts past ``payment_timeout``. A shared pool
    under the node rule with keep-alive adds its idle sockets' 5 s.
    """
    call = min(latency, settings.payment_timeout)
    places = settings.places()
    served = min(orders, places + settings.queue) if settings.bounded else orders
    waves = math.ceil(served / places)
    unit = "places" if settings.bounded else "connections"
    seconds, how = waves * call, f"ceil({served} orders / {places} {unit}) x {call:g} s"
    if settings.pool_rule == "node" and settings.keepalive:
        seconds += KEEPALIVE_TIMEOUT
        how += f" + {KEEPALIVE_TIMEOUT:g} s of idle kept-alive sockets"
    return seconds, how


def run_sockets(settings: OrderSettings, requests: int) -> int:
    """File descriptors a run holds at once: both ends of every client request and of every pool
    connection (never more connections than requests), three listening sockets and the admin calls' few."""
    return 2 * requests + 2 * min(settings.slots(), requests) + 8


#: Seconds between the loads of runs side by side (``in_turn(..., LOAD_GAP, listen_first=True)``):
#: time for one run's burst of requests to be answered before the next one's.
LOAD_GAP = 0.5


def orders_experiments(
    alone: Mapping[str, tuple[OrderSettings, OrdersLoad]],
    together: Mapping[str, tuple[OrderSettings, OrdersLoad]],
    on_progress: Progress | None = None,
) -> list[Experiment[OrdersRun]]:
    """Runs for :func:`~bulkhead_lab.live.net.side_by_side.in_turn`, ``alone`` then ``together`` (by name,
    each an :func:`orders_setup`), planned at :func:`planned_seconds`; ``on_progress`` counts the
    answers of all of them. One alone goes to its end by itself (its wall-clock budgets keep their
    margin); the others wait at their :class:`~bulkhead_lab.live.net.side_by_side.Gate` once their
    services listen, so under ``listen_first`` their loads start apart."""
    setups = [(name in alone, *setup) for name, setup in {**alone, **together}.items()]
    summed = SummedProgress([load.requests for _, _, load in setups], on_progress)
    experiments = []
    for i, (by_itself, settings, load) in enumerate(setups):
        gate = None if by_itself else Gate()
        run = run_orders(
            settings, load, on_progress=summed.for_run(i), when_up=None if gate is None else gate.when_up
        )
        seconds = planned_seconds(settings, load.orders, load.latency)[0]
        experiments.append(Experiment(run, seconds, by_itself, gate=gate))
    return experiments


async def run_orders(
    settings: OrderSettings | None = None,
    load: Schedule | None = None,
    *,
    on_progress: Progress | None = None,
    allow_long: bool = False,
    when_up: Callable[[], Awaitable[object]] | None = None,
    pay: Payment | None = None,
) -> OrdersRun:
    """Start the services (:func:`order_services`: ``pay`` may be notebook 07's queued Payment), drive
    ``load`` once (:func:`drive`), stop them; the run with its in-process timelines.

    The defaults are the lesson's run: ``limited`` (5 running, 5 waiting), Payment slow at
    3 s, 20 orders at once and 10 stock checks 100 ms later. Nothing stays listening after
    it returns, raises or is cancelled. ``when_up``, if given, is awaited once the three services
    listen, before the load starts (so runs side by side start together).
    """
    settings, load = settings or OrderSettings(), (load or OrdersLoad()).started()
    async with order_services(settings, load, allow_long=allow_long, pay=pay) as (service, pay, inv):
        if when_up is not None:
            await when_up()
        run = await drive(
            service.url, pay.url, inv.url, load, on_progress=on_progress, timeout=service.timeout
        )
        service.record(run)
    return run


class RecordedService:
    """An Order Service, its dependencies' open-call recorders (for :meth:`record`) and the seconds a
    drive of its planned load may take."""

    def __init__(
        self, service: OrderService, recorders: dict[str, Recorder], ports: dict[str, int], timeout: float
    ) -> None:
        self.service, self.recorders, self.ports, self.timeout = service, recorders, ports, timeout
        self.url = service.url

    def record(self, run: OrdersRun) -> None:
        """Give ``run`` the in-process timelines (the dependencies' and the bulkhead's) on its own clock."""
        exact_timelines(run, self.service, self.recorders, self.ports)


@contextlib.asynccontextmanager
async def order_services(
    settings: OrderSettings, load: Schedule, *, allow_long: bool = False, pay: Payment | None = None
) -> AsyncIterator[tuple[RecordedService, Payment, Dependency]]:
    """``pay`` (or lesson 004's Payment at ``load``'s latencies, its open calls recorded, as Inventory's are),
    Inventory and an Order Service of ``settings`` on free ports; yields ``(order service, payment,
    inventory)``, closed on exit.

    ``load`` is checked first, before anything starts: one planned to take over two minutes
    (:func:`planned_seconds`) needs ``allow_long=True``; one that needs more sockets than ``ulimit -n``
    allows is one line saying how to raise it. A Payment call longer than ``payment_timeout`` is
    answered 504.
    """
    seconds, how = load.planned(settings)
    check_planned(seconds, how, allow_long)
    check_fd_budget(load.what, run_sockets(settings, load.in_flight))
    recorders = {"payment": Recorder(), "inventory": Recorder()}
    pay = pay or payment(
        slow_latency=load.slowdown, latency=load.fast_latency, on_change=recorders["payment"]
    )
    # Check.js's bounds (a refusal under 200 ms, a stock check under 300 ms) are read off this
    # run: a full collection over a notebook's kept runs must not stall the loop in the middle.
    with heap_frozen():
        async with (
            pay,
            inventory(latency=load.fast_latency, on_change=recorders["inventory"]) as inv,
            OrderService(settings, pay.url, inv.url) as service,
        ):
            ports = {"order": service.port, "payment": pay.port, "inventory": inv.port}
            yield RecordedService(service, recorders, ports, load.timeout(seconds)), pay, inv
