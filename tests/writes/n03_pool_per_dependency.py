"""Notebook 03, exercise 4: a pool per dependency of the learner's own, judged by lesson 003's batch
replayed (what each dependency counts at once, and whether the slow one delays the others)."""

from writes import Candidates

RIGHT = """def my_pool_for(limits, pool):
    pools = {dependency: pool(slots) for dependency, slots in limits.items()}

    def pool_for(dependency):
        return pools[dependency]

    return pool_for
"""

A_POOL_PER_CALL = """def my_pool_for(limits, pool):
    def pool_for(dependency):
        return pool(limits[dependency])

    return pool_for
"""

ONE_POOL_UNDER_EVERY_NAME = """def my_pool_for(limits, pool):
    shared = pool(max(limits.values()))
    pools = {dependency: shared for dependency in limits}
    return lambda dependency: pools[dependency]
"""

ONLY_THE_SLOW_ONE = """def my_pool_for(limits, pool):
    notification = pool(limits["notification"])
    return lambda dependency: notification if dependency == "notification" else None
"""

THE_LESSONS_FOUR = """def my_pool_for(limits, pool):
    pools = {dependency: pool(4) for dependency in limits}
    return lambda dependency: pools[dependency]
"""

ONE_SLOT_SHORT = """def my_pool_for(limits, pool):
    pools = {dependency: pool(slots - 1) for dependency, slots in limits.items()}
    return lambda dependency: pools[dependency]
"""

CANDIDATES = Candidates(
    notebook="03_pool_placement.ipynb",
    exercise="write_pool_per_dependency",
    number=4,
    name="my_pool_for",
    right=RIGHT,
    broken={
        A_POOL_PER_CALL: "a new pool for every call limits nothing",
        ONE_POOL_UNDER_EVERY_NAME: "only 0 / 40 catalog calls were done before notification's first answer",
        ONLY_THE_SLOW_ONE: "catalog saw 40 calls at once where its limit is 4: its 1st call site got no pool",
        THE_LESSONS_FOUR: "case 2 (limits notification 2, payment 3, catalog 5): notification saw 4 calls",
        ONE_SLOT_SHORT: "its pool has 3 slots, not 4",
    },
)
