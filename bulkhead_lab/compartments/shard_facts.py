"""A learner's shuffle shard, judged by behaviour: section 2's deal replayed with the learner's function
(notebook 08's exercise 6).

A *shard function* is ``shard(tenant, workers, size, seed) -> tuple of worker indices``, like
:func:`~bulkhead_lab.compartments.shuffle.shuffle_shard`. :func:`verdict` deals every one of section
2's :data:`~bulkhead_lab.compartments.shuffle.TENANTS` tenants its shard of the lesson's fleet (8
workers, shards of 2) and answers the first fact it breaks, in one line:

1. every tenant gets ``size`` different workers, each one of ``range(workers)`` (in section 2's fleet,
   then in :data:`OTHER_FLEET`, so a shard follows its arguments);
2. the same tenant and seed give the same shard (dealt twice: a shard drawn from the unseeded
   ``random`` differs);
3. the blast radius, the share of other tenants whose whole shard a poison tenant's takes down (each
   tenant in turn the poison one), is within :data:`TOLERANCE` of the combinatorial value,
   ``1 / C(workers, size)`` (1 in 28). Fixed blocks (plain sharding) are named: their blast radius is
   a whole block's tenants, ``1 / (workers // size)``.

Pure: the learner's function is called with the same arguments in the same order every time.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bulkhead_lab.compartments.shuffle import SEED, SIZE, TENANTS, WORKERS

Shard = Callable[[int, int, int, int], object]  # (tenant, workers, size, seed) -> the tenant's workers
OTHER_FLEET = (16, 3, 200)  # workers, size, tenants: a second fleet, for fact 1 only
TOLERANCE = 0.10  # the blast radius may be this share away from 1 / C(workers, size)


class Broken(Exception):
    """The function broke fact 1 or 2, or raised; the message is the one line that says how."""


@dataclass(frozen=True)
class Verdict:
    """A shard function's verdict: ``ok`` (every fact holds) and the one line that says why."""

    ok: bool
    says: str


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 30 else text[:27] + "..."


def _one(shard: Shard, tenant: int, workers: int, size: int, seed: int) -> tuple[int, ...]:
    """The tenant's shard, sorted, or :class:`Broken` naming the call and what was wrong (fact 1)."""
    name = f"{getattr(shard, '__name__', 'your function')}({tenant}, {workers}, {size}, {seed})"
    try:
        got = shard(tenant, workers, size, seed)
    except Exception as exc:  # the learner's code may raise anything: it is the verdict
        why = (str(exc).splitlines() or [""])[0]
        raise Broken(f"{name} raised {type(exc).__name__}{': ' + why if why else ''}.") from None
    if not isinstance(got, (tuple, list)):
        raise Broken(f"{name} returned {_shown(got)}, not a tuple of worker indices.")
    for w in got:
        if not isinstance(w, int) or isinstance(w, bool) or not 0 <= w < workers:
            raise Broken(
                f"{name} returned {_shown(got)}: {_shown(w)} is not one of range({workers}), "
                f"the workers 0..{workers - 1}."
            )
    twice = [w for w, n in Counter(got).items() if n > 1]
    if twice:
        raise Broken(
            f"{name} returned {_shown(got)}: worker {twice[0]} twice, so the tenant has only "
            f"{len(set(got))} different worker{'s' * (len(set(got)) != 1)}, not {size}."
        )
    if len(got) != size:
        raise Broken(f"{name} returned {_shown(got)}: {len(got)} workers, not size = {size}.")
    return tuple(sorted(int(w) for w in got))


def deal(
    shard: Shard, workers: int = WORKERS, size: int = SIZE, tenants: int = TENANTS
) -> list[tuple[int, ...]]:
    """Every tenant's shard of the fleet, dealt with :data:`SEED` (fact 1 checked for each)."""
    return [_one(shard, t, workers, size, SEED) for t in range(tenants)]


def blast_radius(shards: Sequence[tuple[int, ...]]) -> float:
    """The share of ordered (poison, other) tenant pairs where the other's whole shard lies inside the
    poison tenant's (every tenant in turn the poison one)."""
    dealt = Counter(frozenset(s) for s in shards)
    inside = sum(n_a * (n_b - (a == b)) for a, n_a in dealt.items() for b, n_b in dealt.items() if b <= a)
    return inside / (len(shards) * (len(shards) - 1))


def _same_again(shard: Shard, first: list[tuple[int, ...]]) -> None:
    """Fact 2: the deal again, tenant by tenant, gives the same shards."""
    for tenant, was in enumerate(first):
        again = _one(shard, tenant, WORKERS, SIZE, SEED)
        if again != was:
            raise Broken(
                f"tenant {tenant} got {was}, then {again} for the same seed: a shard must be the same "
                "every time (draw from random.Random seeded with the seed and the tenant)."
            )


def _plain(shards: Sequence[tuple[int, ...]]) -> bool:
    """The shards used are fixed blocks: no two different ones share a worker."""
    used = {frozenset(s) for s in shards}
    return sum(len(s) for s in used) == len(frozenset().union(*used))


def verdict(shard: Shard) -> Verdict:
    """The first fact ``shard`` breaks on section 2's deal, or what its deal achieves, in one line."""
    try:
        shards = deal(shard)
        _same_again(shard, shards)
        deal(shard, *OTHER_FLEET)
    except Broken as broken:
        return Verdict(False, str(broken))
    share, pairs = blast_radius(shards), math.comb(WORKERS, SIZE)
    used = len(set(shards))
    radius = f"a poison tenant takes down the whole shard of {share:.2%} of the others (1 in {1 / share:.0f})"
    if abs(share * pairs - 1) <= TOLERANCE:
        return Verdict(
            True,
            f"every tenant of {TENANTS} gets {SIZE} different workers of {WORKERS}, the same ones for the "
            f"same seed, and {radius}, within {TOLERANCE:.0%} of 1 in C({WORKERS}, {SIZE}) = {pairs}; "
            f"the deal uses {used} of the {pairs} pairs.",
        )
    if used == 1:
        return Verdict(
            False,
            f"every tenant gets the same shard, {shards[0]}: {radius}; shuffle sharding deals each tenant "
            f"one of C({WORKERS}, {SIZE}) = {pairs} pairs (seed a generator with the seed and the tenant).",
        )
    if _plain(shards):
        return Verdict(
            False,
            f"your shards are {used} fixed blocks (plain sharding): {radius}, a whole block's tenants, "
            f"where shuffle sharding's {pairs} pairs leave 1 in {pairs}.",
        )
    return Verdict(
        False,
        f"{radius}, not 1 in {pairs} (within {TOLERANCE:.0%}): the deal uses {used} of the "
        f"C({WORKERS}, {SIZE}) = {pairs} pairs{', and not evenly' if used == pairs else ''}.",
    )
