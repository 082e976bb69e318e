"""The settings of one Order Service (lesson 004), each bad value a one-line :class:`ValueError`.

:mod:`.service` re-exports everything here; this module only holds the values, their
ranges and how a configuration reads in one line. A variant is a :data:`Variant`, a pool
rule a :data:`~.socket_pools.PoolRule` and a dependency a :data:`DependencyName`, so mypy
refuses a misspelt one where the code names it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from bulkhead_lab.adaptive.pool import LimiterSpec
from bulkhead_lab.live.bulkhead import Bulkhead, instrumented
from bulkhead_lab.live.net.dependency import MAX_DEPENDENCY_LATENCY
from bulkhead_lab.live.orders.adaptive import DEFAULT_ALGORITHM, algorithm_name, live_spec, max_limit
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

Options = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class OrderSettings:
    """Which variant, and its sizes; every bad value is a one-line :class:`ValueError`.

    ``adaptive`` is ``limited`` with a limit an adaptive limiter moves (``algorithm``:
    Gradient2, Vegas, AIMD or Envoy; ``limiter_options`` replace any of its settings, see
    :func:`~.adaptive.live_spec`); ``queue`` waiting places; Payment's pool is the
    limiter's ``max_limit``, Inventory's ``limit``. ``pool_rule`` is what counts against a
    pool's limit (:mod:`.socket_pools`): ``aiohttp`` (connections in use) or ``node``
    (every socket owned, idle kept-alive ones included, as Node's ``maxTotalSockets``).
    ``bulkhead`` is the class the bounded variants' bulkhead is built from: notebook 04's
    :class:`~bulkhead_lab.live.bulkhead.Bulkhead`, or a notebook's own (edited) copy of it, which
    runs with the instrumentation the service reads (:func:`~bulkhead_lab.live.bulkhead.instrumented`).
    """

    variant: Variant = "limited"
    pool: int = 10  # shared: connections for both dependencies
    limit: int = 5  # separate/limited: connections per dependency, and the bulkhead's running places
    queue: int = 5  # limited/adaptive: the bulkhead's waiting places
    keepalive: bool = False  # keep idle connections open for KEEPALIVE_TIMEOUT
    payment_timeout: float = CALL_TIMEOUT  # seconds a Payment call may take once sent (then 504)
    inventory_timeout: float = CALL_TIMEOUT  # the same for Inventory
    pool_rule: PoolRule = "aiohttp"
    algorithm: str = DEFAULT_ALGORITHM  # adaptive only
    limiter_options: Options = ()  # adaptive only: (name, value) pairs, or a mapping
    bulkhead: type[Bulkhead] = Bulkhead  # limited/adaptive: notebook 04's class, or a notebook's own copy

    def __post_init__(self) -> None:
        check_choice("variant", self.variant, ALL_VARIANTS)
        check_int("pool", self.pool, 1, MAX_POOL_SLOTS)
        check_int("limit", self.limit, 1, MAX_POOL_SLOTS)
        check_int("queue", self.queue, 0, MAX_POOL_SLOTS)
        if not isinstance(self.keepalive, bool):
            raise ValueError(f"keepalive must be True or False (got {self.keepalive!r})")
        for name in ("payment_timeout", "inventory_timeout"):
            check_real(name, getattr(self, name), 0.0, MAX_DEPENDENCY_LATENCY, low_open=True)
        check_choice("pool_rule", self.pool_rule, POOL_RULES)
        instrumented(self.bulkhead)  # a class without the cell's parts is one line here
        object.__setattr__(self, "algorithm", algorithm_name(self.algorithm))
        object.__setattr__(self, "limiter_options", _options(self.limiter_options))
        if self.variant == ADAPTIVE:
            spec = self.spec()
            assert spec is not None
            check_int("max_limit", max_limit(spec), 1, MAX_POOL_SLOTS)  # it sizes Payment's pool

    @property
    def shared(self) -> bool:
        """One pool for both dependencies (the ``shared`` variant)."""
        return self.variant == "shared"

    @property
    def bounded(self) -> bool:
        """A bulkhead around Payment, with waiting places (``limited`` and ``adaptive``)."""
        return self.variant in BOUNDED

    def spec(self) -> LimiterSpec | None:
        """The adaptive limiter's settings (None for a variant without one)."""
        if self.variant != ADAPTIVE:
            return None
        return live_spec(self.algorithm, dict(self.limiter_options))

    def timeout(self, dependency: DependencyName) -> float:
        """The deadline of a call to ``dependency`` ("payment" or "inventory"), in seconds."""
        return self.payment_timeout if dependency == "payment" else self.inventory_timeout

    def pool_sizes(self) -> dict[DependencyName, int]:
        """Each dependency's pool size (a shared pool is named under both)."""
        if self.shared:
            return {"payment": self.pool, "inventory": self.pool}
        spec = self.spec()
        return {"payment": self.limit if spec is None else max_limit(spec), "inventory": self.limit}

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
        if self.variant == "limited":
            text += f", bulkhead {self.limit} running + {self.queue} waiting around Payment"
            text += "" if self.bulkhead is Bulkhead else f" ({self.bulkhead.__name__})"
        elif (spec := self.spec()) is not None:
            lo, hi, start = spec.get("min_limit"), spec.get("max_limit"), spec.get("initial")
            begin = f"from {start}" if start is not None else f"from {lo}"
            text += f", {spec.algorithm} limit {begin} (between {lo} and {hi})"
            text += f" + {self.queue} waiting around Payment"
        return text


def _options(options: object) -> Options:
    """``limiter_options`` as sorted (name, value) pairs, from a mapping or pairs."""
    if isinstance(options, Mapping):
        items = list(options.items())
    elif isinstance(options, (tuple, list)) and all(isinstance(p, tuple) and len(p) == 2 for p in options):
        items = list(options)
    else:
        raise ValueError(f"limiter_options must be a mapping of setting names to values (got {options!r})")
    if not all(isinstance(k, str) for k, _ in items):
        raise ValueError(f"limiter_options must be a mapping of setting names to values (got {options!r})")
    return tuple(sorted(items))
