"""Soft partitions and shedding by priority: lesson 000's pool with another admission rule.

Lesson 000 knows two layouts of its 32 slots: one shared pool, and a hard split (24/8) whose
halves never lend each other a slot. Two rules sit between them, each played on lesson 000's
own rounds (:func:`bulkhead_lab.pool.rounds.run_through`, with :func:`by_rule` admitting): only who
may take a free slot changes.

- **A soft partition** (the shape of Netflix concurrency-limits' ``AbstractPartitionedLimiter``):
  each flow keeps a *reserved* minimum, and the rest of the pool is an *overflow* any flow may
  borrow from. A call takes a slot of its flow's reserve if one is free, else one of the overflow.
  Nothing reserved is the single pool; everything reserved, the hard split. The limiter read
  (``concurrency-limits-core/.../limiter/AbstractPartitionedLimiter.java``, commit 3882327)
  refuses a call only when the whole limit is reached *and* its partition is at its share
  (``getInflight() >= getLimit() && partition.isLimitExceeded()``), so a partition under its share
  is admitted even past the limit: its limit is a number, not a pool. Here the 32 slots are a
  pool, so a borrower may take only the overflow, and a reserve stays free for its flow.
- **Shedding by priority**: the critical flow (tracking) takes any free slot; the less critical
  (events) only while more than ``keep`` slots are free, so the last ``keep`` are the critical
  flow's (Google's and AWS's practice: shed the least critical work first).

Pure: the seeded stream and lesson 000's round step; no memo of its own but :func:`counters`'.
"""

from __future__ import annotations

from collections.abc import Callable

from bulkhead_lab.memo import Memo
from bulkhead_lab.pool import arrivals
from bulkhead_lab.pool.arrivals import TRACKING
from bulkhead_lab.pool.params import Counters, Params, canonical
from bulkhead_lab.pool.rounds import Admit, Pool, Slots, run_through

Rule = Callable[[int, list[int]], bool]  # (flow, busy slots per flow right now) -> may it take a slot?
LESSON_RESERVES = (24, 8)  # the hard split's compartments: everything reserved


# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/09_sharing_compartments.ipynb, section 1. Soft partitions
def soft_partition(reserved: tuple[int, ...], total: int) -> Rule:
    """Each flow keeps ``reserved[flow]`` slots; the rest of ``total`` is an overflow any flow may borrow."""
    overflow = total - sum(reserved)

    def admits(flow: int, busy: list[int]) -> bool:
        if busy[flow] < reserved[flow]:
            return True  # a free slot of its own reserve
        borrowed = sum(max(0, b - r) for b, r in zip(busy, reserved, strict=True))
        return borrowed < overflow  # a free slot of the shared overflow

    return admits


# Defined in notebooks/09_sharing_compartments.ipynb, section 2. Shedding by priority
def shed_by_priority(keep: int, total: int, critical: int = TRACKING) -> Rule:
    """The critical flow takes any free slot; the others only while more than ``keep`` are free."""

    def admits(flow: int, busy: list[int]) -> bool:
        free = total - sum(busy)
        return free > (0 if flow == critical else keep)

    return admits


# <<< saved cells


def by_rule(rule: Rule) -> Admit:
    """An admission like :func:`bulkhead_lab.pool.rounds.admit`, each arrival (in the shuffled order)
    asking ``rule`` instead of its flow's limit. ``idle`` adds the free slots at each refusal, as the
    lesson does (the single pool refuses only when full; a hard split adds the other half's free slots)."""

    def admits(pool: Pool, t: int, order: tuple[int, ...], n_tracking: int, n_event: int) -> tuple[int, int]:
        tracking, event = pool.flows
        busy = [tracking.busy, event.busy]
        for f in order:
            if rule(f, busy):
                busy[f] += 1
            else:
                pool.idle += pool.total - busy[0] - busy[1]
        at, ae = busy[0] - tracking.busy, busy[1] - event.busy
        tracking.dropped += n_tracking - at
        event.dropped += n_event - ae
        for slots, n, now in ((tracking, at, busy[0]), (event, ae, busy[1])):
            slots.busy = now
            if t + slots.hold < len(slots.ends):  # a hold that ends after the last round never does
                slots.ends[t + slots.hold] += n
        return at, ae

    return admits


def rule_pool(params: Params) -> Pool:
    """A pool of ``params.total`` slots with ``params``' holds; who takes a slot is the rule's to say."""
    total, rounds = params.total, params.rounds
    return Pool(total, [Slots(total, params.hold_tracking, rounds), Slots(total, params.hold_event, rounds)])


def reserves(share: float, lesson: tuple[int, int] = LESSON_RESERVES) -> tuple[int, int]:
    """The slider's reserves: ``share`` of the hard split's compartments, rounded (0: all shared, 1: 24/8)."""
    return round(share * lesson[0]), round(share * lesson[1])


def run_soft(params: Params, reserved: tuple[int, int]) -> Counters:
    """Lesson 000's day through a soft partition of ``params.total`` slots with these reserves."""
    admits = by_rule(soft_partition(reserved, params.total))
    return run_through(params, rule_pool(params), admits, stream=arrivals.stream(params))


def run_shed(params: Params, keep: int) -> Counters:
    """Lesson 000's day with events shed while ``keep`` or fewer slots are free."""
    admits = by_rule(shed_by_priority(keep, params.total))
    return run_through(params, rule_pool(params), admits, stream=arrivals.stream(params))


_soft: Memo[tuple[Params, tuple[int, int]], Counters] = Memo("soft partitions", 512)
_shed: Memo[tuple[Params, int], Counters] = Memo("priority shedding", 512)


def soft_counters(params: Params, reserved: tuple[int, int]) -> Counters:
    """:func:`run_soft`, kept (a slider moved back replays nothing)."""
    key = canonical(params.with_(split=None))
    return _soft.get((key, reserved), lambda: run_soft(key, reserved))


def shed_counters(params: Params, keep: int) -> Counters:
    """:func:`run_shed`, kept."""
    key = canonical(params.with_(split=None))
    return _shed.get((key, keep), lambda: run_shed(key, keep))
