"""The settings of one Order Service (lesson 004), each bad value a one-line :class:`ValueError`.

:mod:`.service` re-exports everything here; this module only holds the values, their
ranges and how a configuration reads in one line. A variant is a :data:`Variant`, a pool
rule a :data:`~.socket_pools.PoolRule` and a dependency a :data:`DependencyName`, so mypy
refuses a misspelt one where the code names it. Notebook 05's ``adaptive`` variant extends
these settings (:class:`~.adaptive.AdaptiveSettings`); nothing here knows its limiters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal, Protocol, get_args

from bulkhead_lab.live.bulkhead import Bulkhead, InstrumentedBulkhead, instrumented
from bulkhead_lab.live.net.dependency import MAX_DEPENDENCY_LATENCY
from bulkhead_lab.live.orders.socket_pools import IDLE_TIMEOUT, POOL_RULES, PoolRule
from bulkhead_lab.live.placement.pools import MAX_POOL_SLOTS
from bulkhead_lab.validation import check_choice, check_int, check_real

#: The Order Service's variants: the lesson's three, and issue 13's limit an adaptive limiter moves.
Variant = Literal["shared", "separate", "limited", "adaptive"]
ALL_VARIANTS: tuple[Variant, ...] = get_args(Variant)
VARIANTS: tuple[Variant, ...] = ("shared", "separate", "limited")  # the lesson's three
ADAPTIVE: Final = "adaptive"
BOUNDED: tuple[Variant, ...] = ("limited", "adaptive")  # the variants with a bulkhead around Payment
#: The Order Service's two dependencies.
DependencyName = Literal["payment", "inventory"]
FAST_LATENCY = 0.020  # seconds: Payment and Inventory on a normal day
SLOW_LATENCY = 3.0  # seconds: Payment switched slow
KEEPALIVE_TIMEOUT = IDLE_TIMEOUT  # seconds an idle kept-alive connection stays open (Node's server default)
CALL_TIMEOUT = 10.0  # seconds: a dependency call's default deadline, well above the 3 s slowdown


class LimitControl(Protocol):
    """What moves a bounded variant's limit from the calls it admits (notebook 05's adaptive one)."""

    def admitted(self) -> tuple[float, int]: ...

    def ended(self, admitted: tuple[float, int], *, dropped: bool = False) -> None: ...

    def restart(self) -> None: ...

    def stats(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class OrderSettings:
    """Which variant, and its sizes; every bad value is a one-line :class:`ValueError`.

    ``queue`` waiting places; ``pool_rule`` is what counts against a pool's limit
    (:mod:`.socket_pools`): ``aiohttp`` (connections in use) or ``node`` (every socket owned,
    idle kept-alive ones included, as Node's ``maxTotalSockets``). ``bulkhead`` is the class the
    bounded variant's bulkhead is built from: notebook 04's
    :class:`~bulkhead_lab.live.bulkhead.Bulkhead`, or a notebook's own (edited) copy of it, which
    runs with the instrumentation the service reads (:func:`~bulkhead_lab.live.bulkhead.instrumented`).
    """

    variants: ClassVar[tuple[Variant, ...]] = VARIANTS  # the variants these settings describe
    variant: Variant = "limited"
    pool: int = 10  # shared: connections for both dependencies
    limit: int = 5  # separate/limited: connections per dependency, and the bulkhead's running places
    queue: int = 5  # limited: the bulkhead's waiting places
    keepalive: bool = False  # keep idle connections open for KEEPALIVE_TIMEOUT
    payment_timeout: float = CALL_TIMEOUT  # seconds a Payment call may take once sent (then 504)
    inventory_timeout: float = CALL_TIMEOUT  # the same for Inventory
    pool_rule: PoolRule = "aiohttp"
    bulkhead: type[Bulkhead] = Bulkhead  # limited: notebook 04's class, or a notebook's own copy

    def __post_init__(self) -> None:
        check_choice("variant", self.variant, ALL_VARIANTS)
        if self.variant not in self.variants:
            where = "AdaptiveSettings in bulkhead_lab.live.orders.adaptive"
            raise ValueError(f"variant {self.variant} is notebook 05's: {where}")
        check_int("pool", self.pool, 1, MAX_POOL_SLOTS)
        check_int("limit", self.limit, 1, MAX_POOL_SLOTS)
        check_int("queue", self.queue, 0, MAX_POOL_SLOTS)
        if not isinstance(self.keepalive, bool):
            raise ValueError(f"keepalive must be True or False (got {self.keepalive!r})")
        for name in ("payment_timeout", "inventory_timeout"):
            check_real(name, getattr(self, name), 0.0, MAX_DEPENDENCY_LATENCY, low_open=True)
        check_choice("pool_rule", self.pool_rule, POOL_RULES)
        instrumented(self.bulkhead)  # a class without the cell's parts is one line here

    @property
    def shared(self) -> bool:
        """One pool for both dependencies (the ``shared`` variant)."""
        return self.variant == "shared"

    @property
    def bounded(self) -> bool:
        """A bulkhead around Payment, with waiting places (``limited`` and ``adaptive``)."""
        return self.variant in BOUNDED

    def limit_control(self, bulkhead: InstrumentedBulkhead) -> LimitControl | None:
        """What moves ``bulkhead``'s limit: nothing in lesson 004 (its limit stays ``limit``)."""
        return None

    def places(self) -> int:
        """The running places Payment's calls have at the start: the shared pool, or ``limit``."""
        return self.pool if self.shared else self.limit

    def timeout(self, dependency: DependencyName) -> float:
        """The deadline of a call to ``dependency`` ("payment" or "inventory"), in seconds."""
        return self.payment_timeout if dependency == "payment" else self.inventory_timeout

    def pool_sizes(self) -> dict[DependencyName, int]:
        """Each dependency's pool size (a shared pool is named under both)."""
        if self.shared:
            return {"payment": self.pool, "inventory": self.pool}
        return {"payment": self.limit, "inventory": self.limit}

    def slots(self) -> int:
        """Connections the Order Service may hold to its dependencies at once."""
        sizes = self.pool_sizes()
        return self.pool if self.shared else sizes["payment"] + sizes["inventory"]

    def describe(self) -> str:
        """One line, e.g. ``limited: pools of 5 + 5, bulkhead 5 running + 5 waiting around Payment``."""
        ka = ", keep-alive" if self.keepalive else ""
        ka += ", node pool rule (idle sockets count)" if self.pool_rule == "node" else ""
        if self.shared:
            return f"shared: one pool of {self.pool} for Payment and Inventory{ka}"
        sizes = self.pool_sizes()
        text = f"{self.variant}: pools of {sizes['payment']} + {sizes['inventory']}{ka}"
        return text + self.around_payment()

    def around_payment(self) -> str:
        """The bulkhead around Payment in words (none for ``separate``)."""
        if self.variant != "limited":
            return ""
        text = f", bulkhead {self.limit} running + {self.queue} waiting around Payment"
        return text + ("" if self.bulkhead is Bulkhead else f" ({self.bulkhead.__name__})")
