"""Sizing a pool: Little's Law, utilization, headroom and Erlang-B.

Little's Law says how many calls are in flight on average: arrival rate times hold.
A pool is sized against that number: utilization is in-flight / slots (above 1 the
pool cannot carry its own usual load), headroom is slots / in-flight. Erlang-B gives
the share of arrivals a pool of ``c`` slots refuses when Poisson arrivals offer
``a`` slots' worth of load (the loss system the lesson's model approximates).
"""

from __future__ import annotations

import math

from bulkhead_lab.validation import check_int, check_real


def in_flight(arrival_rate: float, hold: float) -> float:
    """Little's Law: calls in progress = arrivals per unit time x time each call takes.

    Units must agree: calls/s with seconds, or arrivals/round with rounds.
    """
    check_real("arrival_rate", arrival_rate, 0.0, float("inf"))
    check_real("hold", hold, 0.0, float("inf"))
    return arrival_rate * hold


def utilization(arrival_rate: float, hold: float, slots: int) -> float:
    """Expected busy share of a pool: in-flight / slots (> 1 means overloaded)."""
    check_int("slots", slots, 1)
    return in_flight(arrival_rate, hold) / slots


def headroom(arrival_rate: float, hold: float, slots: int) -> float:
    """How many times the expected in-flight count the pool holds: slots / in-flight."""
    check_int("slots", slots, 1)
    load = in_flight(arrival_rate, hold)
    return float("inf") if load == 0 else slots / load


def erlang_b(slots: int, offered: float) -> float:
    """Blocking probability of ``slots`` servers offered ``offered`` erlangs.

    Uses the stable recursion B(0) = 1, B(c) = a B(c-1) / (c + a B(c-1)).
    """
    check_int("slots", slots, 0)
    check_real("offered", offered, 0.0, float("inf"))
    b = 1.0
    for c in range(1, slots + 1):
        b = offered * b / (c + offered * b)
    return b


def smallest_pool(offered: float, target: float, max_slots: int = 100_000) -> int:
    """The fewest slots whose Erlang-B blocking is at most ``target``."""
    check_real("offered", offered, 0.0, float("inf"))
    check_real("target", target, 0.0, 1.0, low_open=True)
    b = 1.0
    c = 0
    while b > target:
        if c >= max_slots:
            raise ValueError(f"target must be reachable within {max_slots} slots (got {target!r})")
        c += 1
        b = offered * b / (c + offered * b)
    return c


def suggested_limit(arrival_rate: float, hold: float, factor: float = 2.5) -> int:
    """Lesson 004's rule of thumb: a few times the normal in-flight count, rounded up.

    20 calls/s x 0.1 s = 2 in flight; x 2.5 gives a limit of 5.
    """
    check_real("factor", factor, 1.0, 100.0)
    load = in_flight(arrival_rate, hold)
    return max(1, math.ceil(load * factor))
