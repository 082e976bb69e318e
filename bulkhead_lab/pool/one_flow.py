"""One flow alone in a pool of lesson 000's model: what pools of 1.. slots refuse, beside Erlang-B.

Notebook 01 reads Erlang-B (:mod:`bulkhead_lab.sizing`) against this seeded model. The model holds a
slot for whole rounds (100 a second), so Erlang-B is computed in its units, and once more for a hold
half a round shorter: the discrete rounds free a slot a little sooner than a continuous hold does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bulkhead_lab import sizing
from bulkhead_lab.pool.arrivals import EVENT
from bulkhead_lab.pool.params import CYCLE, Params
from bulkhead_lab.pool.sweep import compartment
from bulkhead_lab.validation import check_real

MAX_POOL = 64  # the largest pool a curve covers
MAX_TARGET_HEADROOM = 5.0  # the highest headroom a suggested limit is asked for


def one_flow_params(rate_per_s: float, hold_rounds: int, slots: int, cycle: float = CYCLE) -> Params:
    """The seeded model with one flow alone in a pool of ``slots``: the event flow, tracking rate 0.

    The tracking pool keeps one slot that nothing ever uses, so the event pool is exactly ``slots``.
    """
    return Params(
        split=1,
        total=slots + 1,
        tracking_rate=0.0,
        event_rate=rate_per_s,
        hold_event=hold_rounds,
        cycle=cycle,
    )


def simulated_blocking(rate_per_s: float, hold_rounds: int, slots: int) -> float:
    """The share of the one flow's arrivals the seeded model drops in a pool of ``slots`` (a compartment
    of the sweep: exactly ``run(one_flow_params(...))``'s event counters; every size shares one stream)."""
    c = compartment(one_flow_params(rate_per_s, hold_rounds, 1), EVENT, slots)
    arrivals = c.dropped + c.responses
    return c.dropped / arrivals if arrivals else 0.0


def hold_in_rounds(hold_s: float, cycle: float = CYCLE) -> int:
    """A hold in seconds as the model's whole rounds (at least one)."""
    check_real("hold", hold_s, 0.0, 60.0, low_open=True)
    return max(1, round(hold_s * cycle))


def pool_sizes_shown(in_flight: float, slots: int) -> int:
    """How many pool sizes a curve covers: past the pool and every limit the headroom slider can
    suggest, rounded up to 16, 32 or 64, so the axis rescales seldom (never when only the headroom moves)."""
    wanted = max(slots + 4, math.ceil(MAX_TARGET_HEADROOM * in_flight) + 2)
    return next(n for n in (16, 32, MAX_POOL) if n >= wanted or n == MAX_POOL)


@dataclass(frozen=True)
class Blocking:
    """What a pool of ``slots`` refuses: Erlang-B, Erlang-B for a hold half a round shorter, the model."""

    slots: int
    erlang_b: float
    erlang_b_half: float
    simulated: float


def blocking_curve(rate_per_s: float, hold_rounds: int, sizes: range) -> tuple[Blocking, ...]:
    """Each pool size's :class:`Blocking` for one flow of ``rate_per_s`` holding ``hold_rounds`` rounds."""
    per_round = rate_per_s / CYCLE
    return tuple(
        Blocking(
            n,
            sizing.erlang_b(n, per_round * hold_rounds),
            sizing.erlang_b(n, per_round * (hold_rounds - 0.5)),
            simulated_blocking(rate_per_s, hold_rounds, n),
        )
        for n in sizes
    )
