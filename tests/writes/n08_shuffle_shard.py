"""Notebook 08, exercise 6: a shuffle shard of the learner's own, judged by its contract over generated
fleets (workers, size, seed, tenants) and deals."""

from writes import Candidates

# A generator seeded with a string of both numbers (Random hashes a str seed with SHA-512, not hash()),
# shuffled, its first `size` taken.
RIGHT = """def my_shard(tenant, workers, size, seed):
    fleet = list(range(workers))
    random.Random(f"{seed}/{tenant}").shuffle(fleet)
    return tuple(fleet[:size])
"""

# numpy: a generator seeded with both numbers; it returns an array of numpy's integers.
NUMPY = """def my_shard(tenant, workers, size, seed):
    import numpy as np

    return np.random.default_rng([seed, tenant]).choice(workers, size=size, replace=False)
"""

# Rendezvous hashing: each worker scored by a digest of (seed, tenant, worker), the best `size` kept.
RENDEZVOUS = """def my_shard(tenant, workers, size, seed):
    import hashlib

    def score(worker):
        return hashlib.blake2b(f"{seed}:{tenant}:{worker}".encode(), digest_size=8).digest()

    return sorted(range(workers), key=score)[:size]
"""

# A callable object: hash() of a tuple of ints (the same in every process), and the combination's
# number among all C(workers, size) unranked, a set returned.
UNRANKED = """class Dealer:
    def __call__(self, tenant, workers, size, seed):
        index = random.Random(hash((seed, tenant))).randrange(math.comb(workers, size))
        shard, left = set(), size
        for worker in range(workers):
            if left == 0:
                break
            with_it = math.comb(workers - worker - 1, left - 1)
            if index < with_it:
                shard.add(worker)
                left -= 1
            else:
                index -= with_it
        return shard


my_shard = Dealer()
"""

# Every combination listed, one picked by a seeded generator.
LISTED = """def my_shard(tenant, workers, size, seed):
    from itertools import combinations

    every = list(combinations(range(workers), size))
    return random.Random(seed * 7919 + tenant).choice(every)
"""

# A partial Fisher-Yates shuffle of its own, each swap drawn from SHA-256 of the numbers; a list back.
FISHER_YATES = """def my_shard(tenant, workers, size, seed):
    import hashlib

    fleet = list(range(workers))
    for i in range(size):
        digest = hashlib.sha256(f"{seed}-{tenant}-{i}".encode()).digest()
        j = i + int.from_bytes(digest[:8], "big") % (workers - i)
        fleet[i], fleet[j] = fleet[j], fleet[i]
    return fleet[:size]
"""

# Plain sharding: the workers cut into fixed blocks, each tenant on one (1 in 4 sink together).
PLAIN = """def my_shard(tenant, workers, size, seed):
    block = random.Random(seed + tenant).randrange(workers // size)
    return tuple(range(block * size, block * size + size))
"""

# choices draws with replacement: a tenant may get the same worker twice.
REPEATS = """def my_shard(tenant, workers, size, seed):
    draw = random.Random(seed + tenant)
    return tuple(sorted(draw.choices(range(workers), k=size)))
"""

# Workers numbered from 1: worker `workers` does not exist in range(workers).
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

# Seeded with the seed alone: every tenant draws the very same shard.
SEED_ONLY = """def my_shard(tenant, workers, size, seed):
    draw = random.Random(seed)
    return tuple(sorted(draw.sample(range(workers), size)))
"""

# A sliding window: overlapping neighbours, only workers - size + 1 of the shards.
WINDOW = """def my_shard(tenant, workers, size, seed):
    first = random.Random(seed + tenant).randrange(workers - size + 1)
    return tuple(range(first, first + size))
"""

# Seeded with hash() of a string: Python salts it per process, so a restart deals anew.
STRING_HASH = """def my_shard(tenant, workers, size, seed):
    draw = random.Random(hash(f"{seed}:{tenant}"))
    return tuple(sorted(draw.sample(range(workers), size)))
"""

# Section 2's fleet written in: eight workers, whatever `workers` says.
LESSON_FLEET = """def my_shard(tenant, workers, size, seed):
    draw = random.Random(seed * 1_000_003 + tenant)
    return tuple(sorted(draw.sample(range(8), size)))
"""

# The seed ignored: every seed deals the same shards.
SEED_IGNORED = """def my_shard(tenant, workers, size, seed):
    return tuple(sorted(random.Random(tenant).sample(range(workers), size)))
"""

# Seeded with seed * tenant: with seed 0 every tenant gets Random(0)'s shard.
PRODUCT_SEED = """def my_shard(tenant, workers, size, seed):
    return tuple(sorted(random.Random(seed * tenant).sample(range(workers), size)))
"""

# random.shuffle shuffles in place and returns None: slicing it raises.
SHUFFLE_RETURNS_NONE = """def my_shard(tenant, workers, size, seed):
    return tuple(random.Random(seed + tenant).shuffle(list(range(workers)))[:size])
"""

# One generator for the whole module, seeded once: the next call draws on, another shard each time.
ONE_GENERATOR = """DRAW = random.Random(20260801)


def my_shard(tenant, workers, size, seed):
    return tuple(sorted(DRAW.sample(range(workers), size)))
"""

# The last worker left out: range(workers - 1) never deals it (and cannot fill size = workers).
LAST_LEFT_OUT = """def my_shard(tenant, workers, size, seed):
    return tuple(sorted(random.Random(seed + tenant).sample(range(workers - 1), size)))
"""

# A ring: the tenant's first worker drawn, then its neighbours, so only `workers` shards.
RING = """def my_shard(tenant, workers, size, seed):
    first = random.Random(seed * 31 + tenant).randrange(workers)
    return tuple(sorted((first + i) % workers for i in range(size)))
"""

# numpy's legacy generator, built anew for every call (about half a millisecond each).
RANDOM_STATE = """def my_shard(tenant, workers, size, seed):
    import numpy as np

    return np.random.RandomState(seed + tenant).choice(workers, size, replace=False)
"""

# One shard drawn for the seed, then turned by the tenant: only `workers` different shards.
TURNED = """def my_shard(tenant, workers, size, seed):
    first = random.Random(seed).sample(range(workers), size)
    return tuple(sorted((w + tenant) % workers for w in first))
"""

# Tenants folded onto four generators: every fourth tenant shares a shard.
FOUR_TENANTS = """def my_shard(tenant, workers, size, seed):
    return tuple(sorted(random.Random(seed + tenant % 4).sample(range(workers), size)))
"""

CANDIDATES = Candidates(
    notebook="08_choosing_compartments.ipynb",
    exercise="write_shuffle_shard",
    number=6,
    name="my_shard",
    right=RIGHT,
    also_right=(NUMPY, RENDEZVOUS, UNRANKED, LISTED, FISHER_YATES, RANDOM_STATE),
    broken={
        PLAIN: "(plain sharding)",
        REPEATS: "twice",
        FROM_ONE: "is not",
        UNSEEDED: "where a tenant and seed always get one shard",
        SHARDS_FOR_SIZE: "where size is",
        SEED_ONLY: "every tenant got the same shard",
        WINDOW: "shards dealt at random leave about 1 in",
        STRING_HASH: "another PYTHONHASHSEED",
        LESSON_FLEET: "where each worker is one of range(1), and 6 is not",
        SEED_IGNORED: "where another seed deals anew",
        PRODUCT_SEED: "every tenant got the same shard",
        SHUFFLE_RETURNS_NONE: "raised TypeError",
        ONE_GENERATOR: "where a tenant and seed always get one shard",
        LAST_LEFT_OUT: "raised ValueError",
        RING: "shards dealt at random leave about 1 in",
        TURNED: "shards dealt at random leave about 1 in",
        FOUR_TENANTS: "every tenant got the same shard",
    },
)
