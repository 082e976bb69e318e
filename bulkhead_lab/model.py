"""Lesson 000's seeded discrete-round model of a slot pool, ported exactly.

A *round* is an abstract time step; ``cycle`` rounds make one second. Each round,
Poisson arrivals of two flows (``tracking`` and ``event``) are drawn from a seeded
MINSTD generator and shuffled; each arrival takes one *slot* from its pool for its
*hold* (in rounds) or is dropped when the pool is full. A *split* turns the one
shared pool into a bulkhead: ``split`` slots for tracking, the rest for events.

The arrival stream depends only on the seed, the two rates, ``cycle`` and the
number of rounds, never on the layout or the holds, so it is drawn once
(:func:`arrival_stream`, cached) and replayed by :func:`run` for every layout.
That is what makes a slider move cheap.

The model is pure: no I/O, no plotting, no widgets.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import compress
from operator import mul

from .validation import check_int, check_params

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

MODULUS = 2147483647  # 2**31 - 1, the MINSTD modulus
MULTIPLIER = 48271  # MINSTD's multiplier

TRACKING, EVENT = 0, 1  # flow codes in the arrival stream
FLOWS = ("tracking", "event")
MODES = ("healthy", "slowdown")


@dataclass(frozen=True)
class Params:
    """Every knob of one run; the defaults are lesson 000's.

    ``split`` is the tracking pool's size (the event pool gets ``total - split``);
    ``None`` means one shared pool of ``total`` slots.
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

    def with_(self, **changes: object) -> Params:
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
    """Busy slots per pool at the end of each round (after that round's admissions).

    For a single pool ``event`` is ``None`` and ``tracking`` holds the shared pool.
    """

    tracking: tuple[int, ...]
    event: tuple[int, ...] | None


def arrival_stream(params: Params) -> ArrivalStream:
    """The seeded arrivals for these parameters (cached on what they depend on)."""
    return _draw_stream(*params.stream_key)


@lru_cache(maxsize=16)
def _draw_stream(
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
    """One run plus each pool's busy slots per round, for the step-through diagram."""
    counters, occupancy = _simulate(params, stream, trace=True)
    assert occupancy is not None
    return counters, occupancy


def _simulate(params: Params, stream: ArrivalStream | None, trace: bool) -> tuple[Counters, Occupancy | None]:
    if stream is None:
        stream = arrival_stream(params)
    elif stream.rounds != params.rounds:
        raise ValueError(f"stream has {stream.rounds} rounds but params.rounds is {params.rounds}")
    if params.split is None:
        return _run_single(params, stream, trace)
    return _run_bulkhead(params, stream, trace)


def _event_holds(params: Params) -> tuple[int, int, int]:
    """(hold before the failure round, hold from it on, failure round)."""
    slow = params.mode == "slowdown"
    return params.hold_event, (params.slow if slow else params.hold_event), params.start


def _run_single(params: Params, stream: ArrivalStream, trace: bool) -> tuple[Counters, Occupancy | None]:
    # Every slot leaves the pool exactly at its end round, so "filter x > t" is
    # "subtract what ends at t": one counter per future round instead of a list.
    rounds = params.rounds
    cap = params.total
    ht = params.hold_tracking
    he_before, he_after, start = _event_holds(params)
    ends = [0] * (rounds + 1)
    busy = busy_rounds = 0
    t_resp = t_drop = e_resp = e_drop = 0
    order, n_tracking, n_event = stream.order, stream.tracking, stream.event
    seen: list[int] | None = [] if trace else None
    for t in range(rounds):
        busy -= ends[t]
        busy_rounds += busy
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
        if seen is not None:
            seen.append(busy)
    counters = Counters(t_resp, t_drop, e_resp, e_drop, 0, busy_rounds)
    return counters, (Occupancy(tuple(seen), None) if seen is not None else None)


def _run_bulkhead(params: Params, stream: ArrivalStream, trace: bool) -> tuple[Counters, Occupancy | None]:
    rounds = params.rounds
    assert params.split is not None
    cap_t = params.split
    cap_e = params.total - params.split
    ht = params.hold_tracking
    he_before, he_after, start = _event_holds(params)
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
        if seen_t is not None:
            seen_t.append(busy_t)
            seen_e.append(busy_e)
    counters = Counters(t_resp, t_drop, e_resp, e_drop, idle, busy_rounds)
    occupancy = Occupancy(tuple(seen_t), tuple(seen_e)) if seen_t is not None else None
    return counters, occupancy


# --- a split sweep, one compartment at a time ------------------------------------------
#
# Under a split the two compartments share nothing but the `idle` counter: the tracking
# compartment of k slots admits and drops the same requests whatever the event hold or
# the day, and the event compartment of m slots whatever the tracking hold. So a sweep
# over every split runs each flow alone once per compartment size (a cheap loop, no
# shuffled order) and joins the pairs. `idle` is the one counter that needs both: each
# rejection adds the other compartment's free slots at that moment in the shuffled order.
# Per round, with ft/fe each compartment's free slots at the round's start and EB[i] the
# events shuffled before the i-th tracking arrival, the tracking rejections (i >= ft) add
# sum(max(fe - EB[i], 0)). Unclipped that is refused_t * fe - sum(EB[i] for i >= ft): a
# product of the two compartments' per-round numbers minus a term of the tracking
# compartment alone (kept in its `offset`); likewise for event rejections. The clip
# matters only if some EB[i] > fe, which needs more events than fe, so only in rounds
# where both compartments refuse someone; there the overshoot is added back exactly.


@dataclass(frozen=True)
class RoundOrder:
    """Per round, where each flow's arrivals fall among the other's in the shuffled order.

    ``before[f][t][i]`` counts the other flow's arrivals shuffled before flow ``f``'s
    ``i``-th arrival in round ``t``; ``after[f][t][k]`` is ``sum(before[f][t][k:])``.
    """

    before: tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]
    after: tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]


_ORDERS: dict[int, tuple[ArrivalStream, RoundOrder]] = {}


def round_order(stream: ArrivalStream) -> RoundOrder:
    """The stream's :class:`RoundOrder`, computed once per stream (kept for the last few)."""
    hit = _ORDERS.get(id(stream))
    if hit is not None and hit[0] is stream:
        return hit[1]
    before: tuple[list[tuple[int, ...]], list[tuple[int, ...]]] = ([], [])
    after: tuple[list[tuple[int, ...]], list[tuple[int, ...]]] = ([], [])
    for arrivals in stream.order:
        seen = [[], []]  # per flow: the other flow's count before each of its arrivals
        counts = [0, 0]
        for flow in arrivals:
            seen[flow].append(counts[1 - flow])
            counts[flow] += 1
        for flow in (TRACKING, EVENT):
            b = seen[flow]
            sums = [0] * (len(b) + 1)
            for i in range(len(b) - 1, -1, -1):
                sums[i] = sums[i + 1] + b[i]
            before[flow].append(tuple(b))
            after[flow].append(tuple(sums))
    result = RoundOrder(
        (tuple(before[TRACKING]), tuple(before[EVENT])), (tuple(after[TRACKING]), tuple(after[EVENT]))
    )
    if len(_ORDERS) >= 4:
        _ORDERS.pop(next(iter(_ORDERS)))
    _ORDERS[id(stream)] = (stream, result)
    return result


@dataclass(frozen=True)
class Compartment:
    """One flow alone in a compartment of ``slots`` slots: its half of a split's run.

    ``free[t]`` is the compartment's free slots at round ``t``'s start and ``refused[t]``
    the arrivals it turned away in that round; ``offset`` is this compartment's own part
    of the idle sum (see the comment above :class:`RoundOrder`).
    """

    flow: int
    slots: int
    responses: int
    dropped: int
    busy_rounds: int
    free: tuple[int, ...]
    refused: tuple[int, ...]
    drop_rounds: tuple[int, ...]  # rounds with a refusal, in order
    offset: int


def compartment(params: Params, flow: int, slots: int, *, stream: ArrivalStream | None = None) -> Compartment:
    """Run ``flow`` (TRACKING or EVENT) alone in ``slots`` slots with ``params``' holds and day.

    The tracking compartment reads only ``hold_tracking``; the event compartment reads
    ``hold_event`` and, on the slowdown day, ``slow`` from round ``start`` on.
    """
    if stream is None:
        stream = arrival_stream(params)
    elif stream.rounds != params.rounds:
        raise ValueError(f"stream has {stream.rounds} rounds but params.rounds is {params.rounds}")
    check_int("flow", flow, TRACKING, EVENT)
    slots = check_int("slots", slots, 0)
    rounds = params.rounds
    if flow == TRACKING:
        counts = stream.tracking
        hold_before = hold_after = params.hold_tracking
        start = rounds
    else:
        counts = stream.event
        hold_before, hold_after, start = _event_holds(params)
    after = round_order(stream).after[flow]
    ends = [0] * (2 * rounds + 1)  # a slot held past the last round simply never frees
    free_at = [0] * rounds
    refused = [0] * rounds
    drop_rounds: list[int] = []
    free = slots  # tracked instead of busy: one subtraction less per round
    dropped = offset = 0
    switch = min(start, rounds)
    for first, last, hold in ((0, switch, hold_before), (switch, rounds, hold_after)):
        hold = min(hold, rounds)
        for t in range(first, last):
            free += ends[t]
            free_at[t] = free
            n = counts[t]
            if n > free:
                refused[t] = n - free
                dropped += n - free
                drop_rounds.append(t)
                offset += after[t][free]
                n = free
            free -= n
            ends[t + hold] += n
    return Compartment(
        flow=flow,
        slots=slots,
        responses=sum(counts) - dropped,
        dropped=dropped,
        busy_rounds=rounds * slots - sum(free_at),
        free=tuple(free_at),
        refused=tuple(refused),
        drop_rounds=tuple(drop_rounds),
        offset=offset,
    )


def join(tracking: Compartment, event: Compartment, stream: ArrivalStream) -> Counters:
    """The six counters of the split whose compartments are ``tracking`` and ``event``.

    Equal to :func:`run` for that split: drops, responses and busy slot-rounds add up;
    ``idle`` is rebuilt from both compartments' free slots as described above.
    """
    if tracking.flow != TRACKING or event.flow != EVENT:
        raise ValueError("join needs a tracking compartment and an event compartment, in that order")
    if not len(tracking.free) == len(event.free) == stream.rounds:
        raise ValueError(
            f"join needs both compartments run over the stream's {stream.rounds} rounds "
            f"(got {len(tracking.free)} and {len(event.free)})"
        )
    free_t, free_e = tracking.free, event.free
    ref_t, ref_e = tracking.refused, event.refused
    idle = -tracking.offset - event.offset
    for own, other, rounds in ((ref_t, free_e, tracking.drop_rounds), (ref_e, free_t, event.drop_rounds)):
        if 4 * len(rounds) > len(own):  # many refusals: one pass over every round is cheaper
            idle += sum(map(mul, own, other))
        else:
            idle += sum(map(mul, map(own.__getitem__, rounds), map(other.__getitem__, rounds)))
    fewer, other_refused = (
        (tracking.drop_rounds, ref_e)
        if len(tracking.drop_rounds) <= len(event.drop_rounds)
        else (event.drop_rounds, ref_t)
    )
    both = list(compress(fewer, map(other_refused.__getitem__, fewer)))  # rounds where both refuse
    if both:
        order = round_order(stream)
        eb, tb = order.before
        seb, stb = order.after
        for t in both:
            ft, fe = free_t[t], free_e[t]
            if eb[t][-1] > fe:
                idle += _overshoot(eb[t], seb[t], ft, fe)
            if tb[t][-1] > ft:
                idle += _overshoot(tb[t], stb[t], fe, ft)
    return Counters(
        tracking_responses=tracking.responses,
        tracking_dropped=tracking.dropped,
        event_responses=event.responses,
        event_dropped=event.dropped,
        idle=idle,
        busy_rounds=tracking.busy_rounds + event.busy_rounds,
    )


def _overshoot(before: tuple[int, ...], after: tuple[int, ...], own_free: int, other_free: int) -> int:
    # What the unclipped guess undercounts: sum(before[i] - other_free) over the refused
    # arrivals (i >= own_free) that came after the other compartment had filled
    # (before[i] > other_free). `before` never decreases, so they are a tail.
    first = max(own_free, bisect_right(before, other_free))
    return after[first] - (len(before) - first) * other_free


def split_sweep(
    params: Params = Params(), splits: Iterable[int] | None = None, *, stream: ArrivalStream | None = None
) -> dict[int, Counters]:
    """``run()``'s counters for every split in ``splits`` (default 1..total-1) on ``params``' day.

    Exactly ``{s: run(params.with_(split=s)) for s in splits}``, built as each split's
    :func:`compartment` runs joined by :func:`join`. Alone it costs about what those runs
    cost; the gain is for a caller that memoises the compartments on what they read
    (``bulkhead_lab.views`` does), since a hold or day changes only one side of every split.
    """
    if stream is None:
        stream = arrival_stream(params)
    chosen = list(range(1, params.total)) if splits is None else list(splits)
    for s in chosen:
        check_int("split", s, 1, params.total - 1)
    result = {}
    for s in chosen:
        t = compartment(params, TRACKING, s, stream=stream)
        e = compartment(params, EVENT, params.total - s, stream=stream)
        result[s] = join(t, e, stream)
    return result
