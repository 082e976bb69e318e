"""Every memo the package keeps, in one place, with :func:`clear` and :func:`stats`.

The model and the sweep are pure and keep nothing; a slider moving over them would
replay the same runs again and again. This module is the one place that remembers:

=================  ==============================================  ======================
memo               what it keeps                                   keyed on
=================  ==============================================  ======================
``streams``        the seeded arrival stream                       seed, rates, cycle, rounds
``round_orders``   where each flow's arrivals fall in the shuffle  the same
``runs``           a run's six counters                            every knob the run reads
``occupancies``    busy slots per round (the step-through)         the same
``compartments``   one flow alone in k slots (the sweep's halves)  what that flow reads
``sweeps``         every split's counters on one day               every knob but the split
``pool_runs``      a pool governed by adaptive limits (notebook 05) the run's knobs and limiters
``retry_runs``     a run with retrying callers (notebook 06)       the run's knobs and retry setup
=================  ==============================================  ======================

Each memo is a small LRU with a size limit and, for the ones whose entries grow with
the run length, a *weight budget* (arrivals or rounds kept): an entry heavier than
the budget is computed and handed back but not kept, so a 10^6-round stream never
stays in memory. :func:`stats` reports hits, misses, entries and weight per memo;
:func:`clear` empties them all (tests and benchmarks use these, never the tables).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Generic, TypeVar

from bulkhead_lab.pool import sweep
from bulkhead_lab.pool.model import (
    EVENT,
    HOLD_EVENT,
    HOLD_TRACKING,
    SLOW,
    START,
    TRACKING,
    ArrivalStream,
    Counters,
    Occupancy,
    Params,
    arrival_stream,
    run,
    run_with_occupancy,
)
from bulkhead_lab.pool.sweep import Compartment, RoundOrder, join, round_order
from bulkhead_lab.validation import check_int

if TYPE_CHECKING:  # notebooks 05 and 06's models: imported when first asked for, so `reproduce` starts fast
    from bulkhead_lab.adaptive.pool import FlowControl, PoolRun
    from bulkhead_lab.retries import storm as retry_storm

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

STREAM_BUDGET = 4_000_000  # arrivals + rounds kept over all cached streams (the lesson's: ~24,000)
ROUNDS_BUDGET = 8_000_000  # rounds of per-round tuples kept over all compartments / occupancies


@dataclass(frozen=True)
class MemoStats:
    """One memo's counters since the last :func:`clear`."""

    hits: int
    misses: int
    entries: int
    weight: int


class Memo(Generic[K, V]):
    """A least-recently-used table of at most ``maxsize`` entries and ``budget`` weight."""

    def __init__(
        self, name: str, maxsize: int, *, budget: int | None = None, weigh: Callable[[V], int] | None = None
    ) -> None:
        self.name = name
        self.maxsize = maxsize
        self.budget = budget
        self._weigh = weigh
        self._table: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._weight = 0
        self.hits = 0
        self.misses = 0
        MEMOS[name] = self

    def get(self, key: K, compute: Callable[[], V]) -> V:
        """The value kept for ``key``, or ``compute()`` kept (if it fits) and returned."""
        entry = self._table.get(key)
        if entry is not None:
            self.hits += 1
            self._table.move_to_end(key)
            return entry[0]
        self.misses += 1
        value = compute()
        weight = self._weigh(value) if self._weigh is not None else 0
        if self.budget is not None and weight > self.budget:
            return value  # too heavy to keep: the caller gets it, the memo stays small
        self._table[key] = (value, weight)
        self._weight += weight
        while len(self._table) > self.maxsize or (self.budget is not None and self._weight > self.budget):
            _, (_, dropped) = self._table.popitem(last=False)
            self._weight -= dropped
        return value

    def clear(self) -> None:
        self._table.clear()
        self._weight = 0
        self.hits = self.misses = 0

    def stats(self) -> MemoStats:
        return MemoStats(self.hits, self.misses, len(self._table), self._weight)


MEMOS: dict[str, Memo] = {}


def clear() -> None:
    """Empty every memo and zero its counters."""
    for memo in MEMOS.values():
        memo.clear()


def stats() -> dict[str, MemoStats]:
    """Hits, misses, entries and weight of every memo, by name."""
    return {name: memo.stats() for name, memo in MEMOS.items()}


# --- the memos -----------------------------------------------------------------------------


def _stream_weight(s: ArrivalStream) -> int:
    return s.rounds + sum(s.tracking) + sum(s.event)


_streams: Memo[tuple, ArrivalStream] = Memo("streams", 16, budget=STREAM_BUDGET, weigh=_stream_weight)


def _order_weight(o: RoundOrder) -> int:
    return sum(len(b) for flow in o.before for b in flow) + len(o.before[TRACKING])


_round_orders: Memo[tuple, RoundOrder] = Memo("round_orders", 4, budget=STREAM_BUDGET, weigh=_order_weight)
_runs: Memo[Params, Counters] = Memo("runs", 1024)
_occupancies: Memo[Params, Occupancy] = Memo(
    "occupancies", 64, budget=ROUNDS_BUDGET, weigh=lambda o: 2 * len(o.tracking)
)
_compartments: Memo[tuple, Compartment] = Memo(
    "compartments", 160, budget=ROUNDS_BUDGET, weigh=lambda c: 2 * len(c.free)
)
_sweeps: Memo[Params, tuple[Counters, ...]] = Memo("sweeps", 32)


def canonical(params: Params) -> Params:
    """``params`` with the knobs its run does not read set to the lesson's, so equal runs share a key.

    A healthy day never reads the slowdown hold or the failure round.
    """
    if params.mode == "healthy":
        return params.with_(slow=SLOW, start=min(START, params.rounds))
    return params


def stream(params: Params) -> ArrivalStream:
    """The seeded arrival stream for ``params`` (drawn once per seed, rates, cycle and rounds)."""
    return _streams.get(params.stream_key, lambda: arrival_stream(params))


def stream_order(params: Params) -> RoundOrder:
    """The stream's :class:`~bulkhead_lab.pool.sweep.RoundOrder`, computed once per stream."""
    return _round_orders.get(params.stream_key, lambda: round_order(stream(params)))


def counters(params: Params) -> Counters:
    """The six counters of one run, replayed from the kept stream and kept."""
    key = canonical(params)
    return _runs.get(key, lambda: run(key, stream=stream(key)))


def occupancy(params: Params) -> Occupancy:
    """Each pool's busy slots per round for one run (the step-through's and occupancy's data)."""
    key = canonical(params)
    return _occupancies.get(key, lambda: run_with_occupancy(key, stream=stream(key))[1])


def compartment(params: Params, flow: int, slots: int) -> Compartment:
    """One flow alone in ``slots`` slots on ``params``' day and holds (kept on exactly that)."""
    return _compartments.get(
        (params, flow, slots),
        lambda: sweep.compartment(params, flow, slots, stream(params), stream_order(params)),
    )


def split_counters(params: Params) -> tuple[Counters, ...]:
    """The counters of splits 1..total-1 on ``params``' day and holds (``params.split`` ignored).

    Each split's two compartments are kept on what they read: the tracking one on the
    tracking hold only, the event one on the event holds and the day. So a tracking hold
    move reruns only tracking compartments, an event, slowdown or failure-round move
    only event compartments, and the pairs are joined again (see :func:`sweep.join`).
    """
    key = canonical(replace(params, split=None))
    return _sweeps.get(key, lambda: _sweep(key))


def _sweep(params: Params) -> tuple[Counters, ...]:
    tracking_key = replace(
        params, mode="healthy", hold_event=HOLD_EVENT, slow=SLOW, start=min(START, params.rounds)
    )
    event_key = replace(params, hold_tracking=HOLD_TRACKING)
    order = stream_order(params)
    return tuple(
        join(
            compartment(tracking_key, TRACKING, s),
            compartment(event_key, EVENT, params.total - s),
            order,
        )
        for s in range(1, params.total)
    )


# --- notebooks 05 and 06: adaptive limits and retrying callers ------------------------------


def _trace_weight(run: PoolRun | retry_storm.RetryRun) -> int:
    # A trace holds eight per-round series, in both memos.
    if run.trace is None:
        return 0
    first = next(iter(vars(run.trace).values()))
    return 8 * len(first[0] if isinstance(first[0], tuple) else first)


_pool_runs: Memo[tuple, PoolRun] = Memo("pool_runs", 256, budget=ROUNDS_BUDGET, weigh=_trace_weight)
_retry_runs: Memo[tuple, retry_storm.RetryRun] = Memo(
    "retry_runs", 256, budget=ROUNDS_BUDGET, weigh=_trace_weight
)


def pool_run(
    params: Params,
    tracking: FlowControl = None,
    event: FlowControl = None,
    *,
    trace: bool = False,
    stop: int | None = None,
) -> PoolRun:
    """:func:`~bulkhead_lab.adaptive.pool.run_pool` on the kept stream, kept when its limiters are
    settings (a :class:`~bulkhead_lab.adaptive.pool.LimiterSpec`, a size or None), not factories.

    ``stop`` ends the slowdown (``None``: it lasts to the end); a healthy day never reads it.
    """
    from bulkhead_lab.adaptive.pool import LimiterSpec, run_pool

    if stop is not None:
        check_int("stop", stop, params.start, params.rounds)
    key = canonical(params)
    if stop is not None and (key.mode == "healthy" or stop == key.rounds):
        stop = None  # the same run as the lesson's: one key
    compute = lambda: run_pool(key, tracking, event, stream=stream(key), trace=trace, stop=stop)  # noqa: E731
    if not all(c is None or isinstance(c, (int, LimiterSpec)) for c in (tracking, event)):
        return compute()
    return _pool_runs.get((key, tracking, event, trace, stop), compute)


def retry_run(params: Params, setup: retry_storm.RetrySetup, *, trace: bool = False) -> retry_storm.RetryRun:
    """:func:`~bulkhead_lab.retries.storm.run` on the kept stream, kept on its knobs and retry setup."""
    from bulkhead_lab.retries import storm as retry_storm

    key = canonical(params) if setup.stop is None else params
    return _retry_runs.get(
        (key, setup, trace), lambda: retry_storm.run(key, setup, stream=stream(key), trace=trace)
    )
