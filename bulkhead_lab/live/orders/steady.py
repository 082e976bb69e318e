"""A steady stream of orders while Payment is healthy, then slow for a while, then healthy again.

Issue 13's live scenario: :func:`stream` sends ``rate`` orders a second, evenly spaced,
for ``healthy_for + slow_for + recover_for`` seconds to a running Order Service, and
switches Payment slow (``slow_latency``) after ``healthy_for`` seconds and healthy again
``slow_for`` seconds later. :func:`run_adaptive` starts an ``adaptive`` Order Service (or
:func:`run_stream`, any variant) with Payment and Inventory, streams once and stops them.

What it returns is an :class:`~.load.OrdersRun` on the stream's clock (0 = the first
order): ``run.limit_over_time()`` (the bulkhead's limit at each change),
``run.bulkhead_timeline`` (running, queued, refused and limit at every change),
``run.timelines["payment"]`` (Payment's own count of the calls it holds, at every change),
``run.slow_window`` (when Payment was switched slow and back) and every order's answer.

The defaults: 20 orders a second (lesson 004's Little's Law example), 2 s healthy, 6 s
slow at 1 s a call, 4 s healthy again. At 1 s a slow call, six slow round trips fit the
slowdown, so each limiter hears enough samples to settle; the lesson's 3 s works too with
a longer ``slow_for``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

import aiohttp

from bulkhead_lab.live.net.server import Progress, check_fd_budget, check_planned
from bulkhead_lab.live.orders.clients import (
    Client,
    RequestResult,
    admin_json,
    check_budget,
    check_policy,
    heal_payment,
    read_services,
)
from bulkhead_lab.live.orders.load import MAX_REQUESTS, MAX_SLOW_LATENCY, order_services, run_sockets
from bulkhead_lab.live.orders.results import OrdersRun
from bulkhead_lab.live.orders.service import (
    ADAPTIVE,
    CALL_TIMEOUT,
    FAST_LATENCY,
    OrderSettings,
)
from bulkhead_lab.retries.policy import JITTER_SEED, Budget, RetryPolicy
from bulkhead_lab.validation import check_real

__all__ = ["MAX_RATE", "MAX_PHASE", "planned_orders", "run_adaptive", "run_stream", "stream"]

MAX_RATE = 200.0  # orders a second
MAX_PHASE = 600.0  # seconds: the longest phase of a stream


def check_stream(
    rate: object, healthy_for: object, slow_for: object, recover_for: object, slow_latency: object
) -> tuple[float, float, float, float, float]:
    """The stream's values, each refused with one line if out of range."""
    values = (
        check_real("rate", rate, 0.0, MAX_RATE, low_open=True),
        check_real("healthy_for", healthy_for, 0.0, MAX_PHASE),
        check_real("slow_for", slow_for, 0.0, MAX_PHASE),
        check_real("recover_for", recover_for, 0.0, MAX_PHASE),
        check_real("slow_latency", slow_latency, 0.0, MAX_SLOW_LATENCY),
    )
    orders = planned_orders(values[0], sum(values[1:4]))
    if orders > MAX_REQUESTS:
        raise ValueError(
            f"rate x (healthy_for + slow_for + recover_for) must be at most {MAX_REQUESTS} orders "
            f"(got {values[0]:g} x {sum(values[1:4]):g} s = {orders})"
        )
    return values


def planned_orders(rate: float, seconds: float) -> int:
    """Orders a stream of ``rate`` a second sends in ``seconds`` (one at 0, then every 1/rate s)."""
    return max(1, int(rate * seconds + 1e-9))


async def stream(
    order_url: str,
    payment_url: str,
    inventory_url: str,
    *,
    rate: float = 20.0,
    healthy_for: float = 2.0,
    slow_for: float = 6.0,
    recover_for: float = 4.0,
    slow_latency: float = 1.0,
    on_progress: Progress | None = None,
    timeout: float = 120.0,
    retry: RetryPolicy | None = None,
    budget: Budget | None = None,
    seed: int = JITTER_SEED,
) -> OrdersRun:
    """Send ``rate`` orders a second while Payment is healthy, slow, then healthy; record every answer.

    Each service is reset first; Payment is switched back to normal at the end, whatever
    happened. ``retry``, ``budget`` and ``seed`` are :func:`~.load.drive`'s.
    """
    rate, healthy_for, slow_for, recover_for, slow_latency = check_stream(
        rate, healthy_for, slow_for, recover_for, slow_latency
    )
    retry, budget = check_policy(retry), check_budget(budget)
    total = planned_orders(rate, healthy_for + slow_for + recover_for)
    check_fd_budget(f"a stream of {total} orders", min(total, int(rate * (slow_latency + 1)) + 1) + 4)
    connector = aiohttp.TCPConnector(limit=0, force_close=True)
    async with aiohttp.ClientSession(
        connector=connector, timeout=aiohttp.ClientTimeout(total=timeout)
    ) as session:
        for url in (payment_url, inventory_url, order_url):
            await admin_json(session, "POST", url + "/admin/reset")
        tasks: list[asyncio.Task[RequestResult]] = []
        window = [0.0, 0.0]
        try:
            t0 = time.monotonic()
            client = Client(
                session, t0, retry=retry, budget=budget, seed=seed, total=total, on_progress=on_progress
            )
            switch = asyncio.create_task(
                _slowdown(session, payment_url, t0, healthy_for, slow_for, slow_latency, window)
            )
            try:
                for i in range(total):
                    await _sleep_until(t0 + i / rate)
                    tasks.append(
                        asyncio.create_task(client.send("order", i + 1, "POST", order_url + "/orders"))
                    )
                results = await asyncio.gather(*tasks)
                await switch
            except BaseException:
                for t in [*tasks, switch]:
                    t.cancel()
                await asyncio.gather(*tasks, switch, return_exceptions=True)
                raise
            duration = time.monotonic() - t0
            read = await read_services(session, order_url, payment_url, inventory_url, timeline=False)
        finally:
            await heal_payment(session, payment_url)
    return OrdersRun(
        variant=str(read.pools.get("variant", "?")),
        settings=None,
        slow=True,
        slow_latency=slow_latency,
        requests=list(results),
        payment=read.payment,
        inventory=read.inventory,
        bulkhead_busy=None,
        bulkhead_after=read.bulkhead,
        pools=read.pools,
        duration=duration,
        stock_delay=0.0,
        order_service=read.order_service,
        retry=retry,
        budget=budget,
        slow_window=(window[0], window[1]),
        t0=t0,
    )


async def _sleep_until(when: float) -> None:
    delay = when - time.monotonic()
    if delay > 0:
        await asyncio.sleep(delay)


async def _slowdown(
    session: aiohttp.ClientSession,
    payment_url: str,
    t0: float,
    healthy_for: float,
    slow_for: float,
    slow_latency: float,
    window: list[float],
) -> None:
    """Switch Payment slow at ``healthy_for`` and healthy ``slow_for`` later; note when, in ``window``."""
    await _sleep_until(t0 + healthy_for)
    await admin_json(session, "POST", f"{payment_url}/admin/slow?on=1&ms={round(slow_latency * 1000)}")
    window[0] = window[1] = time.monotonic() - t0
    await _sleep_until(t0 + healthy_for + slow_for)
    await admin_json(session, "POST", f"{payment_url}/admin/slow?on=0")
    window[1] = time.monotonic() - t0


async def run_stream(
    variant: str = ADAPTIVE,
    *,
    limit: int = 5,
    queue: int = 5,
    algorithm: str = "Gradient2",
    limiter_options: Mapping[str, Any] | None = None,
    rate: float = 20.0,
    healthy_for: float = 2.0,
    slow_for: float = 6.0,
    recover_for: float = 4.0,
    slow_latency: float = 1.0,
    fast_latency: float = FAST_LATENCY,
    payment_timeout: float = CALL_TIMEOUT,
    retry: RetryPolicy | None = None,
    budget: Budget | None = None,
    seed: int = JITTER_SEED,
    on_progress: Progress | None = None,
    allow_long: bool = False,
) -> OrdersRun:
    """Start Payment, Inventory and an Order Service of ``variant``, stream once (:func:`stream`), stop.

    Every value is checked before anything starts; a stream planned over two minutes needs
    ``allow_long=True``. Nothing stays listening after it returns, raises or is cancelled.
    """
    settings = OrderSettings(
        variant,
        limit=limit,
        queue=queue,
        payment_timeout=payment_timeout,
        algorithm=algorithm,
        limiter_options=tuple((limiter_options or {}).items()),
    )
    rate, healthy_for, slow_for, recover_for, slow_latency = check_stream(
        rate, healthy_for, slow_for, recover_for, slow_latency
    )
    check_real("fast_latency", fast_latency, 0.0, MAX_SLOW_LATENCY)
    retry, budget = check_policy(retry), check_budget(budget)
    seconds = healthy_for + slow_for + recover_for + min(slow_latency, payment_timeout)
    how = f"{healthy_for:g} s healthy + {slow_for:g} s slow + {recover_for:g} s healthy + the last slow call"
    check_planned(seconds, how, allow_long)
    total = planned_orders(rate, healthy_for + slow_for + recover_for)
    in_flight = min(total, int(rate * (slow_latency + 1)) + 1)
    check_fd_budget(f"a stream of {total} orders", run_sockets(settings, in_flight))
    async with order_services(settings, slow_latency, fast_latency) as (service, pay, inv):
        run = await stream(
            service.url,
            pay.url,
            inv.url,
            rate=rate,
            healthy_for=healthy_for,
            slow_for=slow_for,
            recover_for=recover_for,
            slow_latency=slow_latency,
            on_progress=on_progress,
            timeout=max(120.0, 4 * seconds),
            retry=retry,
            budget=budget,
            seed=seed,
        )
        service.record(run)
    return run


async def run_adaptive(algorithm: str = "Gradient2", **kwargs: Any) -> OrdersRun:
    """:func:`run_stream` of an ``adaptive`` Order Service whose limit ``algorithm`` moves
    (Gradient2, Vegas, AIMD or Envoy; settings :func:`~.adaptive_limit.live_spec`)."""
    return await run_stream(ADAPTIVE, algorithm=algorithm, **kwargs)
