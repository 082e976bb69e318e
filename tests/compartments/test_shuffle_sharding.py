"""Shuffle sharding: the 28-shard combinatorics by hand and the seeded deal counted twice (notebook 08's
shard table, with plain sharding's quarter, nbval compares)."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations

import pytest

from bulkhead_lab.compartments import shuffle
from bulkhead_lab.compartments.shuffle import Fleet


def test_against_one_poison_pair_15_of_28_pairs_share_no_worker_12_share_one_and_1_shares_both() -> None:
    poison = {0, 1}
    counted = [0, 0, 0]
    for pair in combinations(range(8), 2):  # every shard, each once: the deal's expectation
        counted[len(poison & set(pair))] += 1
    assert counted == [15, 12, 1]
    shares = shuffle.overlap_shares(Fleet())
    assert [Fraction(s).limit_denominator(1000) for s in shares] == [
        Fraction(15, 28),
        Fraction(12, 28),
        Fraction(1, 28),
    ]


def test_a_shard_is_the_same_for_the_same_tenant_and_holds_distinct_workers() -> None:
    for tenant in range(50):
        shard = shuffle.shuffle_shard(tenant, 8, 2)
        assert shard == shuffle.shuffle_shard(tenant, 8, 2)
        assert len(set(shard)) == 2 and all(0 <= w < 8 for w in shard)
        plain = shuffle.plain_shard(tenant, 8, 2)
        assert plain[0] % 2 == 0 and plain == (plain[0], plain[0] + 1)


def test_the_deal_counts_what_a_brute_force_over_every_pair_of_tenants_counts() -> None:
    fleet = Fleet(workers=5, size=2, tenants=60)
    shards = [set(fleet.shard(t)) for t in range(fleet.tenants)]
    brute = [0, 0, 0]
    for a in range(fleet.tenants):
        for b in range(fleet.tenants):
            if a != b:
                brute[len(shards[a] & shards[b])] += 1
    pairs = fleet.tenants * (fleet.tenants - 1)
    assert shuffle.simulate(fleet).overlap == tuple(n / pairs for n in brute)


@pytest.mark.parametrize("sharding", ["shuffle", "plain"])
def test_the_seeded_deal_agrees_with_the_formula_within_its_sampling_noise(sharding: str) -> None:
    fleet = Fleet(sharding=sharding)  # type: ignore[arg-type]
    deal = shuffle.simulate(fleet)
    expected = shuffle.overlap_shares(fleet)[-1]
    # the share of same-shard pairs among 1000 tenants: its standard error is about sqrt(p / n) per tenant
    noise = math.sqrt(expected * (1 - expected) / fleet.tenants)
    assert abs(deal.lose_every_worker - expected) < 3 * noise
    assert deal.shards_used == fleet.shards


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("workers", 1, r"workers must be an integer in 2\.\.64 \(got 1\)"),
        ("size", 8, r"size must be an integer in 1\.\.7 \(got 8\)"),
        ("tenants", 1, r"tenants must be an integer in 2\.\.20000 \(got 1\)"),
        ("sharding", "random", r"sharding must be one of shuffle, plain \(got 'random'\)"),
    ],
)
def test_a_bad_fleet_is_refused_in_one_line(field: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{message}$"):
        Fleet(**{field: value})  # type: ignore[arg-type]
