"""What the one driver of a live run (:func:`~.load.drive`) asks of a load:
a :class:`Schedule`, and what sending it gave (:class:`Sent`); and of a :class:`Payment` it starts.

Lesson 004's burst (:class:`~.load.OrdersLoad`) is a schedule; later notebooks add theirs (a steady
rate, retrying callers, callers that give up) by extending it or :class:`Schedule`.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import NamedTuple, Protocol

import aiohttp

from bulkhead_lab.live.net.server import Progress
from bulkhead_lab.live.orders.clients import Client, RequestResult
from bulkhead_lab.live.orders.settings import OrderSettings


class Sent(NamedTuple):
    """What a schedule sent: every answer, the bulkhead's counters once busy (a burst), and when Payment
    was slow (a schedule that switches it mid-run)."""

    results: list[RequestResult]
    busy: dict[str, int] | None = None
    slow_window: tuple[float, float] | None = None


class Schedule(Protocol):
    """A load the one driver (:func:`~.load.drive`) sends, and who sends it
    (:meth:`client`): :class:`~.load.OrdersLoad` is a burst, Payment slow from the start."""

    @property
    def slow(self) -> bool: ...

    @property
    def slow_latency(self) -> float | None: ...

    @property
    def fast_latency(self) -> float: ...

    @property
    def stock_delay(self) -> float: ...

    @property
    def requests(self) -> int: ...  # the requests the client sends, retries aside

    @property
    def slowdown(self) -> float: ...  # Payment's slow latency in a run that starts it

    @property
    def what(self) -> str: ...  # the load in words, for a refused socket budget

    @property
    def in_flight(self) -> int: ...  # the most requests open at once

    def started(self) -> Schedule: ...  # the load in a run that starts Payment

    def client(self, session: aiohttp.ClientSession, t0: float, on_progress: Progress | None) -> Client: ...

    def planned(self, settings: OrderSettings) -> tuple[float, str]: ...  # seconds, and the sum in words

    def timeout(self, seconds: float) -> float: ...  # seconds the drive may take, planned ``seconds``

    async def prepare(self, session: aiohttp.ClientSession, payment_url: str) -> None: ...  # before t0

    async def send(
        self, client: Client, session: aiohttp.ClientSession, urls: tuple[str, str], timeout: float
    ) -> Sent: ...  # urls: the Order Service's and Payment's


class Payment(AbstractAsyncContextManager[object], Protocol):
    """A Payment :func:`~.load.order_services` starts on a free port: lesson 004's, or one a later notebook
    brings in its place (07's queued Payment); ``async with`` starts and stops it."""

    @property
    def url(self) -> str: ...

    @property
    def port(self) -> int: ...


def keep_checked(load: object, name: str, value: object) -> None:
    """Set a frozen load's field to its checked value, once, in its ``__post_init__``."""
    object.__setattr__(load, name, value)
