"""What lesson 004 concludes from a run: check.js's four checks, and the keep-alive experiment's facts.

Both read an :class:`~.load.OrdersRun` that has already happened; nothing here touches
a socket. :func:`check_orders` is ``check.js``: stock checks fast, Payment's peak
bounded, some orders refused, refusals fast. :func:`keepalive_facts` reads what a
shared pool with keep-alive did while Payment was healthy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .load import OrdersRun
from .order_service import KEEPALIVE_TIMEOUT

# --- check.js's four checks -----------------------------------------------------------------


class Check(NamedTuple):
    """One of check.js's checks: what it checks, whether it passed, and the measured value."""

    check: str
    passed: bool
    measured: str


def check_orders(
    run: OrdersRun, *, stock_under: float = 0.3, peak_at_most: int = 5, refusal_under: float = 0.2
) -> list[Check]:
    """check.js against one run: stock checks fast, Payment's peak bounded, some orders refused,
    refusals fast. (With no refusals the last check has nothing to fail, as in check.js.)"""
    refusals = [r.latency for r in run.orders if r.outcome == "refused"]
    slowest_stock = run.slowest("stock")
    return [
        Check(
            f"stock checks stay under {stock_under * 1000:.0f} ms",
            bool(run.stock_checks) and slowest_stock < stock_under,
            f"slowest {slowest_stock * 1000:.0f} ms",
        ),
        Check(
            f"Payment never handles more than {peak_at_most} calls at once",
            "peak" in run.payment and run.payment["peak"] <= peak_at_most,
            f"peak {run.payment.get('peak', 'unknown: ' + str(run.payment.get('error')))}",
        ),
        Check("some orders are refused", bool(refusals), f"{len(refusals)} refused"),
        Check(
            f"refused orders are answered in under {refusal_under * 1000:.0f} ms",
            all(t < refusal_under for t in refusals),
            f"slowest refusal {max(refusals) * 1000:.0f} ms" if refusals else "no refusals",
        ),
    ]


# --- the keep-alive experiment --------------------------------------------------------------


@dataclass(frozen=True)
class KeepaliveFacts:
    """What the shared pool did with keep-alive on and Payment healthy."""

    pool_limit: int
    payment_opened: int
    payment_reused: int
    inventory_opened: int
    kept_open: int  # sockets open at once after the stock checks (none idle out within the run)
    slowest_order: float
    slowest_stock: float

    @property
    def idle_counted(self) -> bool:
        """Did idle keep-alive connections hold stock checks back (Node's behaviour in the lesson)?"""
        return self.kept_open <= self.pool_limit and self.slowest_stock >= 1.0


def keepalive_facts(run: OrdersRun) -> KeepaliveFacts:
    """Read the keep-alive experiment's facts from a ``shared``, keep-alive, healthy run."""
    if run.settings is None or run.pools is None or not run.pools.get("shared"):
        raise ValueError("run must be a shared-pool run from run_orders (got another)")
    if run.duration >= KEEPALIVE_TIMEOUT:
        raise ValueError(f"run must last under {KEEPALIVE_TIMEOUT:g} s so no idle socket expires")
    p, i = run.pools["payment"], run.pools["inventory"]
    return KeepaliveFacts(
        pool_limit=p["limit"],
        payment_opened=p["opened"],
        payment_reused=p["reused"],
        inventory_opened=i["opened"],
        kept_open=p["opened"] + i["opened"],
        slowest_order=run.slowest("order"),
        slowest_stock=run.slowest("stock"),
    )
