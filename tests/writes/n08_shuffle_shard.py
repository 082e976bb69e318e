"""Notebook 08, exercise 6: a shuffle shard of the learner's own, judged on section 2's deal."""

from writes import Candidates

RIGHT = """def my_shard(tenant, workers, size, seed):
    draw = random.Random(seed * 1_000_003 + tenant)
    return tuple(sorted(draw.sample(range(workers), size)))
"""

# Plain sharding: the workers cut into fixed pairs, each tenant on one block (1 in 4 sink together).
PLAIN = """def my_shard(tenant, workers, size, seed):
    block = random.Random(seed + tenant).randrange(workers // size)
    return tuple(range(block * size, block * size + size))
"""

# choices draws with replacement: a tenant may get the same worker twice.
REPEATS = """def my_shard(tenant, workers, size, seed):
    draw = random.Random(seed + tenant)
    return tuple(sorted(draw.choices(range(workers), k=size)))
"""

# Workers numbered from 1: worker 8 does not exist in range(8).
FROM_ONE = """def my_shard(tenant, workers, size, seed):
    draw = random.Random(seed + tenant)
    return tuple(sorted(draw.sample(range(1, workers + 1), size)))
"""

# The module's random, never seeded: the same tenant gets another shard on the next call.
UNSEEDED = """def my_shard(tenant, workers, size, seed):
    return tuple(sorted(random.sample(range(workers), size)))
"""

# The number of shards (workers // size) taken for the shard's size.
SHARDS_FOR_SIZE = """def my_shard(tenant, workers, size, seed):
    draw = random.Random(seed + tenant)
    return tuple(sorted(draw.sample(range(workers), workers // size)))
"""

# Seeded with the seed alone: every tenant draws the very same pair.
SEED_ONLY = """def my_shard(tenant, workers, size, seed):
    draw = random.Random(seed)
    return tuple(sorted(draw.sample(range(workers), size)))
"""

# A sliding window: overlapping neighbours, only 7 of the 28 pairs.
WINDOW = """def my_shard(tenant, workers, size, seed):
    first = random.Random(seed + tenant).randrange(workers - size + 1)
    return tuple(range(first, first + size))
"""

CANDIDATES = Candidates(
    notebook="08_choosing_compartments.ipynb",
    exercise="write_shuffle_shard",
    number=6,
    name="my_shard",
    right=RIGHT,
    broken={
        PLAIN: "(plain sharding)",
        REPEATS: "twice",
        FROM_ONE: "is not one of range(8)",
        UNSEEDED: "for the same seed",
        SHARDS_FOR_SIZE: "4 workers, not size = 2",
        SEED_ONLY: "every tenant gets the same shard",
        WINDOW: "the deal uses 7 of the C(8, 2) = 28 pairs",
    },
)
