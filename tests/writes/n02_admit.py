"""Notebook 02, exercise 4: the round's admission, ``admit(order, free, room)``, replayed on lesson 000."""

from writes import Candidates

RIGHT = """def my_admit(order, free, room):
    taken = [0, 0]  # tracking, event
    for flow in order:
        if taken[flow] < room[flow] and free > 0:
            taken[flow] += 1
            free -= 1
    return taken[0], taken[1]
"""

IGNORES_SPLIT = """def my_admit(order, free, room):
    taken = [0, 0]
    for flow in order:
        if free > 0:
            taken[flow] += 1
            free -= 1
    return taken[0], taken[1]
"""

BEYOND_FREE = """def my_admit(order, free, room):
    taken = [0, 0]
    for flow in order:
        if taken[flow] < room[flow]:
            taken[flow] += 1
    return taken[0], taken[1]
"""

ALL_OR_NOTHING = """def my_admit(order, free, room):
    tracking, event = order.count(0), order.count(1)
    if tracking + event > free or tracking > room[0] or event > room[1]:
        return 0, 0
    return tracking, event
"""

OFF_BY_ONE = """def my_admit(order, free, room):
    taken = [0, 0]
    for flow in order:
        if taken[flow] < room[flow] - 1 and free > 0:
            taken[flow] += 1
            free -= 1
    return taken[0], taken[1]
"""

COUNTS_NOT_ORDER = """def my_admit(order, free, room):
    tracking = min(order.count(0), room[0], free)
    event = min(order.count(1), room[1], free - tracking)
    return tracking, event
"""

CANDIDATES = Candidates(
    notebook="02_single_pool_vs_bulkhead.ipynb",
    exercise="write_admit",
    number=4,
    name="my_admit",
    right=RIGHT,
    broken={
        IGNORES_SPLIT: "past its compartment's limit",
        BEYOND_FREE: "past the",
        ALL_OR_NOTHING: "you dropped all of it",
        OFF_BY_ONE: "the lesson's round admits",
        COUNTS_NOT_ORDER: "single pool (32), slowdown day, round",
    },
)
