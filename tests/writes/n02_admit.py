"""Notebook 02, exercise 4: the round's admission, ``admit(order, free, room)``, judged by its contract
(every round as the course's own admit decides it, then lesson 000's days around the slowdown)."""

from writes import Candidates, changed

RIGHT = """def my_admit(order, free, room):
    tracking = event = 0
    for flow in order:
        if free == 0:
            break  # nobody after this finds a slot
        if flow == 0 and tracking < room[0]:
            tracking += 1
            free -= 1
        elif flow == 1 and event < room[1]:
            event += 1
            free -= 1
    return tracking, event
"""

COUNTER = """from collections import Counter

def my_admit(order, free, room):
    left = list(room)
    taken = Counter()
    for flow in order:
        if left[flow] and free:
            left[flow] -= 1
            free -= 1
            taken[flow] += 1
    return [taken[0], taken[1]]
"""

NUMPY = """import numpy as np

def my_admit(order, free, room):
    flows = np.asarray(order, dtype=np.int64)
    taken = np.zeros(2, dtype=np.int64)
    for flow in flows:
        if taken[flow] < room[flow] and taken.sum() < free:
            taken[flow] += 1
    return taken[0], taken[1]
"""

PREFIX = """def my_admit(order, free, room):
    # the k-th arrival of a flow is one of its first room[flow]: those that may take a slot, in order
    seen = [0, 0]
    wanting = []
    for flow in order:
        seen[flow] += 1
        if seen[flow] <= room[flow]:
            wanting.append(flow)
    admitted = wanting[:free]
    return admitted.count(0), admitted.count(1)
"""

CLASS = """class Round:
    def __init__(self, free, room):
        self.free, self.left, self.taken = free, list(room), [0, 0]

    def arrive(self, flow):
        if self.left[flow] > 0 and self.free > 0:
            self.left[flow] -= 1
            self.free -= 1
            self.taken[flow] += 1

def my_admit(order, free, room):
    now = Round(free, room)
    for flow in order:
        now.arrive(flow)
    return tuple(now.taken)
"""

ALL_OR_NOTHING = """def my_admit(order, free, room):
    tracking, event = order.count(0), order.count(1)
    if tracking + event > free or tracking > room[0] or event > room[1]:
        return 0, 0
    return tracking, event
"""

COUNTS_NOT_ORDER = """def my_admit(order, free, room):
    tracking = min(order.count(0), room[0], free)
    event = min(order.count(1), room[1], free - tracking)
    return tracking, event
"""

STOPS_AT_FIRST_DROP = """def my_admit(order, free, room):
    taken = [0, 0]
    for flow in order:
        if taken[flow] >= room[flow] or free == 0:
            break  # the round is over once someone is refused
        taken[flow] += 1
        free -= 1
    return taken[0], taken[1]
"""

FLOATS = """def my_admit(order, free, room):
    tracking = event = 0.0
    for flow in order:
        if tracking + event < free:
            if flow == 0 and tracking < room[0]:
                tracking += 1
            elif flow == 1 and event < room[1]:
                event += 1
    return tracking, event
"""

REMEMBERS = """used = [0, 0]

def my_admit(order, free, room):
    # keeps count across rounds
    for flow in order:
        if used[flow] < room[flow] and sum(used) < free:
            used[flow] += 1
    return used[0], used[1]
"""

# Walking the order, an arrival takes a slot while its flow has room and one is free: right as it stands;
# each broken one below changes it a little.
WALK = """def my_admit(order, free, room):
    taken = [0, 0]
    for flow in order:
        if taken[flow] < room[flow] and free > 0:
            taken[flow] += 1
            free -= 1
    return taken[0], taken[1]
"""
IGNORES_SPLIT = changed(WALK, ("taken[flow] < room[flow] and free > 0", "free > 0"))
BEYOND_FREE = changed(WALK, (" and free > 0", ""))
OFF_BY_ONE = changed(WALK, ("< room[flow]", "< room[flow] - 1"))
SWAPPED_FLOWS = changed(WALK, ("return taken[0], taken[1]", "return taken[1], taken[0]"))
DROPPED_NOT_TAKEN = changed(
    WALK, ("return taken[0], taken[1]", "return order.count(0) - taken[0], order.count(1) - taken[1]")
)
ROOM_SHARES_FREE = changed(
    WALK, ("room[flow] and free > 0", "min(room[flow], free)"), ("            free -= 1\n", "")
)
REVERSED = changed(WALK, ("in order", "in reversed(order)"))
AT_THE_LIMIT = changed(WALK, ("< room[flow]", "<= room[flow]"))

AS_AN_ARRAY = f"""import numpy as np

{RIGHT}
counted = my_admit

def my_admit(order, free, room):
    return np.array(counted(order, free, room))  # two counts in numpy's container
"""
AS_A_LIST = changed(AS_AN_ARRAY, ("np.array(", "list("))

CANDIDATES = Candidates(
    notebook="02_single_pool_vs_bulkhead.ipynb",
    exercise="write_admit",
    right=RIGHT,
    also_right=(COUNTER, NUMPY, PREFIX, CLASS, AS_AN_ARRAY, AS_A_LIST),
    template=(
        "Not yet: my_admit((0,), 1, (1, 0)): it returned (0, 0), where the round admits (1, 0): in order: "
        "tracking takes a slot. Replay: my_admit((0,), 1, (1, 0))"
    ),
    broken={
        IGNORES_SPLIT: "past its compartment's limit",
        BEYOND_FREE: "past the free slots",
        ALL_OR_NOTHING: "drops the whole round when it does not all fit",
        OFF_BY_ONE: "one slot short of the limit",
        COUNTS_NOT_ORDER: "tracking first, not in the round's order",
        SWAPPED_FLOWS: "returns (event, tracking)",
        STOPS_AT_FIRST_DROP: "stops at the first refusal",
        DROPPED_NOT_TAKEN: "returns the dropped, not the taken",
        ROOM_SHARES_FREE: "each flow's room against all the free slots, not what is left",
        FLOATS: "counts as floats",
        REMEMBERS: "keeps counts across rounds",
        REVERSED: "walks the order backwards",
        AT_THE_LIMIT: "one past the limit (<= for <)",
    },
)
