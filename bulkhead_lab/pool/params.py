"""Lesson 000's knobs, named once, and the six counters a run ends with.

A *round* is an abstract time step; ``cycle`` rounds make one second. Two flows
(``tracking`` and ``event``) send Poisson arrivals (:mod:`bulkhead_lab.pool.arrivals`); each
arrival takes one *slot* for its *hold* (in rounds) or is dropped when there is none
(:mod:`bulkhead_lab.pool.rounds`). The *split* says how the ``total`` slots are laid out:
``None`` is one shared pool, an integer ``n`` the bulkhead ``n/(total - n)`` (``n`` slots for
tracking, the rest for events). On the *slowdown* day the event hold is ``slow`` from round
``start`` on.

Each knob's allowed range is checked here, once (:func:`check_params`), with one line
naming the knob; :func:`canonical` sets the knobs a run does not read to the lesson's, so
equal runs share one memo key.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Literal

from bulkhead_lab.pool.arrivals import MODULUS
from bulkhead_lab.validation import check_choice, check_int, check_real, fail, is_int

# Lesson 000's constants, with where the lesson says they come from.
TOTAL = 32  # AY2: the gateway's slot pool
CYCLE = 100  # rounds per second
ROUNDS = 4000  # a 40 s run
START = 1000  # AY1: the failure starts at second 10
TRACKING_RATE = 416.67  # K01: peak read req/s
EVENT_RATE = 97.22  # K01: peak write req/s
HOLD_TRACKING = 4  # lesson 01: gateway leg durations, in rounds
HOLD_EVENT = 6
SLOW = 22  # the event hold while carrier validation is slow
SEED = 20260801
LESSON_SPLIT = 24  # the lesson's bulkhead: 24 tracking / 8 event

MAX_SEED = 2**53 - 1  # the seed must stay exact as a JavaScript number
MAX_ROUNDS = 1_000_000  # ~2.8 model hours at 100 rounds/s; bounds memory and time
MAX_ARRIVALS_PER_ROUND = 100.0  # per flow: Knuth's Poisson draw costs O(mean) per round

Mode = Literal["healthy", "slowdown"]
MODES: tuple[Mode, ...] = ("healthy", "slowdown")
SINGLE_POOL_LABEL = "single pool"  # how the split None (one shared pool) is written


def split_label(split: int | None, total: int = TOTAL) -> str:
    """'single pool (32)' or '24/8', as the lesson's sizing table writes a split."""
    return f"{SINGLE_POOL_LABEL} ({total})" if split is None else f"{split}/{total - split}"


@dataclass(frozen=True)
class Params:
    """Every knob of one run; the defaults are lesson 000's.

    ``split`` is the tracking compartment's size (the event compartment gets ``total - split``);
    ``None`` means one shared pool of ``total`` slots (the only spelling of it in the model).
    """

    split: int | None = None
    mode: Mode = "healthy"
    seed: int = SEED
    total: int = TOTAL
    rounds: int = ROUNDS
    start: int = START
    cycle: float = CYCLE
    tracking_rate: float = TRACKING_RATE
    event_rate: float = EVENT_RATE
    hold_tracking: int = HOLD_TRACKING
    hold_event: int = HOLD_EVENT
    slow: int = SLOW

    def __post_init__(self) -> None:
        check_params(self)

    def with_(self, **changes: Any) -> Params:
        """A copy with some fields changed (and checked again)."""
        return replace(self, **changes)

    @property
    def stream_key(self) -> tuple[int, float, float, float, int]:
        """What the arrival stream depends on, and nothing else."""
        return (self.seed, self.tracking_rate, self.event_rate, self.cycle, self.rounds)


@dataclass(frozen=True)
class Counters:
    """The six counters of lesson 000's ``run()``, as plain data."""

    tracking_responses: int
    tracking_dropped: int
    event_responses: int
    event_dropped: int
    idle: int  # free slots in the *other* compartment, summed over every refusal
    busy_rounds: int  # busy slots summed over rounds (slot-rounds)

    def as_dict(self) -> dict[str, int]:
        """The counters under their snake_case names, in the lesson's order."""
        return {name: getattr(self, name) for name in COUNTER_NAMES}


COUNTER_NAMES = (
    "tracking_responses",
    "tracking_dropped",
    "event_responses",
    "event_dropped",
    "idle",
    "busy_rounds",
)


def check_params(p: Params) -> None:
    """Refuse a parameter set the lesson's model cannot run as written (one line, the first bad one)."""
    total = check_int("total", p.total, 2)
    if p.split is not None:
        check_int("split", p.split, 1, total - 1)
    rounds = check_int("rounds", p.rounds, 1, MAX_ROUNDS)
    check_int("start", p.start, 0, rounds)
    check_int("hold_tracking", p.hold_tracking, 1)
    check_int("hold_event", p.hold_event, 1)
    check_int("slow", p.slow, 1)
    check_choice("mode", p.mode, MODES)
    cycle = check_real("cycle", p.cycle, 0.0, 1e9, low_open=True)
    # A rate's top follows the cycle (at most MAX_ARRIVALS_PER_ROUND a round). When the
    # cycle was changed, a rate over that top is the cycle's doing: say so, naming the cycle.
    top = MAX_ARRIVALS_PER_ROUND * cycle
    for name, rate in (("tracking_rate", p.tracking_rate), ("event_rate", p.event_rate)):
        if cycle != CYCLE and isinstance(rate, (int, float)) and math.isfinite(rate) and rate > top:
            least = rate / MAX_ARRIVALS_PER_ROUND
            raise fail(
                "cycle",
                p.cycle,
                f"a number >= {least:g} rounds/s for {name} {rate:g}/s "
                f"(at most {MAX_ARRIVALS_PER_ROUND:g} arrivals a round)",
            )
        check_real(name, rate, 0.0, top)
    if not is_int(p.seed) or not 1 <= p.seed <= MAX_SEED or p.seed % MODULUS == 0:
        raise fail("seed", p.seed, f"an integer in 1..{MAX_SEED} that is not a multiple of {MODULUS}")


def event_holds(params: Params, stop: int | None = None) -> list[int]:
    """The event hold of a call admitted in each round: ``slow`` from ``start`` until ``stop``
    (``None``: the end) on the slowdown day, ``hold_event`` otherwise."""
    rounds, hold, start = params.rounds, params.hold_event, params.start
    slow = params.slow if params.mode == "slowdown" else hold
    stop = rounds if stop is None else stop
    return [hold] * start + [slow] * (stop - start) + [hold] * (rounds - stop)


def canonical(params: Params) -> Params:
    """``params`` with the knobs its run does not read set to the lesson's, so equal runs share a key.

    A healthy day never reads the slowdown hold or the failure round.
    """
    if params.mode == "healthy":
        return params.with_(slow=SLOW, start=min(START, params.rounds))
    return params
