"""Shuffle sharding: each tenant on a few workers of its own choosing, so one poison tenant sinks few others.

``workers`` serve every tenant; a tenant is served by a *shard* of ``size`` of them, and a
client that retries on another worker of its shard stays up while one of them is. A poison
tenant (a request that crashes whatever serves it, a flood) takes down its whole shard.

- **Plain sharding** cuts the workers into ``workers // size`` fixed shards: a tenant shares
  its shard's fate with everyone on the same shard, ``1 / (workers // size)`` of the others
  (8 workers in shards of 2: 4 shards, a quarter of the tenants).
- **Shuffle sharding** gives each tenant its own combination: ``C(workers, size)`` shards (28
  for 8 workers in pairs). Another tenant loses *every* worker only when its shard lies inside
  the poison tenant's, which for shards of one size means the same shard: ``1 / C(8, 2)`` = 1/28
  of them. Most others lose one worker or none, and their retries land on a healthy one.

The share of tenants whose shard overlaps the poison one's in ``o`` workers is the lottery's
hypergeometric count, ``C(size, o) C(workers - size, size - o) / C(workers, size)`` (Colm
MacCarthaigh, "Workload isolation using shuffle-sharding", Amazon Builders' Library, 2019).
:func:`simulate` deals seeded shards to many tenants and counts, with every tenant in turn the
poison one; its shares agree with the formula to within the sampling noise of the deal.

Pure: the deal is seeded (Python's :class:`random.Random`, seeded per tenant).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from bulkhead_lab.validation import check_choice, check_int

Sharding = Literal["shuffle", "plain"]
SHARDINGS: tuple[Sharding, ...] = ("shuffle", "plain")
WORKERS, SIZE, TENANTS, SEED = 8, 2, 1000, 20260801
MAX_WORKERS, MAX_TENANTS = 64, 20_000


# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/08_choosing_compartments.ipynb, section 2. Shuffle sharding
def shuffle_shard(tenant: int, workers: int, size: int, seed: int = SEED) -> tuple[int, ...]:
    """The tenant's shard: ``size`` different workers, drawn by a generator seeded with the tenant."""
    draw = random.Random(seed * 1_000_003 + tenant)
    return tuple(sorted(draw.sample(range(workers), size)))


def plain_shard(tenant: int, workers: int, size: int, seed: int = SEED) -> tuple[int, ...]:
    """The tenant's shard when the workers are cut into fixed shards: one of ``workers // size``."""
    first = random.Random(seed * 1_000_003 + tenant).randrange(workers // size) * size
    return tuple(range(first, first + size))


# <<< saved cells


@dataclass(frozen=True)
class Fleet:
    """How many workers, how big a shard, how many tenants, and how shards are dealt."""

    workers: int = WORKERS
    size: int = SIZE
    tenants: int = TENANTS
    sharding: Sharding = "shuffle"
    seed: int = SEED

    def __post_init__(self) -> None:
        check_int("workers", self.workers, 2, MAX_WORKERS)
        check_int("size", self.size, 1, self.workers - 1)
        check_int("tenants", self.tenants, 2, MAX_TENANTS)
        check_choice("sharding", self.sharding, SHARDINGS)
        check_int("seed", self.seed, 0)

    @property
    def shards(self) -> int:
        """How many different shards there are."""
        if self.sharding == "plain":
            return self.workers // self.size
        return math.comb(self.workers, self.size)

    def shard(self, tenant: int) -> tuple[int, ...]:
        deal = shuffle_shard if self.sharding == "shuffle" else plain_shard
        return deal(tenant, self.workers, self.size, self.seed)


def overlap_shares(fleet: Fleet) -> tuple[float, ...]:
    """By the formula: the share of other tenants whose shard shares 0, 1, ... ``size`` workers with
    the poison tenant's (index = workers shared). The last entry is the share that loses every worker."""
    n, k = fleet.workers, fleet.size
    if fleet.sharding == "plain":  # the same shard, or none of its workers
        same = 1 / fleet.shards
        return (1 - same,) + (0.0,) * (k - 1) + (same,)
    total = math.comb(n, k)
    return tuple(math.comb(k, o) * math.comb(n - k, k - o) / total for o in range(k + 1))


@dataclass(frozen=True)
class Deal:
    """A seeded deal of shards to tenants, each tenant in turn the poison one."""

    fleet: Fleet
    shards_used: int  # different shards the deal gave out
    overlap: tuple[float, ...]  # share of (poison, other) pairs sharing 0, 1, ... size workers

    @property
    def lose_every_worker(self) -> float:
        """The share of other tenants left with no healthy worker (averaged over every poison tenant)."""
        return self.overlap[-1]


def simulate(fleet: Fleet = Fleet()) -> Deal:
    """Deal every tenant its shard; count, over all ordered (poison, other) pairs, the workers they share."""
    dealt = Counter(sum(1 << w for w in fleet.shard(t)) for t in range(fleet.tenants))  # shard as a bit mask
    shared = [0] * (fleet.size + 1)
    for a, count_a in dealt.items():
        shared[fleet.size] += count_a * (count_a - 1)  # the others on the very same shard
        for b, count_b in dealt.items():
            if b != a:
                shared[(a & b).bit_count()] += count_a * count_b
    pairs = fleet.tenants * (fleet.tenants - 1)
    return Deal(fleet, len(dealt), tuple(s / pairs for s in shared))
