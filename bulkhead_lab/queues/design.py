"""The right answers behind notebook 07's exercises, as seeded runs: a queue bound and timeout that
end the storm, whether dropping only expired work does, and the largest fixed bulkhead limit an
overload leaves room for.
"""

from __future__ import annotations

from bulkhead_lab.queues import knee
from bulkhead_lab.queues.fixes import with_fix
from bulkhead_lab.queues.recovery import Storm, storm
from bulkhead_lab.queues.rounds import kept_run
from bulkhead_lab.queues.settings import WORKERS, Bulkhead, Callers, Dependency, Setup

DEFAULT = Setup()
WITHIN = 10  # rounds after the slowdown's end a design must recover by
SLO = 30  # rounds: the callers want an answer within 300 ms
REFUSED_AT_MOST = 0.01  # of the calls on a healthy day
ENOUGH = 0.9  # of what the dependency can answer, under the overload
DESIGNS = ((2, 5, 10, 20, 32), (10, 30))  # the worked answer's queue bounds and timeouts


def design(bound: int, timeout: int) -> Setup:
    return DEFAULT.with_(dependency=Dependency(queue=bound), callers=Callers(timeout=timeout))


def healthy_refused(setup: Setup) -> float:
    """The share of calls the dependency refuses on a healthy day (``setup`` with no slowdown)."""
    trace = kept_run(setup.healthy).trace
    return trace.total("refused") / max(1, trace.total("offered"))


def refused_share(bound: int, timeout: int) -> float:
    """The share of calls the dependency refuses on a healthy day with this design."""
    return healthy_refused(design(bound, timeout))


def recovers(bound: int, timeout: int) -> int | None:
    """Rounds after the slowdown's end until goodput is back for good with this design (None: not in
    the run)."""
    return storm(design(bound, timeout)).recovery


def works(bound: int, timeout: int) -> bool:
    """Does this design refuse at most 1% on a healthy day and recover for good within :data:`WITHIN`
    rounds?"""
    back = recovers(bound, timeout)
    return refused_share(bound, timeout) <= REFUSED_AT_MOST and back is not None and back <= WITHIN


def a_right_design() -> tuple[int, int]:
    """The first design of :data:`DESIGNS` that works."""
    bounds, timeouts_ = DESIGNS
    return next((b, t) for t in timeouts_ for b in bounds if works(b, t))


def expired_only() -> Storm:
    return storm(with_fix(DEFAULT, "drop expired"))


def expired_only_ends() -> bool:
    return expired_only().recovery is not None


def goodput_share(limit: int) -> float:
    """Under the knee's overload, behind a fixed bulkhead ``limit``: goodput of the most it can answer."""
    setup = Setup(trigger=None, rate=knee.OVERLOAD, callers=Callers(bulkhead=Bulkhead(limit, 0)))
    return kept_run(setup).trace.total("goodput") / (DEFAULT.dependency.capacity * setup.rounds)


def largest_limit(low: int = WORKERS, high: int = 200) -> int:
    """The largest fixed limit that answers :data:`ENOUGH` of the most under the overload, between the
    knee (``low``, which does) and the too-high limit (``high``, which does not), by bisection."""
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if goodput_share(middle) >= ENOUGH else (low, middle)
    return low
