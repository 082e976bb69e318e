"""A steady load of orders while Payment is healthy, then slow for a while, then healthy again.

Issue 13's live scenario. A :class:`SteadyLoad` is ``rate`` orders a second, evenly spaced,
for ``healthy_for + slow_for + recover_for`` seconds, Payment switched slow (``slow_latency``)
after ``healthy_for`` seconds and healthy again ``slow_for`` seconds later; every value is
checked once, when it is made. It is a schedule for the one driver: :func:`~.load.run_orders` sends
one to any variant (notebook 05: an :class:`~.adaptive.AdaptiveSettings`, whose limit an algorithm
moves; notebook 07's storm extends it).

What it returns is an :class:`~.load.OrdersRun` on the load's clock (0 = the first
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
from dataclasses import dataclass
from typing import ClassVar

import aiohttp

from bulkhead_lab.live.net.server import Progress, all_or_cancel, cancel_all
from bulkhead_lab.live.orders.clients import Client, RequestResult, admin_json, slow_url
from bulkhead_lab.live.orders.load import MAX_REQUESTS, MAX_SLOW_LATENCY
from bulkhead_lab.live.orders.schedule import Sent, keep_checked
from bulkhead_lab.live.orders.service import FAST_LATENCY, OrderSettings
from bulkhead_lab.validation import check_real

MAX_RATE = 200.0  # orders a second
MAX_PHASE = 600.0  # seconds: the longest phase of a steady load


@dataclass(frozen=True)
class SteadyLoad:
    """``rate`` orders a second: Payment healthy ``healthy_for`` s, slow (``slow_latency`` s a call)
    ``slow_for`` s, healthy again ``recover_for`` s; every bad value is a one-line :class:`ValueError`.

    ``fast_latency`` is Payment's and Inventory's healthy latency in a run that starts them; each order
    is sent once, as lesson 004's are (notebook 07's storm sends it with callers that give up and
    retry, :class:`~.metastable.StormLoad`).
    """

    rate: float = 20.0
    healthy_for: float = 2.0
    slow_for: float = 6.0
    recover_for: float = 4.0
    slow_latency: float = 1.0
    fast_latency: float = FAST_LATENCY

    def __post_init__(self) -> None:
        keep_checked(self, "rate", check_real("rate", self.rate, 0.0, MAX_RATE, low_open=True))
        for name in ("healthy_for", "slow_for", "recover_for"):
            keep_checked(self, name, check_real(name, getattr(self, name), 0.0, MAX_PHASE))
        keep_checked(
            self, "slow_latency", check_real("slow_latency", self.slow_latency, 0.0, MAX_SLOW_LATENCY)
        )
        keep_checked(
            self, "fast_latency", check_real("fast_latency", self.fast_latency, 0.0, MAX_SLOW_LATENCY)
        )
        if self.orders > MAX_REQUESTS:
            raise ValueError(
                f"rate x (healthy_for + slow_for + recover_for) must be at most {MAX_REQUESTS} orders "
                f"(got {self.rate:g} x {self.seconds:g} s = {self.orders})"
            )

    @property
    def seconds(self) -> float:
        """How long orders are sent: the three phases."""
        return self.healthy_for + self.slow_for + self.recover_for

    @property
    def orders(self) -> int:
        """Orders it sends (one at 0, then every 1/rate s)."""
        return planned_orders(self.rate, self.seconds)

    @property
    def in_flight(self) -> int:
        """The most orders open at once: those sent during one slow call and a second more."""
        return min(self.orders, int(self.rate * (self.slow_latency + 1)) + 1)

    # -- as a schedule (:class:`~.load.Schedule`): a steady rate --------------------------------
    slow: ClassVar[bool] = True  # Payment is slow for a while
    stock_delay: ClassVar[float] = 0.0  # no stock checks

    @property
    def requests(self) -> int:
        return self.orders

    @property
    def slowdown(self) -> float:
        return self.slow_latency

    @property
    def what(self) -> str:
        return f"a steady load of {self.orders} orders"

    def started(self) -> SteadyLoad:
        return self

    def client(self, session: aiohttp.ClientSession, t0: float, on_progress: Progress | None) -> Client:
        return Client(session, t0, self.requests, on_progress)

    def planned(self, settings: OrderSettings) -> tuple[float, str]:
        how = (
            f"{self.healthy_for:g} s healthy + {self.slow_for:g} s slow + {self.recover_for:g} s healthy "
            "+ the last slow call"
        )
        return self.seconds + min(self.slow_latency, settings.payment_timeout), how

    def timeout(self, seconds: float) -> float:
        return max(120.0, 4 * seconds)

    async def prepare(self, session: aiohttp.ClientSession, payment_url: str) -> None:
        """Nothing: Payment is switched slow while the orders go."""

    async def send(
        self, client: Client, session: aiohttp.ClientSession, urls: tuple[str, str], timeout: float
    ) -> Sent:
        """One order every ``1 / rate`` s, Payment switched slow at ``healthy_for`` and healthy
        ``slow_for`` later; every answer, and when Payment was slow."""
        window = [0.0, 0.0]
        switch = asyncio.create_task(_slowdown(session, urls[1], client.t0, self, window))
        results = await _steadily(client, urls[0] + "/orders", self, client.t0, switch)
        return Sent(results, None, (window[0], window[1]))


def planned_orders(rate: float, seconds: float) -> int:
    """Orders a load of ``rate`` a second sends in ``seconds`` (one at 0, then every 1/rate s)."""
    return max(1, int(rate * seconds + 1e-9))


async def _steadily(
    client: Client, url: str, load: SteadyLoad, t0: float, switch: asyncio.Task[None]
) -> list[RequestResult]:
    """One order every ``1 / rate`` s from ``t0``; every answer, once Payment's ``switch`` is done too.
    Every order still open, and the switch, are cancelled if the load fails or is cancelled."""
    tasks: list[asyncio.Task[RequestResult]] = []
    try:
        for i in range(load.orders):
            await _sleep_until(t0 + i / load.rate)
            tasks.append(asyncio.create_task(client.send("order", i + 1, "POST", url)))
        results = await all_or_cancel(tasks)
        await switch
    except BaseException:
        await cancel_all([*tasks, switch])
        raise
    return results


async def _sleep_until(when: float) -> None:
    delay = when - time.monotonic()
    if delay > 0:
        await asyncio.sleep(delay)


async def _slowdown(
    session: aiohttp.ClientSession, payment_url: str, t0: float, load: SteadyLoad, window: list[float]
) -> None:
    """Switch Payment slow at ``healthy_for`` and healthy ``slow_for`` later; note when, in ``window``."""
    await _sleep_until(t0 + load.healthy_for)
    await admin_json(session, "POST", slow_url(payment_url, load.slow_latency))
    window[0] = window[1] = time.monotonic() - t0
    await _sleep_until(t0 + load.healthy_for + load.slow_for)
    await admin_json(session, "POST", f"{payment_url}/admin/slow?on=0")
    window[1] = time.monotonic() - t0
