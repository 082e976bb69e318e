"""Lesson 000's seeded arrivals: two Poisson flows per round, shuffled, from one MINSTD generator.

Each round, the number of tracking and of event arrivals are drawn (Knuth's Poisson draw),
then the round's arrivals are shuffled (Fisher-Yates, from the top down), all from one
MINSTD generator seeded with the lesson's seed, in exactly the lesson's order of draws.

The stream depends only on the seed, the two rates, ``cycle`` and the number of rounds,
never on the split or the holds, so it is drawn once (:func:`stream`, memoised) and
replayed for every split: that is what makes a slider move cheap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bulkhead_lab.memo import Memo

if TYPE_CHECKING:
    from bulkhead_lab.pool.params import Params

TRACKING, EVENT = 0, 1  # flow codes in the arrival stream
MODULUS = 2147483647  # 2**31 - 1, the MINSTD modulus (a seed that is a multiple of it is stuck at 0)
MULTIPLIER = 48271  # MINSTD's multiplier
STREAM_BUDGET = 4_000_000  # arrivals + rounds kept over all memoised streams (the lesson's: ~24,000)


@dataclass(frozen=True)
class ArrivalStream:
    """Each round's arrivals in the order the shuffle left them.

    ``order[t]`` is a tuple of flow codes for round ``t``; ``tracking[t]`` and
    ``event[t]`` count them, so the common case (no drop) never reads the order.
    """

    order: tuple[tuple[int, ...], ...]
    tracking: tuple[int, ...]
    event: tuple[int, ...]

    @property
    def rounds(self) -> int:
        return len(self.order)

    @property
    def weight(self) -> int:
        """What keeping it costs, in a memo's budget: its rounds plus its arrivals."""
        return self.rounds + sum(self.tracking) + sum(self.event)


def arrival_stream(params: Params) -> ArrivalStream:
    """The seeded arrivals for these parameters, drawn afresh (:func:`stream` keeps them)."""
    return draw_stream(*params.stream_key)


def draw_stream(
    seed: int, tracking_rate: float, event_rate: float, cycle: float, rounds: int
) -> ArrivalStream:
    """The stream for these knobs, drawn in exactly the lesson's order: tracking's Poisson, event's
    Poisson, then the Fisher-Yates shuffle from the top down, all from one MINSTD generator."""
    # In floats, as the lesson's JavaScript computes it: every state is an integer below 2**31
    # and every product below 2**47, so the multiplication and the remainder are exact.
    modulus, multiplier, floor = float(MODULUS), float(MULTIPLIER), math.floor
    s = float(seed % MODULUS)
    limit_t = math.exp(-(tracking_rate / cycle))
    limit_e = math.exp(-(event_rate / cycle))
    order: list[tuple[int, ...]] = []
    n_tracking: list[int] = []
    n_event: list[int] = []
    for _ in range(rounds):
        counts = []
        for limit in (limit_t, limit_e):  # tracking's count, then event's
            k = 0
            p = 1.0
            while True:  # Knuth's Poisson draw (do ... while p > L)
                k += 1
                s = (s * multiplier) % modulus
                p *= s / modulus
                if not p > limit:
                    break
            counts.append(k - 1)
        nt, ne = counts
        arrivals = [TRACKING] * nt + [EVENT] * ne
        for i in range(nt + ne - 1, 0, -1):
            s = (s * multiplier) % modulus
            j = floor(s / modulus * (i + 1))
            arrivals[i], arrivals[j] = arrivals[j], arrivals[i]
        order.append(tuple(arrivals))
        n_tracking.append(nt)
        n_event.append(ne)
    return ArrivalStream(tuple(order), tuple(n_tracking), tuple(n_event))


_streams: Memo[tuple, ArrivalStream] = Memo("streams", 16, budget=STREAM_BUDGET, weigh=lambda s: s.weight)


def stream(params: Params) -> ArrivalStream:
    """The seeded arrival stream for ``params``, drawn once per seed, rates, cycle and rounds."""
    return _streams.get(params.stream_key, lambda: arrival_stream(params))
