"""Notebook 03, exercise 4: a pool per dependency of the learner's own, judged by its contract over generated
services (one pool per dependency, the same every call, its own, of its limit, none left unclosed) and one
live batch."""

from writes import Candidates, changed

LAZY_DICT = """def my_pool_for(limits, pool):
    pools = {}

    def pool_for(dependency):
        if dependency not in pools:
            pools[dependency] = pool(limits[dependency])
        return pools[dependency]

    return pool_for
"""

A_CLASS = """class PoolTable:
    def __init__(self, limits, pool):
        self.pools = {}
        for dependency, slots in limits.items():
            self.pools[dependency] = pool(slots)

    def __call__(self, dependency):
        return self.pools[dependency]

def my_pool_for(limits, pool):
    return PoolTable(limits, pool)
"""

NUMPY_SIZES = """import numpy as np

def my_pool_for(limits, pool):
    names = list(limits)
    sizes = np.array([limits[name] for name in names], dtype=np.int64)
    made = dict(zip(names, map(pool, sizes)))  # pool(np.int64(4)): numpy's integers are numbers
    return made.get
"""

CACHED_FUNCTION = """import functools

def my_pool_for(limits, pool):
    @functools.lru_cache(maxsize=None)
    def pool_for(dependency):
        return pool(limits[dependency])

    return pool_for
"""

PAIRS_SEARCHED = """def my_pool_for(limits, pool):
    pairs = [(name, pool(int(slots))) for name, slots in sorted(limits.items())]

    def pool_for(dependency):
        return next(p for name, p in pairs if name == dependency)

    return pool_for
"""

MISSING_MAKES_IT = """def my_pool_for(limits, pool):
    class Pools(dict):
        def __missing__(self, dependency):
            self[dependency] = made = pool(limits[dependency])
            return made

    return Pools().__getitem__
"""

POPS_A_COPY = """def my_pool_for(limits, pool):
    left, pools = dict(limits), {}
    while left:
        dependency, slots = left.popitem()
        pools[dependency] = pool(slots)
    return lambda dependency: pools[dependency]
"""

THE_CLASS_ITSELF = """class my_pool_for:
    \"\"\"Called with (limits, pool), as the function would be: the instance is pool_for.\"\"\"

    def __init__(self, limits, pool):
        self.pools = {name: pool(limits[name]) for name in limits}

    def __call__(self, dependency):
        return self.pools[dependency]
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

LATE_BINDING = """def my_pool_for(limits, pool):
    getters = {}
    for dependency, slots in limits.items():
        made = pool(slots)
        getters[dependency] = lambda: made
    return lambda dependency: getters[dependency]()
"""

ONLY_THE_SLOW_ONE = """def my_pool_for(limits, pool):
    notification = pool(limits.get("notification", 1))
    return lambda dependency: notification if dependency == "notification" else None
"""

ONE_POOL_PER_SIZE = """def my_pool_for(limits, pool):
    by_size = {slots: pool(slots) for slots in set(limits.values())}
    return lambda dependency: by_size[limits[dependency]]
"""

SIZES_SORTED_APART = """def my_pool_for(limits, pool):
    pools = dict(zip(sorted(limits), map(pool, limits.values())))
    return pools.__getitem__
"""

KEPT_BETWEEN_SERVICES = """POOLS = {}

def my_pool_for(limits, pool):
    for dependency, slots in limits.items():
        if dependency not in POOLS:
            POOLS[dependency] = pool(slots)
    return POOLS.__getitem__
"""

EMPTIES_THE_LIMITS = """def my_pool_for(limits, pool):
    pools = {}
    while limits:
        dependency, slots = limits.popitem()
        pools[dependency] = pool(slots)
    return pools.__getitem__
"""

AN_ASYNC_POOL_FOR = """def my_pool_for(limits, pool):
    pools = {dependency: pool(slots) for dependency, slots in limits.items()}

    async def pool_for(dependency):
        return pools[dependency]

    return pool_for
"""

# Every pool made at once, each of its own limit: right as it stands; broken ones below change it, or
# LAZY_DICT, a little.
EACH = """def my_pool_for(limits, pool):
    pools = {dependency: pool(slots) for dependency, slots in limits.items()}
    return lambda dependency: pools[dependency]
"""
LOOKED_UP = "if dependency not in pools:\n            pools[dependency] = pool(limits[dependency])\n"
SETDEFAULT_MAKES_ONE_EVERY_CALL = changed(
    LAZY_DICT,
    (
        LOOKED_UP + "        return pools[dependency]",
        "return pools.setdefault(dependency, pool(limits[dependency]))",
    ),
)
GET_WITH_A_NEW_DEFAULT = changed(
    EACH, ("pools[dependency]", "pools.get(dependency, pool(limits[dependency]))")
)
FORGETS_TO_STORE = changed(LAZY_DICT, ("pools[dependency] = pool", "return pool"))
A_MUTABLE_DEFAULT = changed(LAZY_DICT, ("pool):\n    pools = {}", "pool, pools={}):"))
THE_LESSONS_FOUR = changed(EACH, ("pool(slots)", "pool(4)"))
ONE_SLOT_SHORT = changed(EACH, ("pool(slots)", "pool(slots - 1)"))
RETURNS_THE_DICT = changed(EACH, ("lambda dependency: pools[dependency]", "pools"))
HANDS_OUT_THE_SLOTS = changed(EACH, ("pools[dependency]", "limits[dependency]"))

CANDIDATES = Candidates(
    notebook="03_pool_placement.ipynb",
    exercise="write_pool_per_dependency",
    right=LAZY_DICT,
    also_right=(
        A_CLASS,
        NUMPY_SIZES,
        CACHED_FUNCTION,
        PAIRS_SEARCHED,
        MISSING_MAKES_IT,
        POPS_A_COPY,
        THE_CLASS_ITSELF,
    ),  # fmt: skip
    template=(
        "Not yet: after pool_for = my_pool_for({'notification': 1, 'catalog': 1}, pool), the 1st call "
        "pool_for('notification'): it returned pool #1 (2 slots), where notification's limit is 1: its pool "
        "is pool(1). Replay: pool = exercises.toy_pool(); pool_for = my_pool_for({'notification': 1, "
        "'catalog': 1}, pool); pool_for('notification')"
    ),
    broken={
        A_POOL_PER_CALL: "a new pool for every call",
        SETDEFAULT_MAKES_ONE_EVERY_CALL: "a pool made on every call, one kept: the rest never closed",
        GET_WITH_A_NEW_DEFAULT: "a pool made on every call and dropped: never closed",
        FORGETS_TO_STORE: "a lazy pool never stored: a new pool every call",
        ONE_POOL_UNDER_EVERY_NAME: "one pool shared by every dependency",
        LATE_BINDING: "a late-binding closure: every dependency gets the last pool",
        ONLY_THE_SLOW_ONE: "a call site given no pool (None)",
        THE_LESSONS_FOUR: "every pool the lesson's 4 slots, not its limit",
        ONE_SLOT_SHORT: "one slot short: pool(0) for a limit of 1",
        ONE_POOL_PER_SIZE: "one pool per size: dependencies of the same limit share it",
        SIZES_SORTED_APART: "sizes paired with the wrong dependency",
        KEPT_BETWEEN_SERVICES: "a module-level cache: one service gets another's pools",
        A_MUTABLE_DEFAULT: "a mutable default argument: pools kept between services",
        EMPTIES_THE_LIMITS: "empties the caller's limits",
        RETURNS_THE_DICT: "returns the dict, not pool_for",
        HANDS_OUT_THE_SLOTS: "pool_for returns the slots, not a pool",
        AN_ASYNC_POOL_FOR: "an async pool_for: a coroutine, not a pool",
    },
)
