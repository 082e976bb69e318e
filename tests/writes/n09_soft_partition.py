"""Notebook 09, exercise 4: a soft partition of the learner's own, judged on lesson 000's two days."""

from writes import Candidates

RIGHT = """def my_soft_partition(reserved, total):
    shared = total - sum(reserved)

    def admits(flow, busy):
        if busy[flow] < reserved[flow]:
            return True
        borrowed = sum(b - r for b, r in zip(busy, reserved) if b > r)
        return borrowed < shared

    return admits
"""

# Off by one: one borrow more than the shared rest holds, so it is taken from another flow's reserve.
OFF_BY_ONE = """def my_soft_partition(reserved, total):
    shared = total - sum(reserved)

    def admits(flow, busy):
        if busy[flow] < reserved[flow]:
            return True
        borrowed = sum(max(0, b - r) for b, r in zip(busy, reserved))
        return borrowed <= shared

    return admits
"""

# The shared rest split fairly: each flow may borrow only its half of it, so the other half stands idle.
HALF_EACH = """def my_soft_partition(reserved, total):
    shared = total - sum(reserved)

    def admits(flow, busy):
        return busy[flow] < reserved[flow] + shared // len(reserved)

    return admits
"""

# Reserves only: a hard split of 21/7 that never lends the 4 shared slots.
RESERVES_ONLY = """def my_soft_partition(reserved, total):
    def admits(flow, busy):
        return busy[flow] < reserved[flow]

    return admits
"""

# Forgets the flow's own reserve: refused once the others have borrowed all of the shared rest.
NO_OWN_RESERVE = """def my_soft_partition(reserved, total):
    shared = total - sum(reserved)

    def admits(flow, busy):
        borrowed = sum(max(0, b - r) for b, r in zip(busy, reserved))
        return borrowed < shared

    return admits
"""

# Each flow may take its reserve plus the whole shared rest, whatever the other flow borrowed.
WHOLE_REST_EACH = """def my_soft_partition(reserved, total):
    shared = total - sum(reserved)

    def admits(flow, busy):
        return busy[flow] < reserved[flow] + shared

    return admits
"""

# Any free slot: the single pool, no reserve kept.
ONE_POOL = """def my_soft_partition(reserved, total):
    def admits(flow, busy):
        return sum(busy) < total

    return admits
"""

CANDIDATES = Candidates(
    notebook="09_sharing_compartments.ipynb",
    exercise="write_soft_partition",
    number=4,
    name="my_soft_partition",
    right=RIGHT,
    broken={
        OFF_BY_ONE: "a reserve another flow used",
        HALF_EACH: "a shared slot never lent",
        RESERVES_ONLY: "a hard split",
        NO_OWN_RESERVE: "while its own reserve had a free slot",
        WHOLE_REST_EACH: "with all 32 slots busy",
        ONE_POOL: "a single pool",
    },
)
