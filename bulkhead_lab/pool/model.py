"""Lesson 000's seeded discrete-round model of a slot pool, ported exactly.

A *round* is an abstract time step; ``cycle`` rounds make one second. Each round,
Poisson arrivals of two flows (``tracking`` and ``event``) are drawn from a seeded
MINSTD generator and shuffled; each arrival takes one *slot* from its pool for its
*hold* (in rounds) or is dropped when the pool is full. A *split* turns the one
shared pool into a bulkhead: ``split`` slots for tracking, the rest for events.

The arrival stream depends only on the seed, the two rates, ``cycle`` and the
number of rounds, never on the layout or the holds, so it can be drawn once
(:func:`arrival_stream`) and replayed by :func:`run` for every layout; the memo that
keeps it between calls is :func:`bulkhead_lab.cache.stream`. That is what makes a
slider move cheap.

The model is pure: no I/O, no plotting, no widgets, no cache of its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from bulkhead_lab.validation import check_choice, check_int, check_real, fail, is_int

# Lesson 000's constants, named once, with where the lesson says they come from.
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

MODULUS = 2147483647  # 2**31 - 1, the MINSTD modulus (a seed that is a multiple of it is stuck at 0)
MULTIPLIER = 48271  # MINSTD's multiplier
MAX_SEED = 2**53 - 1  # the seed must stay exact as a JavaScript number
MAX_ROUNDS = 1_000_000  # ~2.8 model hours at 100 rounds/s; bounds memory and time
MAX_ARRIVALS_PER_ROUND = 100.0  # per flow: Knuth's Poisson draw costs O(mean) per round

TRACKING, EVENT = 0, 1  # flow codes in the arrival stream
FLOWS = ("tracking", "event")
MODES = ("healthy", "slowdown")
SINGLE_POOL_LABEL = "single pool"  # how a layout of one shared pool (split None) is written


def split_label(split: int | None, total: int = TOTAL) -> str:
    """'single pool (32)' or '24/8', as the lesson's sizing table writes a layout."""
    return f"{SINGLE_POOL_LABEL} ({total})" if split is None else f"{split}/{total - split}"


@dataclass(frozen=True)
class Params:
    """Every knob of one run; the defaults are lesson 000's.

    ``split`` is the tracking pool's size (the event pool gets ``total - split``);
    ``None`` means one shared pool of ``total`` slots (the only spelling of it in the model).
    """

    split: int | None = None
    mode: str = "healthy"
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
    idle: int  # idle slots in the *other* pool, summed over every rejection
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


@dataclass(frozen=True)
class Occupancy:
    """Busy slots per flow at the start of each round: after that round's frees, before its arrivals.

    That is the moment the lesson counts its ``busyRounds`` (so ``sum(busy)`` equals the
    counter, and a mean over the whole run is the lesson's "average busy slots"), and the
    moment each arrival of the round finds: a pool full then refuses the whole round.
    ``tracking[t]`` and ``event[t]`` are the slots each flow holds; ``shared`` says whether
    they are two shares of one pool of ``total`` (the single pool) or two compartments.
    """

    tracking: tuple[int, ...]
    event: tuple[int, ...]
    shared: bool

    @property
    def busy(self) -> tuple[int, ...]:
        """Both flows' busy slots per round (the single pool's whole occupancy)."""
        return tuple(map(sum, zip(self.tracking, self.event, strict=True)))


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


def arrival_stream(params: Params) -> ArrivalStream:
    """The seeded arrivals for these parameters, drawn afresh (``cache.stream`` keeps them)."""
    return draw_stream(*params.stream_key)


def draw_stream(
    seed: int, tracking_rate: float, event_rate: float, cycle: float, rounds: int
) -> ArrivalStream:
    # Draws in exactly the lesson's order: tracking's Poisson, event's Poisson, then
    # the Fisher-Yates shuffle from the top down, all from one MINSTD generator.
    s = seed % MODULUS
    lam_t = tracking_rate / cycle
    lam_e = event_rate / cycle
    limit_t = math.exp(-lam_t)
    limit_e = math.exp(-lam_e)
    order: list[tuple[int, ...]] = []
    n_tracking: list[int] = []
    n_event: list[int] = []
    for _ in range(rounds):
        k = 0
        p = 1.0
        while True:  # Knuth's Poisson draw (do ... while p > L)
            k += 1
            s = (s * MULTIPLIER) % MODULUS
            p *= s / MODULUS
            if not p > limit_t:
                break
        nt = k - 1
        k = 0
        p = 1.0
        while True:
            k += 1
            s = (s * MULTIPLIER) % MODULUS
            p *= s / MODULUS
            if not p > limit_e:
                break
        ne = k - 1
        arrivals = [TRACKING] * nt + [EVENT] * ne
        for i in range(nt + ne - 1, 0, -1):
            s = (s * MULTIPLIER) % MODULUS
            j = math.floor(s / MODULUS * (i + 1))
            arrivals[i], arrivals[j] = arrivals[j], arrivals[i]
        order.append(tuple(arrivals))
        n_tracking.append(nt)
        n_event.append(ne)
    return ArrivalStream(tuple(order), tuple(n_tracking), tuple(n_event))


def run(params: Params = Params(), *, stream: ArrivalStream | None = None) -> Counters:
    """One run of the lesson's model: the six counters."""
    return _simulate(params, stream, trace=False)[0]


def run_with_occupancy(
    params: Params = Params(), *, stream: ArrivalStream | None = None
) -> tuple[Counters, Occupancy]:
    """One run plus each flow's busy slots at the start of every round (the step-through's picture)."""
    counters, occupancy = _simulate(params, stream, trace=True)
    assert occupancy is not None
    return counters, occupancy


def _simulate(params: Params, stream: ArrivalStream | None, trace: bool) -> tuple[Counters, Occupancy | None]:
    if stream is None:
        stream = arrival_stream(params)
    if stream.rounds != params.rounds:
        raise ValueError(f"stream has {stream.rounds} rounds but params.rounds is {params.rounds}")
    if params.split is None:
        return _run_single(params, stream, trace)
    return _run_bulkhead(params, stream, trace)


def event_holds(params: Params) -> tuple[int, int, int]:
    """(hold before the failure round, hold from it on, failure round)."""
    slow = params.mode == "slowdown"
    return params.hold_event, (params.slow if slow else params.hold_event), params.start


def _run_single(params: Params, stream: ArrivalStream, trace: bool) -> tuple[Counters, Occupancy | None]:
    # Every slot leaves the pool exactly at its end round, so "filter x > t" is
    # "subtract what ends at t": one counter per future round instead of a list.
    rounds = params.rounds
    cap = params.total
    ht = params.hold_tracking
    he_before, he_after, start = event_holds(params)
    ends = [0] * (rounds + 1)
    busy = busy_rounds = 0
    t_resp = t_drop = e_resp = e_drop = 0
    order, n_tracking, n_event = stream.order, stream.tracking, stream.event
    # Traced, tracking's ends are counted apart too, to tell whose slots the shared pool holds.
    seen_t: list[int] | None = [] if trace else None
    seen_e: list[int] = []
    ends_t = [0] * (rounds + 1) if trace else []
    busy_t = 0
    for t in range(rounds):
        busy -= ends[t]
        busy_rounds += busy
        if seen_t is not None:
            busy_t -= ends_t[t]
            seen_t.append(busy_t)
            seen_e.append(busy - busy_t)
        nt = n_tracking[t]
        ne = n_event[t]
        he = he_after if t >= start else he_before
        free = cap - busy
        if nt + ne <= free:
            at, ae = nt, ne
        else:  # the first `free` arrivals in shuffled order get a slot
            at = order[t][:free].count(TRACKING)
            ae = free - at
        t_resp += at
        e_resp += ae
        t_drop += nt - at
        e_drop += ne - ae
        busy += at + ae
        if t + ht < rounds:
            ends[t + ht] += at
        if t + he < rounds:
            ends[t + he] += ae
        if seen_t is not None:
            busy_t += at
            if t + ht < rounds:
                ends_t[t + ht] += at
    counters = Counters(t_resp, t_drop, e_resp, e_drop, 0, busy_rounds)
    occupancy = Occupancy(tuple(seen_t), tuple(seen_e), shared=True) if seen_t is not None else None
    return counters, occupancy


def _run_bulkhead(params: Params, stream: ArrivalStream, trace: bool) -> tuple[Counters, Occupancy | None]:
    rounds = params.rounds
    assert params.split is not None
    cap_t = params.split
    cap_e = params.total - params.split
    ht = params.hold_tracking
    he_before, he_after, start = event_holds(params)
    ends_t = [0] * (rounds + 1)
    ends_e = [0] * (rounds + 1)
    busy_t = busy_e = busy_rounds = idle = 0
    t_resp = t_drop = e_resp = e_drop = 0
    order, n_tracking, n_event = stream.order, stream.tracking, stream.event
    seen_t: list[int] | None = [] if trace else None
    seen_e: list[int] = []
    for t in range(rounds):
        busy_t -= ends_t[t]
        busy_e -= ends_e[t]
        busy_rounds += busy_t + busy_e
        if seen_t is not None:
            seen_t.append(busy_t)
            seen_e.append(busy_e)
        nt = n_tracking[t]
        ne = n_event[t]
        free_t = cap_t - busy_t
        free_e = cap_e - busy_e
        at = nt if nt < free_t else free_t
        ae = ne if ne < free_e else free_e
        if at < nt or ae < ne:
            # A rejection counts the other pool's idle slots at that moment, which
            # depends on where it falls in the shuffled order: walk this round.
            ft, fe = free_t, free_e
            for flow in order[t]:
                if flow == TRACKING:
                    if ft:
                        ft -= 1
                    else:
                        idle += fe
                elif fe:
                    fe -= 1
                else:
                    idle += ft
        he = he_after if t >= start else he_before
        t_resp += at
        e_resp += ae
        t_drop += nt - at
        e_drop += ne - ae
        busy_t += at
        busy_e += ae
        if t + ht < rounds:
            ends_t[t + ht] += at
        if t + he < rounds:
            ends_e[t + he] += ae
    counters = Counters(t_resp, t_drop, e_resp, e_drop, idle, busy_rounds)
    occupancy = Occupancy(tuple(seen_t), tuple(seen_e), shared=False) if seen_t is not None else None
    return counters, occupancy
