"""What lesson 004 and issues 11 and 14 conclude from a run: check.js's four checks, the
keep-alive experiment's facts and retrying clients' amplification (an adaptive limit's facts:
:mod:`.adaptive_reading`).

Each reads an :class:`~.load.OrdersRun` that has already happened; nothing here touches
a socket. :func:`check_orders` is ``check.js``: stock checks fast, Payment's peak
bounded, some orders refused, refusals fast. :func:`keepalive_facts` reads what a shared
pool with keep-alive did while Payment was healthy, under either pool rule.
:func:`retry_facts` counts what
retrying clients sent, what Order Service received and what Payment counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from bulkhead_lab.live.orders.load import OrdersRun
from bulkhead_lab.live.orders.socket_pools import PoolRule

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
            run.payment.error is None and run.payment.peak <= peak_at_most,
            f"peak {run.payment.peak if run.payment.error is None else 'unknown: ' + run.payment.error}",
        ),
        Check("some orders are refused", bool(refusals), f"{len(refusals)} refused"),
        Check(
            f"refused orders are answered in under {refusal_under * 1000:.0f} ms",
            all(t < refusal_under for t in refusals),
            f"slowest refusal {max(refusals) * 1000:.0f} ms" if refusals else "no refusals",
        ),
    ]


# --- lesson 004's runs, read as facts timing cannot change -----------------------------------

TOLERANCE = 0.005  # s: a timer may fire a clock tick early; no lower bound here comes closer than this
INVENTORY_RAN_UNDER = 1.0  # s: fifty times Inventory's 20 ms; its own call never takes longer here


def refusals_before_first_answer(run: OrdersRun) -> bool:
    """Every refusal was answered before Payment answered any order (no failure to judge yet)."""
    refused = [x.end for x in run.orders if x.outcome == "refused"]
    served = [x.end for x in run.orders if x.outcome == "served"]
    return bool(refused) and (not served or max(refused) < min(served))


def stock_waited_for_payment(run: OrdersRun) -> bool:
    """Every stock check waited at least half a slow Payment call for its connection, and its own
    Inventory call was quick: the wait, not Inventory, took the time."""
    half = (run.slow_latency or 0.0) / 2
    return bool(run.stock_checks) and all(
        (x.waited or 0.0) >= half and (x.ran or 0.0) < INVENTORY_RAN_UNDER for x in run.stock_checks
    )


def stock_after_every_order(run: OrdersRun) -> bool:
    """No stock check had a connection before every order had one: Payment's own waiters went first."""
    orders = [x.run_start for x in run.orders if x.outcome == "served"]
    stock = [x.run_start for x in run.stock_checks if x.outcome == "served"]
    return bool(orders and stock) and min(stock) >= max(orders) - TOLERANCE


def slowest_at_least_waves(run: OrdersRun) -> tuple[int, bool]:
    """Waves of Payment's latency the served orders needed, and whether the slowest order took at
    least that many (a floor: Payment's sleeps never end early)."""
    waves = len(run.served_waves())
    return waves, run.slowest("order", "served") >= waves * (run.slow_latency or 0.0) - TOLERANCE


def inventory_idle_while_orders_waited(run: OrdersRun) -> bool:
    """Inventory's pool held no call at some moment while orders waited for Payment's connections."""
    inventory = run.timelines.get("inventory", [])
    for t, n in run.waiting("order"):
        before = [k for s, k in inventory if s <= t]
        if n > 0 and before and before[-1] == 0:
            return True
    return False


# --- the keep-alive experiment --------------------------------------------------------------

IDLE_WAIT = 1.0  # seconds of waiting no healthy call explains: fifty times Payment's 20 ms


@dataclass(frozen=True)
class KeepaliveFacts:
    """What the shared pool did with keep-alive on and Payment healthy, under its pool rule."""

    pool_limit: int
    payment_opened: int
    payment_reused: int
    inventory_opened: int
    kept_open: int  # the most sockets the pool held at once, busy or idle (measured: connected, not closed)
    slowest_order: float
    slowest_stock: float
    pool_rule: PoolRule = "aiohttp"
    idle_wait: float = 0.0  # the longest a stock check went on waiting for a connection after every order
    #                         was answered, when every Payment socket was idle (seconds)

    @property
    def idle_counted(self) -> bool:
        """Did idle kept-alive connections count against the limit (Node's behaviour in the lesson)?

        True when the pool never held more sockets than its limit *and* a stock check waited
        :data:`IDLE_WAIT` or more for a connection after every order had been answered, when
        nothing but idle sockets held the places. False when the pool held more sockets than
        its limit at once (at most ``limit`` can be counted), or no call waited on idle ones.
        """
        return self.kept_open <= self.pool_limit and self.idle_wait >= IDLE_WAIT

    def lines(self) -> list[str]:
        """The experiment's facts, one a line; the last is the one the lesson checks."""
        return [
            f"pool rule: {self.pool_rule}, shared pool limit: {self.pool_limit}",
            f"Payment: {self.payment_opened} connections opened, {self.payment_reused} reused (kept alive)",
            f"sockets open at once: {self.kept_open} "
            f"(more than the limit: {self.kept_open > self.pool_limit})",
            f"every stock check under 300 ms: {self.slowest_stock < 0.3}",
            f"idle kept-alive connections counted against the limit: {self.idle_counted}",
        ]


def keepalive_facts(run: OrdersRun) -> KeepaliveFacts:
    """Read the keep-alive experiment's facts from a ``shared``, keep-alive run with Payment healthy."""
    if run.settings is None or run.pools is None or not run.pools.shared:
        raise ValueError("run must be a shared-pool run from run_orders (got another)")
    if not run.settings.keepalive or run.slow:
        raise ValueError("run must have keepalive=True and slow=False, Payment healthy (got another)")
    p, i = run.pools.payment, run.pools.inventory
    answered = max((r.end for r in run.orders), default=0.0)
    idle_wait = max(
        (
            max(0.0, r.run_start - max(r.wait_start, answered))
            for r in run.stock_checks
            if r.waited is not None
        ),
        default=0.0,
    )
    return KeepaliveFacts(
        pool_limit=p.limit,
        payment_opened=p.opened,
        payment_reused=p.reused,
        inventory_opened=i.opened,
        kept_open=p.peak,
        slowest_order=run.slowest("order"),
        slowest_stock=run.slowest("stock"),
        pool_rule=run.pools.pool_rule,
        idle_wait=idle_wait,
    )


# --- retrying clients -------------------------------------------------------------------------


@dataclass(frozen=True)
class RetryFacts:
    """What retrying clients cost each layer, per original order."""

    orders: int
    client_sent: int  # orders the client sent, retries included
    order_service_received: int  # what Order Service counted
    payment_calls: int  # what Payment counted (/admin/stats calls)
    served: int
    refused: int
    gave_up_budget: int  # refused orders whose retry the budget denied

    def per_order(self, calls: int) -> float:
        return calls / self.orders if self.orders else 0.0

    @property
    def amplified(self) -> str:
        """Which layer the retries multiplied: a refused order never reaches Payment."""
        layers = [
            name
            for name, calls in (
                ("order service", self.order_service_received),
                ("payment", self.payment_calls),
            )
            if calls > self.orders
        ]
        return " and ".join(layers) or "none"

    def lines(self) -> list[str]:
        return [
            f"orders: {self.orders}, served {self.served}, refused {self.refused} "
            f"({self.gave_up_budget} stopped by the budget)",
            f"calls per order: client sent {self.per_order(self.client_sent):.2f}, "
            f"Order Service received {self.per_order(self.order_service_received):.2f}, "
            f"Payment counted {self.per_order(self.payment_calls):.2f}",
            f"amplified: {self.amplified}",
        ]


def retry_facts(run: OrdersRun) -> RetryFacts:
    """Count what the orders' client sent against what Order Service and Payment received."""
    if run.order_service.error is not None or run.payment.error is not None:
        raise ValueError("run must carry Order Service's and Payment's /admin/stats (got a run without them)")
    return RetryFacts(
        orders=len(run.orders),
        client_sent=run.attempts,
        order_service_received=run.order_service.orders,
        payment_calls=run.payment.calls,
        served=run.served,
        refused=run.refused,
        gave_up_budget=sum(r.gave_up == "budget" for r in run.orders),
    )
