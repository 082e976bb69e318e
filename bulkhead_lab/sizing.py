"""Sizing a pool: Little's Law, and what a pool of ``c`` slots refuses or keeps waiting.

Little's Law says how many calls are in flight on average: arrival rate times hold. That is
the *offered load* ``a``, in slots. Against a pool of ``c`` slots, ``a / c`` is the *offered
load per slot* (lesson 000 prints it as "utilization"; it passes 1 when the pool is smaller
than its own flow's load); the *utilization* is the share of the slots busy, ``a (1 - B) / c``,
which never passes 1. *Headroom* is slots / in flight.

What ``B`` is depends on what a full pool does with the next call:

- refuses it at once (lesson 000's pool, a bulkhead without a queue): Erlang-B, M/M/c/c
  (:func:`erlang_b`);
- lets a few wait and refuses the rest (lesson 004's bulkhead: 5 running, 5 waiting): M/M/c/K
  (:func:`queue_blocking`);
- lets every caller wait (aiohttp's connector limit, Node's Agent ``maxSockets``): Erlang-C,
  M/M/c: nothing is refused, the question is how many wait (:func:`erlang_c`).

The slots a blocking target needs grow slower than the load (square-root staffing): at 1% a
load of 2 needs 7 slots, a load of 100 needs 117.
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


def load_per_slot(arrival_rate: float, hold: float, slots: int) -> float:
    """Offered load per slot: in flight / slots (lesson 000's "utilization"; > 1: smaller than its load)."""
    check_int("slots", slots, 1)
    return in_flight(arrival_rate, hold) / slots


def headroom(arrival_rate: float, hold: float, slots: int) -> float:
    """How many times the expected in-flight count the pool holds: slots / in-flight."""
    check_int("slots", slots, 1)
    load = in_flight(arrival_rate, hold)
    return float("inf") if load == 0 else slots / load


# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/01_littles_law_sizing.ipynb, section 3. What a pool of c slots refuses: Erlang-B
def erlang_b(slots: int, offered: float) -> float:
    """The share of calls a pool of ``slots`` refuses, offered ``offered`` slots of Poisson load.

    Erlang's loss formula by its recurrence, stable for any pool: no slots refuse every call,
    B(0) = 1, and each slot more gives B(c) = a B(c-1) / (c + a B(c-1)).
    """
    check_int("slots", slots, 0)
    check_real("offered", offered, 0.0, float("inf"))
    b = 1.0
    for c in range(1, slots + 1):
        b = offered * b / (c + offered * b)
    return b


# <<< saved cells


def utilization(arrival_rate: float, hold: float, slots: int) -> float:
    """The share of a pool's slots busy on average, when a full pool refuses: a (1 - B) / c, at most 1."""
    check_int("slots", slots, 1)
    load = in_flight(arrival_rate, hold)
    return load * (1 - erlang_b(slots, load)) / slots


def erlang_c(slots: int, offered: float) -> float:
    """The share of calls that wait, when every caller waits for a slot (M/M/c: Erlang-C).

    From Erlang-B: C = c B / (c - a (1 - B)). At ``offered >= slots`` the queue never empties
    and every call waits: 1.
    """
    check_int("slots", slots, 1)
    check_real("offered", offered, 0.0, float("inf"))
    if offered >= slots:
        return 1.0
    b = erlang_b(slots, offered)
    return slots * b / (slots - offered * (1 - b))


def queue_blocking(slots: int, queue: int, offered: float) -> float:
    """The share of calls refused by ``slots`` running and ``queue`` waiting places (M/M/c/K, K = c + queue).

    The states past ``c`` fall by ``r = a / c`` each, so with Erlang-B's ``B`` for the first ``c``:
    P(K) = r^q / (1 / B + r + r^2 + ... + r^q). With no waiting places this is Erlang-B.
    """
    check_int("slots", slots, 1)
    check_int("queue", queue, 0)
    b = erlang_b(slots, offered)
    if b == 0.0:
        return 0.0
    r = offered / slots
    if r <= 1:
        return r**queue / (1 / b + sum(r**j for j in range(1, queue + 1)))
    return 1 / (r**-queue / b + sum(r ** (j - queue) for j in range(1, queue + 1)))  # no overflow


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

    20 calls/s x 0.1 s = 2 in flight; x 2.5 gives a limit of 5. A rule for small loads: the
    headroom a blocking target needs shrinks as the load grows (square-root staffing).
    """
    check_real("factor", factor, 1.0, 100.0)
    load = in_flight(arrival_rate, hold)
    return max(1, math.ceil(load * factor))
