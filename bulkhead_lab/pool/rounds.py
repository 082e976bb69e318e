"""Lesson 000's rounds: a pool of slots, its calendar of holds, and one round step.

The step between the saved-cells markers is notebook 02's (a learner reads it there): a
:class:`Pool` of ``total`` slots shared by the two flows, each flow within its own
:class:`Slots` (a limit, a hold, and a calendar of when its holds end), and
:func:`play_round`: free the slots whose hold ends, then let each arrival take a slot or be
dropped. Lesson 000's single pool is a pool whose flows may each take all of it; its
bulkhead 24/8 gives the flows limits that add up to the pool (two compartments). Later
notebooks run the same step and extend it in cells of their own, never in these: the adaptive
pool (notebook 05: a subclass of :class:`Pool` whose limits move) and the retry storm
(notebook 06: retries take their slots first). This module imports nothing of theirs.

Below the markers: one run of the lesson's model (:func:`run`, :func:`run_with_occupancy`),
exact against ``bulkhead-run.mjs``, and the memos that keep runs for the sliders
(:func:`counters`, :func:`occupancy`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bulkhead_lab.memo import ROUNDS_BUDGET, Memo
from bulkhead_lab.pool import arrivals
from bulkhead_lab.pool.arrivals import EVENT, TRACKING, ArrivalStream, arrival_stream
from bulkhead_lab.pool.params import Counters, Params, canonical


# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/02_single_pool_vs_bulkhead.ipynb, section 1. One round, in code
class Slots:
    """One flow's share of the pool: at most ``limit`` slots held at once, each for ``hold`` rounds.

    ``ends`` is the flow's calendar: ``ends[t]`` of its slots come free at round ``t``.
    """

    def __init__(self, limit: int, hold: int, rounds: int) -> None:
        self.limit = limit
        self.hold = hold
        self.busy = 0  # slots it holds now
        self.dropped = 0  # its arrivals refused
        self.ends = [0] * rounds


# Defined in notebooks/02_single_pool_vs_bulkhead.ipynb, section 1. One round, in code
class Pool:
    """``total`` slots that the two flows share, each within its own :class:`Slots`.

    Lesson 000's single pool lets each flow take all 32 slots; its bulkhead 24/8 gives
    tracking 24 and events 8: two compartments.
    """

    def __init__(self, total: int, flows: list[Slots]) -> None:
        self.total = total
        self.flows = flows  # by flow code: TRACKING, EVENT
        self.idle = 0  # free slots beside each refusal, summed
        self.busy_rounds = 0  # busy slots summed over rounds

    def free(self, t: int) -> None:
        """Round ``t`` begins: the slots whose hold ends now come free; count the busy ones."""
        tracking, event = self.flows
        tracking.busy -= tracking.ends[t]
        event.busy -= event.ends[t]
        self.busy_rounds += tracking.busy + event.busy


# Defined in notebooks/02_single_pool_vs_bulkhead.ipynb, section 1. One round, in code
def admit(pool: Pool, t: int, order: tuple[int, ...], n_tracking: int, n_event: int) -> tuple[int, int]:
    """Round ``t``'s arrivals (``order``: their flows, shuffled) each take a slot for their flow's
    hold, within its limit and the pool's free slots, or are dropped. Returns the slots taken."""
    tracking, event = pool.flows
    busy_t, busy_e = tracking.busy, event.busy
    free = pool.total - busy_t - busy_e
    at, ae = n_tracking, n_event  # everyone fits: the whole round at once ...
    if at + ae > free or busy_t + at > tracking.limit or busy_e + ae > event.limit:
        taken, room = [0, 0], [tracking.limit - busy_t, event.limit - busy_e]
        for f in order:  # ... unless someone is refused: one at a time, in the shuffled order
            if taken[f] >= room[f]:  # its flow's limit is reached,
                pool.idle += free  # while this many slots of the pool stand free
            elif free:  # else it takes a free slot, unless the whole pool is full
                taken[f] += 1
                free -= 1
        at, ae = taken  # the others were dropped
        tracking.dropped += n_tracking - at
        event.dropped += n_event - ae
    tracking.busy = busy_t + at
    event.busy = busy_e + ae
    try:  # each comes free a hold later (a hold that ends after the last round never does)
        tracking.ends[t + tracking.hold] += at
    except IndexError:
        pass
    try:
        event.ends[t + event.hold] += ae
    except IndexError:
        pass
    return at, ae


# Defined in notebooks/02_single_pool_vs_bulkhead.ipynb, section 1. One round, in code
def play_round(pool: Pool, t: int, order: tuple[int, ...], n_tracking: int, n_event: int) -> tuple[int, int]:
    """Round ``t``: free the slots whose hold ends, then admit the round's arrivals."""
    pool.free(t)
    return admit(pool, t, order, n_tracking, n_event)


# <<< saved cells


def lesson_pool(params: Params) -> Pool:
    """The pool of ``params``' split at round 0: one shared pool (``None``) or two compartments."""
    total, rounds, split = params.total, params.rounds, params.split
    limits = (total, total) if split is None else (split, total - split)
    return Pool(
        total, [Slots(limits[0], params.hold_tracking, rounds), Slots(limits[1], params.hold_event, rounds)]
    )


@dataclass(frozen=True)
class Occupancy:
    """Busy slots per flow at the start of each round: after that round's frees, before its arrivals.

    That is the moment the lesson counts its ``busyRounds`` (so ``sum(busy)`` equals the
    counter, and a mean over the whole run is the lesson's "average busy slots"), and the
    moment each arrival of the round finds: a compartment full then refuses the whole round.
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


def run(params: Params = Params(), *, stream: ArrivalStream | None = None) -> Counters:
    """One run of the lesson's model: the six counters."""
    return _play(params, stream, None)


def run_with_occupancy(
    params: Params = Params(), *, stream: ArrivalStream | None = None
) -> tuple[Counters, Occupancy]:
    """One run plus each flow's busy slots at the start of every round (the step-through's picture)."""
    seen: tuple[list[int], list[int]] = ([], [])
    result = _play(params, stream, seen)
    return result, Occupancy(tuple(seen[TRACKING]), tuple(seen[EVENT]), shared=params.split is None)


Admit = Callable[[Pool, int, tuple[int, ...], int, int], tuple[int, int]]  # what :func:`admit` is


def run_through(
    params: Params, pool: Pool, admits: Admit, *, stream: ArrivalStream | None = None
) -> Counters:
    """Lesson 000's day (``params``' holds, failure and stream) through ``pool``, its arrivals admitted by
    ``admits`` instead of :func:`admit`: the same rounds, another admission rule (notebook 09's soft
    partitions and shedding by priority, :mod:`bulkhead_lab.compartments.partitions`)."""
    return _play(params, stream, None, pool, admits)


def _play(
    params: Params,
    stream: ArrivalStream | None,
    seen: tuple[list[int], list[int]] | None,
    pool: Pool | None = None,
    admits: Admit = admit,
) -> Counters:
    """Every round of ``params``' run through ``pool`` (:func:`lesson_pool` unless given; what
    :func:`play_round` does for each round, written out so ``seen`` can get each round's busy slots
    between its two halves)."""
    if stream is None:
        stream = arrival_stream(params)
    if stream.rounds != params.rounds:
        raise ValueError(f"stream has {stream.rounds} rounds but params.rounds is {params.rounds}")
    pool = lesson_pool(params) if pool is None else pool
    tracking, event = pool.flows
    slow = params.slow if params.mode == "slowdown" else params.hold_event
    order, n_tracking, n_event, start = stream.order, stream.tracking, stream.event, params.start
    for t in range(params.rounds):
        if t == start:
            event.hold = slow  # the failure: from this round on an event call holds its slot longer
        pool.free(t)  # play_round's two halves, with the occupancy read between them
        if seen is not None:  # the round's occupancy: after its frees, before its arrivals
            seen[TRACKING].append(tracking.busy)
            seen[EVENT].append(event.busy)
        admits(pool, t, order[t], n_tracking[t], n_event[t])
    t_drop, e_drop = tracking.dropped, event.dropped
    return Counters(
        sum(n_tracking) - t_drop, t_drop, sum(n_event) - e_drop, e_drop, pool.idle, pool.busy_rounds
    )


# --- the memos the sliders replay from -----------------------------------------------------

_runs: Memo[Params, Counters] = Memo("runs", 1024)
_occupancies: Memo[Params, Occupancy] = Memo(
    "occupancies", 64, budget=ROUNDS_BUDGET, weigh=lambda o: 2 * len(o.tracking)
)


def counters(params: Params) -> Counters:
    """The six counters of one run, replayed from the memoised stream and kept."""
    key = canonical(params)
    return _runs.get(key, lambda: run(key, stream=arrivals.stream(key)))


def occupancy(params: Params) -> Occupancy:
    """Each flow's busy slots per round for one run (the step-through's and occupancy's data)."""
    key = canonical(params)
    return _occupancies.get(key, lambda: run_with_occupancy(key, stream=arrivals.stream(key))[1])
