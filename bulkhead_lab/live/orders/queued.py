"""Lesson 004's Payment with a few workers and a queue, on 127.0.0.1 (notebook 07, section 5).

Lesson 004's Payment answers every call after its latency, however many are open: it never
queues. This one has ``workers``: each takes the oldest waiting call (FIFO), serves it for
``latency`` seconds (``slow_latency`` while switched slow) and answers. A call's handler only waits
for its answer: when its caller goes away (aiohttp cancels the handler) the call stays in the queue
and is served all the same, as by a server whose work, once queued, is not the connection's. That
work is *wasted*: Payment counts it itself. With ``drop_gone`` a worker drops a call whose caller has
gone instead of serving it (the deadline drop: the deadline has passed).

``GET /admin/stats`` answers :meth:`QueuedPayment.stats` (calls received, answered, wasted, dropped,
waiting now and at most, open now and at most); ``POST /admin/slow?on=1`` (or ``0``) switches the slow
latency on or off, and :attr:`~QueuedPayment.healed` keeps the counts when it was last switched off;
``POST /admin/reset`` starts it over, so the one driver (:func:`~.load.run_orders`) starts and drives it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import asdict, dataclass, fields

from aiohttp import web

from bulkhead_lab.live.net.server import LoopbackServer, Served, bad_request


@dataclass(frozen=True)
class PaymentCounts:
    """What Payment counted: calls received; of them answered to a caller still waiting, served for a
    caller who had gone (wasted), dropped unserved; and its queue now and at its longest."""

    calls: int
    answered: int
    wasted: int
    dropped: int
    waiting: int
    longest: int
    open: int = 0  # calls whose caller still waits for the answer, now
    peak: int = 0  # ... and at most at once


class QueuedPayment(Served):
    """Payment with ``workers`` and a FIFO queue; ``async with QueuedPayment(...) as pay``."""

    def __init__(
        self, workers: int = 2, latency: float = 0.05, slow_latency: float = 0.25, *, drop_gone: bool = False
    ) -> None:
        self.workers, self.latency, self.slow_latency = workers, latency, slow_latency
        self.drop_gone = bool(drop_gone)
        self.slow = False
        self._queue: deque[asyncio.Future[None]] = deque()  # each call's answer, done when served
        self._ready: asyncio.Event | None = None
        self._workers: list[asyncio.Task[None]] = []
        self.calls = self.answered = self.wasted = self.dropped = self.longest = self.open = self.peak = 0
        self.healed: PaymentCounts | None = None
        app = web.Application()
        app.router.add_post("/pay", self._pay)
        app.router.add_get("/admin/stats", self._stats)
        app.router.add_post("/admin/slow", self._slow)
        app.router.add_post("/admin/reset", self._reset)
        self.server = LoopbackServer(app, name="payment port")

    @property
    def waiting(self) -> int:
        return len(self._queue)

    def stats(self) -> PaymentCounts:
        """Every count as it stands, each under its own name."""
        return PaymentCounts(**{f.name: getattr(self, f.name) for f in fields(PaymentCounts)})

    async def start(self) -> None:
        self._ready = asyncio.Event()
        await self.server.start()
        self._workers = [asyncio.create_task(self._work()) for _ in range(self.workers)]

    async def stop(self) -> None:
        """Stop the workers, end every call still waiting, stop serving: nothing stays open."""
        for task in self._workers:
            task.cancel()
        await asyncio.gather(*self._workers, return_exceptions=True)
        for call in self._queue:
            call.cancel()
        self._queue.clear()
        await self.server.stop()

    async def _pay(self, request: web.Request) -> web.Response:
        assert self._ready is not None, "a call before start()"
        self.calls += 1
        answer = asyncio.get_running_loop().create_future()
        self._queue.append(answer)
        self.longest = max(self.longest, len(self._queue))
        self._ready.set()
        self.open += 1
        self.peak = max(self.peak, self.open)
        try:
            await answer  # cancelled (the call stays queued) when the caller goes away
        finally:
            self.open -= 1
        return web.json_response({"paid": True})

    async def _work(self) -> None:
        assert self._ready is not None
        while True:
            while not self._queue:
                self._ready.clear()
                await self._ready.wait()
            call = self._queue.popleft()
            if call.done() and self.drop_gone:
                self.dropped += 1  # its caller has gone: drop it unserved
                continue
            await asyncio.sleep(self.slow_latency if self.slow else self.latency)
            if call.done():
                self.wasted += 1  # served for a caller who had already gone
            else:
                call.set_result(None)
                self.answered += 1

    async def _stats(self, request: web.Request) -> web.Response:
        return web.json_response(asdict(self.stats()))

    async def _slow(self, request: web.Request) -> web.Response:
        on = request.query.get("on")
        if on not in ("0", "1"):
            return bad_request(f"on must be 1 or 0 (got {'missing' if on is None else repr(on)})")
        if self.slow and on == "0":
            self.healed = self.stats()
        self.slow = on == "1"
        return web.json_response({"slow": self.slow})

    async def _reset(self, request: web.Request) -> web.Response:
        """Healthy, every count back to 0 (a call still queued is served all the same)."""
        self.slow, self.healed = False, None
        self.calls = self.answered = self.wasted = self.dropped = self.longest = self.peak = 0
        return web.json_response({"reset": True})
