"""An adaptive limit around a live dependency: a limiter from :mod:`bulkhead_lab.adaptive.limits` moving a
:class:`~.bulkhead.InstrumentedBulkhead`'s limit from the round trips of the calls it admits.

Issue 13's live part. Each call the bulkhead admits is a sample when it ends, as
concurrency-limits' ``AbstractLimiter`` takes them:

- answered by the dependency (any HTTP answer): ``on_sample(rtt, inflight)``, the round trip
  from admission to answer and the calls running at admission, itself included;
- failed (a deadline passed, refused, cut off): ``on_sample(rtt, inflight, dropped=True)``;
- refused by the bulkhead itself (HTTP 503), or ended because its client left or the
  service was reset: no sample (the library gives a rejected call no listener, and an
  abandoned one ``onIgnore``).

After every sample (and every tick of a timed limiter) the bulkhead's limit is set to the
limiter's, so the next admission obeys it.

The settings (:func:`live_spec`) are the sources' defaults with two kinds of change and no
others, on seconds-scale round trips: the limiters' time unit here is the millisecond
(AIMD's 5 s timeout is 5000, Envoy's 0.1 s update interval 100 and its 60 s minRTT
interval 60 000; Gradient2 and Vegas read only ratios of round trips, so no unit
reaches them); and ``min_limit`` is 1 where the source's floor (20 for AIMD and
Gradient2) is above the lesson's whole bulkhead of 5, so the limit can fall at this scale.
``initial`` stays the sources' 20 (Envoy starts at its min_concurrency, 3), ``max_limit``
the sources' (200, or 1000 for Vegas and Envoy); Payment's pool holds ``max_limit``
connections, so the pool is never the limit that binds. Gradient2's ``queue_size`` of 4
makes it settle at about 2 x 4 = 8 under any slowdown more than three times its average
(its gradient is clamped at 0.5): ``new = 0.5 limit + 4``, smoothed by 0.2.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from bulkhead_lab.adaptive.pool import ALGORITHMS, LimiterSpec
from bulkhead_lab.live.bulkhead import InstrumentedBulkhead
from bulkhead_lab.live.orders.settings import ADAPTIVE, DependencyName, OrderSettings, Variant
from bulkhead_lab.live.placement.pools import MAX_POOL_SLOTS
from bulkhead_lab.validation import check_int, fail

__all__ = [
    "ALGORITHMS",
    "DEFAULT_ALGORITHM",
    "UNIT",
    "AdaptiveControl",
    "AdaptiveSettings",
    "algorithm_name",
    "live_spec",
]

DEFAULT_ALGORITHM = "Gradient2"
UNIT = 1000.0  # the limiters' time unit: milliseconds per second
_SOURCE_MAX = {"AIMD": 200, "Gradient2": 200, "Vegas": 1000, "Envoy": 1000}


def algorithm_name(name: object) -> str:
    """The canonical name (``Gradient2``, ``Vegas``, ``AIMD``, ``Envoy``) of ``name``, in any case."""
    if isinstance(name, str):
        for known in ALGORITHMS:
            if name.lower() == known.lower():
                return known
    raise fail("algorithm", name, "one of " + ", ".join(ALGORITHMS))


def live_spec(algorithm: str = DEFAULT_ALGORITHM, options: Mapping[str, Any] | None = None) -> LimiterSpec:
    """The settings this course uses for ``algorithm`` around a live dependency, with ``options``
    (any of the limiter's own settings) replacing them; each bad value is one line.

    The limiter is built here once to check every value, so a bad one is refused before
    anything starts.
    """
    name = algorithm_name(algorithm)
    settings: dict[str, Any] = {"initial": 20, "min_limit": 1, "max_limit": _SOURCE_MAX[name]}
    if name == "AIMD":
        settings.update(backoff_ratio=0.9, timeout=5 * UNIT)
    elif name == "Vegas":
        settings.update(smoothing=1.0, probe_multiplier=30)
    elif name == "Gradient2":
        settings.update(smoothing=0.2, queue_size=4, long_window=600, tolerance=1.5)
    else:  # Envoy: the proto's defaults; the docs' example intervals
        settings.update(
            initial=None,
            min_limit=3,
            percentile=0.5,
            buffer=0.25,
            request_count=50,
            jitter=0.15,
            update_interval=round(0.1 * UNIT),
            min_rtt_interval=round(60 * UNIT),
        )
    for key, value in (options or {}).items():
        if key not in settings:
            raise ValueError(
                f"{key} is not a setting of {name}: it takes {', '.join(sorted(settings))} "
                f"(got {key}={value!r})"
            )
        settings[key] = value
    if settings["initial"] is not None:  # the ports take any start, as the sources do; a live limit
        # starts within its bounds: one of 0 would admit no call, so it would never have a sample
        check_int(
            "initial",
            settings["initial"],
            max(1, check_int("min_limit", settings["min_limit"], 0)),
            check_int("max_limit", settings["max_limit"], 1),
        )
    spec = LimiterSpec.of(name, **settings)
    try:
        spec.build()
    except TypeError as exc:  # a value of the wrong kind a check did not name
        raise ValueError(f"{name} settings are not valid: {str(exc).splitlines()[0]}") from None
    return spec


Options = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class AdaptiveSettings(OrderSettings):
    """Lesson 004's ``limited`` Order Service with a limit an adaptive limiter moves: ``algorithm``
    (Gradient2, Vegas, AIMD or Envoy) with ``limiter_options`` replacing any of its settings
    (:func:`live_spec`), ``queue`` waiting places; Payment's pool is the limiter's ``max_limit``,
    Inventory's ``limit``. Every bad value is a one-line :class:`ValueError`."""

    variants: ClassVar[tuple[Variant, ...]] = (ADAPTIVE,)
    variant: Variant = ADAPTIVE
    algorithm: str = DEFAULT_ALGORITHM
    limiter_options: Options = ()  # (name, value) pairs, or a mapping

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "algorithm", algorithm_name(self.algorithm))
        object.__setattr__(self, "limiter_options", _options(self.limiter_options))
        check_int("max_limit", max_limit(self.spec()), 1, MAX_POOL_SLOTS)  # it sizes Payment's pool

    def spec(self) -> LimiterSpec:
        """The adaptive limiter's settings."""
        return live_spec(self.algorithm, dict(self.limiter_options))

    def limit_control(self, bulkhead: InstrumentedBulkhead) -> AdaptiveControl:
        """A fresh limiter moving ``bulkhead``'s limit."""
        return AdaptiveControl(self.spec(), bulkhead)

    def places(self) -> int:
        """The limiter's initial limit (Envoy's: its ``min_limit``)."""
        spec = self.spec()
        return int(spec.get("initial") or spec.get("min_limit"))

    def pool_sizes(self) -> dict[DependencyName, int]:
        """Payment's pool: ``max_limit`` connections (never the limit that binds); Inventory's: ``limit``."""
        return {"payment": max_limit(self.spec()), "inventory": self.limit}

    def around_payment(self) -> str:
        spec = self.spec()
        lo, hi, start = spec.get("min_limit"), spec.get("max_limit"), spec.get("initial")
        begin = f"from {start}" if start is not None else f"from {lo}"
        limit = f"{spec.algorithm} limit {begin} (between {lo} and {hi})"
        return f", {limit} + {self.queue} waiting around Payment"


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


class Limiter(Protocol):
    """What :class:`AdaptiveControl` asks of a limiter: an
    :class:`~bulkhead_lab.adaptive.limits.AdaptiveLimit`, or a learner's (:class:`~.learners.LearnersLimit`).
    """

    timed: bool

    @property
    def limit(self) -> int: ...

    @property
    def baseline(self) -> float: ...

    def tick(self, now: float) -> None: ...

    def on_sample(self, rtt: float, inflight: int, dropped: bool = False) -> int: ...


class Builds(Protocol):
    """Settings that build a fresh :class:`Limiter` (a learner's, :class:`~.learners.LearnersSpec`)."""

    algorithm: str

    def build(self) -> Limiter: ...


def max_limit(spec: LimiterSpec) -> int:
    """The highest limit ``spec`` can reach."""
    return int(spec.get("max_limit"))


class AdaptiveControl:
    """Moves ``bulkhead``'s limit by a fresh limiter built from ``spec``; times from ``clock`` (seconds)."""

    def __init__(
        self,
        spec: LimiterSpec | Builds,
        bulkhead: InstrumentedBulkhead,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.spec = spec
        self.bulkhead = bulkhead
        self.clock = clock
        self.samples = 0
        self.drops = 0
        self.limiter: Limiter = spec.build()
        self._t0 = clock()
        bulkhead.set_limit(self.limiter.limit)

    def restart(self) -> None:
        """A fresh limiter at its initial limit (the service's reset)."""
        self.limiter = self.spec.build()
        self.samples = self.drops = 0
        self._t0 = self.clock()
        self.bulkhead.set_limit(self.limiter.limit)

    def tick(self) -> None:
        """Tell a timed limiter the time (its windows may close); the bulkhead follows its limit."""
        if self.limiter.timed:
            self.limiter.tick((self.clock() - self._t0) * UNIT)
            self.bulkhead.set_limit(self.limiter.limit)

    def admitted(self) -> tuple[float, int]:
        """Right after the bulkhead admitted a call: its start and the in-flight count, itself included."""
        self.tick()
        return self.clock(), self.bulkhead.running

    def ended(self, admitted: tuple[float, int], *, dropped: bool = False) -> None:
        """The call admitted at ``admitted`` ended: answered, or ``dropped`` (failed); one sample."""
        start, inflight = admitted
        self.tick()
        rtt = max((self.clock() - start) * UNIT, 1e-3)  # a success must carry a round trip > 0
        self.samples += 1
        self.drops += dropped
        self.bulkhead.set_limit(self.limiter.on_sample(rtt, inflight, dropped))

    def stats(self) -> dict[str, Any]:
        """The algorithm, its limit and baseline (ms), and the samples and drops it has heard."""
        return {
            "algorithm": self.spec.algorithm,
            "limit": self.limiter.limit,
            "baseline_ms": round(self.limiter.baseline, 3),
            "samples": self.samples,
            "drops": self.drops,
        }
