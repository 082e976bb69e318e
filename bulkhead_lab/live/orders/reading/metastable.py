"""Notebook 07's live storm (:mod:`~bulkhead_lab.live.orders.metastable`), read: :class:`LiveStorm`."""

from __future__ import annotations

from dataclasses import dataclass

from bulkhead_lab.live.orders.metastable import StormLoad
from bulkhead_lab.live.orders.queued import PaymentCounts, QueuedPayment
from bulkhead_lab.live.orders.results import OrdersRun

BIN = 0.5  # seconds per goodput bin


@dataclass(frozen=True)
class LiveStorm:
    """One run: the orders answered in time per :data:`BIN` seconds; orders that gave up (or were cut off
    at the end); Payment's own counters at the end, and the calls it served for no one after it healed."""

    load: StormLoad
    fix: bool
    goodput: tuple[int, ...]
    gave_up: int
    payment: PaymentCounts
    wasted_after_heal: int
    duration: float

    @classmethod
    def read(cls, load: StormLoad, run: OrdersRun, pay: QueuedPayment) -> LiveStorm:
        """``run`` (one of :func:`~bulkhead_lab.live.orders.metastable.run_storms`) binned, with what ``pay``
        counted; the fix is the run whose Payment dropped calls whose caller had gone."""
        goodput = [0] * (int(load.seconds / BIN) + 1)
        for order in run.orders:
            if order.outcome == "served":
                goodput[min(int(order.end / BIN), len(goodput) - 1)] += 1
        counts = pay.stats()
        gave_up = len(run.orders) - run.served
        wasted_after_heal = counts.wasted - (pay.healed or counts).wasted
        return cls(load, pay.drop_gone, tuple(goodput), gave_up, counts, wasted_after_heal, run.duration)

    def rate(self, start: float, stop: float) -> float:
        """Orders answered a second over ``start`` .. ``stop`` seconds."""
        first, last = int(start / BIN), int(stop / BIN)
        return sum(self.goodput[first:last]) / (stop - start)

    def back_after(self, share: float = 0.5) -> float | None:
        """Seconds from the heal until a bin answers ``share`` of the load (None: not in the run)."""
        want, first = share * self.load.rate * BIN, int(self.load.healed / BIN)
        last = int(self.load.seconds / BIN)
        back = next((b for b in range(first, last) if self.goodput[b] >= want), None)
        return None if back is None else (back - first) * BIN
