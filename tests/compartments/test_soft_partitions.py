"""Soft partitions and shedding by priority: a soft partition traced by hand round by round, both ends of the
slider as lesson 000's two layouts exactly (what each stop between costs, and the priority rule's trade, are
notebook 09's cells c10 and c16, which nbval compares)."""

from __future__ import annotations

import pytest

from bulkhead_lab.compartments import partitions
from bulkhead_lab.compartments.partitions import by_rule, shed_by_priority, soft_partition
from bulkhead_lab.pool import rounds
from bulkhead_lab.pool.arrivals import EVENT as E
from bulkhead_lab.pool.arrivals import TRACKING as T
from bulkhead_lab.pool.params import Params
from bulkhead_lab.pool.rounds import Pool, Slots


class _Day:
    """4 slots; tracking holds 2 rounds, events 3; a 5-round day, admitted by a rule, round by round."""

    def __init__(self, rule: partitions.Rule) -> None:
        self.pool = Pool(4, [Slots(4, 2, 5), Slots(4, 3, 5)])
        self.admits = by_rule(rule)

    def round(self, t: int, order: tuple[int, ...]) -> tuple[list[int], list[int]]:
        self.pool.free(t)
        taken = self.admits(self.pool, t, order, order.count(T), order.count(E))
        return list(taken), [s.busy for s in self.pool.flows]


def test_a_soft_partition_traced_by_hand_round_by_round() -> None:
    day = _Day(soft_partition((1, 1), 4))  # each flow keeps 1 slot; 2 slots of overflow to borrow
    # round 0: tracking takes its reserve, then borrows one; the event takes its reserve
    assert day.round(0, (T, T, E)) == ([2, 1], [2, 1])
    # round 1: tracking borrows the last overflow slot; everyone else is refused (the pool is full)
    assert day.round(1, (T, T, E, E)) == ([1, 0], [3, 1])
    # round 2: round 0's two tracking calls end; the events borrow the whole overflow, and the tracking
    # call after them finds its reserve taken (by round 1's call) and nothing left to borrow
    assert day.round(2, (E, E, T)) == ([0, 2], [1, 3])
    # round 3: round 1's tracking call and round 0's event end: tracking's reserve is free again
    assert day.round(3, (T,)) == ([1, 0], [1, 2])
    tracking, event = day.pool.flows
    assert (tracking.dropped, event.dropped, day.pool.idle) == (2, 2, 0)


def test_a_reserve_left_free_while_a_borrower_is_refused_counts_as_idle() -> None:
    day = _Day(soft_partition((2, 0), 4))  # tracking keeps 2; 2 slots of overflow
    assert day.round(0, (E, E, E)) == ([0, 2], [0, 2])  # the third event: tracking's 2 stand free
    assert (day.pool.flows[E].dropped, day.pool.idle) == (1, 2)


def test_shedding_by_priority_traced_by_hand_keeps_the_last_slots_for_the_critical_flow() -> None:
    day = _Day(shed_by_priority(keep=2, total=4))
    assert day.round(0, (E, E, E, T)) == ([1, 2], [1, 2])  # events stop with 2 free; tracking takes one
    assert day.round(1, (T, E)) == ([1, 0], [2, 2])  # 1 free: the event is shed, tracking is not
    assert (day.pool.flows[E].dropped, day.pool.flows[T].dropped) == (2, 0)


@pytest.mark.parametrize("mode", ["healthy", "slowdown"])
def test_all_shared_is_lesson_000s_single_pool_and_all_reserved_its_24_8_exactly(mode: str) -> None:
    day = Params(mode=mode)  # type: ignore[arg-type]
    assert partitions.run_soft(day, partitions.reserves(0.0)) == rounds.counters(day)
    assert partitions.run_soft(day, partitions.reserves(1.0)) == rounds.counters(day.with_(split=24))
    assert partitions.run_shed(day, 0) == rounds.counters(day)  # nothing kept back: one pool
