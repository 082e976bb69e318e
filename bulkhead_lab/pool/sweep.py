"""A split sweep, one compartment at a time: every split's exact counters, fast.

A slider over the holds in notebook 02 redraws every split 1..31 on both days; running
the whole model 62 times is too slow for a slider. Under a split the two compartments
share nothing but the ``idle`` counter, so each flow is run alone per compartment size
(memoised on only what it depends on) and each pair is joined back into the six counters
of :func:`bulkhead_lab.pool.rounds.run`, exactly (``tests/test_sweep.py`` checks that).

Why this module keeps its own round loop instead of :func:`bulkhead_lab.pool.rounds.play_round`:
a compartment holds one flow, so its round is a few integer operations on local names, with
no shuffled order to walk (the ``idle`` counter is rebuilt afterwards from the compartments'
free slots); both compartments of 24/8 on the slowdown day cost 11.9 million instructions
(valgrind) against 33.3 million for the shared step's run of that split, and a hold or day
slider reruns only one side of each split. Measured as ``benchmarks/bench_views.py`` moves
notebook 02's trade-off panel to new values (median kernel time, one machine): hold_event
107 ms with this sweep against 495 ms with every split run by the shared step, hold_tracking
187 against 596 ms, slow 127 against 307 ms. ``tests/test_sweep.py`` pins that both give the
same counters.

Its memos (the compartments, each stream's :class:`RoundOrder`, the sweeps) are declared
here; the module is kept apart from the model so ``reproduce`` does not pay for it at start-up.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import compress
from operator import mul

from bulkhead_lab.memo import ROUNDS_BUDGET, Memo
from bulkhead_lab.pool import arrivals
from bulkhead_lab.pool.arrivals import EVENT, STREAM_BUDGET, TRACKING, ArrivalStream
from bulkhead_lab.pool.params import HOLD_EVENT, HOLD_TRACKING, SLOW, START, Counters, Params, canonical

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


def round_order(stream: ArrivalStream) -> RoundOrder:
    """The stream's :class:`RoundOrder`, computed afresh (:func:`stream_order` keeps it per stream)."""
    before: tuple[list[tuple[int, ...]], list[tuple[int, ...]]] = ([], [])
    after: tuple[list[tuple[int, ...]], list[tuple[int, ...]]] = ([], [])
    for shuffled in stream.order:
        seen: list[list[int]] = [[], []]  # per flow: the other flow's count before each of its arrivals
        counts = [0, 0]
        for flow in shuffled:
            seen[flow].append(counts[1 - flow])
            counts[flow] += 1
        for flow in (TRACKING, EVENT):
            b = seen[flow]
            sums = [0] * (len(b) + 1)
            for i in range(len(b) - 1, -1, -1):
                sums[i] = sums[i + 1] + b[i]
            before[flow].append(tuple(b))
            after[flow].append(tuple(sums))
    return RoundOrder(
        (tuple(before[TRACKING]), tuple(before[EVENT])), (tuple(after[TRACKING]), tuple(after[EVENT]))
    )


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


def run_compartment(
    params: Params, flow: int, slots: int, stream: ArrivalStream, order: RoundOrder
) -> Compartment:
    """Run ``flow`` (TRACKING or EVENT) alone in ``slots`` slots with ``params``' holds and day.

    The tracking compartment reads only ``hold_tracking``; the event compartment reads
    ``hold_event`` and, on the slowdown day, ``slow`` from round ``start`` on. ``order``
    is ``round_order(stream)``.
    """
    rounds = params.rounds
    if flow == TRACKING:
        counts = stream.tracking
        hold_before = hold_after = params.hold_tracking
        start = rounds
    else:
        counts = stream.event
        hold_before, start = params.hold_event, params.start
        hold_after = params.slow if params.mode == "slowdown" else hold_before
    after = order.after[flow]
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


def join(tracking: Compartment, event: Compartment, order: RoundOrder) -> Counters:
    """The six counters of the split whose compartments are ``tracking`` and ``event``.

    Equal to :func:`run` for that split: drops, responses and busy slot-rounds add up;
    ``idle`` is rebuilt from both compartments' free slots as described above.
    """
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


# --- the memos the sliders replay from -----------------------------------------------------


def _order_weight(o: RoundOrder) -> int:
    return sum(len(b) for flow in o.before for b in flow) + len(o.before[TRACKING])


_round_orders: Memo[tuple, RoundOrder] = Memo("round_orders", 4, budget=STREAM_BUDGET, weigh=_order_weight)
_compartments: Memo[tuple, Compartment] = Memo(
    "compartments", 160, budget=ROUNDS_BUDGET, weigh=lambda c: 2 * len(c.free)
)
_sweeps: Memo[Params, tuple[Counters, ...]] = Memo("sweeps", 32)


def stream_order(params: Params) -> RoundOrder:
    """The memoised stream's :class:`RoundOrder`, computed once per stream."""
    return _round_orders.get(params.stream_key, lambda: round_order(arrivals.stream(params)))


def compartment(params: Params, flow: int, slots: int) -> Compartment:
    """One flow alone in ``slots`` slots on ``params``' day and holds (kept on exactly that)."""
    return _compartments.get(
        (params, flow, slots),
        lambda: run_compartment(params, flow, slots, arrivals.stream(params), stream_order(params)),
    )


def split_counters(params: Params) -> tuple[Counters, ...]:
    """The counters of splits 1..total-1 on ``params``' day and holds (``params.split`` ignored).

    Each split's two compartments are kept on what they read: the tracking one on the
    tracking hold only, the event one on the event holds and the day. So a tracking hold
    move reruns only tracking compartments, an event, slowdown or failure-round move
    only event compartments, and the pairs are joined again (see :func:`join`).
    """
    key = canonical(params.with_(split=None))
    return _sweeps.get(key, lambda: _sweep(key))


def _sweep(params: Params) -> tuple[Counters, ...]:
    tracking_key = params.with_(
        mode="healthy", hold_event=HOLD_EVENT, slow=SLOW, start=min(START, params.rounds)
    )
    event_key = params.with_(hold_tracking=HOLD_TRACKING)
    order = stream_order(params)
    return tuple(
        join(
            compartment(tracking_key, TRACKING, s),
            compartment(event_key, EVENT, params.total - s),
            order,
        )
        for s in range(1, params.total)
    )
