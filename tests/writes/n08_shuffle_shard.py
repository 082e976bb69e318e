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

# A sliding window: overlapping neighbours, only workers - size + 1 of the shards.
WINDOW = """def my_shard(tenant, workers, size, seed):
    first = random.Random(seed + tenant).randrange(workers - size + 1)
    return tuple(range(first, first + size))
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


def sampled(generator: str, fleet: str = "range(workers)", size: str = "size", draw: str = "sample") -> str:
    """A shard drawn by ``generator`` (a seeded ``random.Random``, or the module's ``random``)."""
    drawn = f"{generator}.{draw}({fleet}, {size})"
    return f"def my_shard(tenant, workers, size, seed):\n    return tuple(sorted({drawn}))\n"


REPEATS = sampled("random.Random(seed + tenant)", size="k=size", draw="choices")  # a worker twice
FROM_ONE = sampled("random.Random(seed + tenant)", fleet="range(1, workers + 1)")  # no worker `workers`
UNSEEDED = sampled("random")  # another shard on the next call
SHARDS_FOR_SIZE = sampled("random.Random(seed + tenant)", size="workers // size")  # the shards' number
SEED_ONLY = sampled("random.Random(seed)")  # every tenant on the very same shard
STRING_HASH = sampled('random.Random(hash(f"{seed}:{tenant}"))')  # Python salts it per process
LESSON_FLEET = sampled("random.Random(seed * 1_000_003 + tenant)", fleet="range(8)")  # section 2's fleet
SEED_IGNORED = sampled("random.Random(tenant)")  # every seed deals the same shards
PRODUCT_SEED = sampled("random.Random(seed * tenant)")  # with seed 0 every tenant gets Random(0)'s shard
LAST_LEFT_OUT = sampled("random.Random(seed + tenant)", fleet="range(workers - 1)")  # never dealt
FOUR_TENANTS = sampled("random.Random(seed + tenant % 4)")  # every fourth tenant shares a shard

RAISES = """def raises(tenant, workers, size, seed):
    raise LookupError("no such worker")

my_shard = raises
"""

CANDIDATES = Candidates(
    notebook="08_choosing_compartments.ipynb",
    exercise="write_shuffle_shard",
    right=RIGHT,
    also_right=(NUMPY, RENDEZVOUS, UNRANKED, LISTED, FISHER_YATES, RANDOM_STATE),
    template=(
        "Not yet: dealing tenants 0 to 199 a shard of 1 of 2 workers with seed 0: every tenant got the same "
        "shard, (0,): a poison tenant takes down the whole shard of 100.00% of the others (1 in 1), "
    ),
    said_labels=True,
    lines={
        RIGHT: "a tenant and seed get the same shard in any order of calls and whatever hash() gives a",
        # which case breaks first depends on this process's own salt and the other's: the replay's call is not
        # fixed, its restart is
        STRING_HASH: ") # then Kernel > Restart, run your cell, and call it again",
        "my_shard = lambda t, w, s, seed: (0,) * s": (  # a lambda is replayed as the name the cell gave it
            "Not yet: my_shard(0, 2, 2, 0): returned (0, 0), worker 0 twice, where a shard is 2 different "
            "workers. Replay: my_shard(0, 2, 2, 0)"
        ),
        RAISES: (
            "Not yet: raises(0, 1, 1, 0): raised LookupError: no such worker, where the contract expects 1 "
            "different worker of range(1). Replay: raises(0, 1, 1, 0)"
        ),
        "my_shard = lambda t, w, s, seed: None": "Not yet: my_shard(0, 1, 1, 0): returned None, where the",
        "my_shard = lambda t, w, s, seed: (0.0,)": (
            "Not yet: my_shard(0, 1, 1, 0): returned (0.0,), where each worker is a whole number, and 0.0 is "
            "not."
        ),
        "my_shard = lambda t, w: (0,)": "Not yet: my_shard(0, 1, 1, 0): raised TypeError: ",
    },
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
