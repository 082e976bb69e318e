"""Notebook 08's exercise 6: does the learner's ``shard(tenant, workers, size, seed)`` deal shuffle shards?

The contract (section 2's :func:`~bulkhead_lab.compartments.shuffle.shuffle_shard` keeps it): for a
fleet of ``workers`` (1 to :data:`MAX_WORKERS`), any ``size`` from 1 to ``workers``, any tenant and seed
(whole numbers from 0; seeds below 2**31),

1. a shard is ``size`` different workers of ``range(workers)``: a tuple, list, set or numpy array of
   whole numbers, numpy's included;
2. a tenant and seed get the same shard every time: in any order of calls, and after a restart (a deal
   that hangs on ``hash()`` of a string, which Python salts per process, is found by dealing again with
   every string hashed as another process would: :func:`another_process`);
3. a deal of :data:`DEAL_TENANTS` tenants (:data:`FEW_SHARDS_TENANTS` where there are 6 shards or fewer)
   uses every worker (judged where each should serve 20 or more), and a poison tenant takes down the
   whole shard of about 1 in C(workers, size) of the others: the tenant pairs on the very same shard are
   at most :data:`MARGIN` over a random deal's count, plus :data:`SIGMAS` of its standard deviations,
   plus 2 (:func:`allowed_pairs`);
4. another seed deals anew: of :data:`SEED_TENANTS` tenants, no more keep their shard than chance (1 in
   C(workers, size)) allows, with the same margin (:func:`allowed`).

:func:`check` asks promises 1 and 2 of :data:`BOUNDARIES` (one worker, size 1, size = workers, the
largest numbers), then of :data:`CALL_EXAMPLES` generated fleets (C(workers, size) at most
:data:`COMBINATIONS`, so a shard found by listing every combination stays quick), and 3 and 4 of
:data:`DEAL_EXAMPLES` generated deals (2 to :data:`DEAL_WORKERS` workers, C(workers, size) at most
:data:`DEAL_COMBINATIONS`), then of section 2's 8 workers in pairs. A failure is shrunk to the smallest
fleet found and named with a line to paste.
"""

from __future__ import annotations

import builtins
import math
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from functools import cache
from numbers import Integral
from typing import Any

from hypothesis import strategies as st

from bulkhead_lab.compartments.shuffle import SEED, SIZE, WORKERS
from bulkhead_lab.course.judges.contract import Broke, Verdict, first_broken, named, returned, search
from bulkhead_lab.course.ui.trial import a_function, call, short_repr

MAX_WORKERS = 64  # the largest fleet generated (section 2's sliders go as far)
DEAL_WORKERS, DEAL_COMBINATIONS = 16, 1000  # the largest fleet dealt to many tenants, its most shards
COMBINATIONS = 5000  # C(workers, size) of a generated fleet is at most this
SEED_MAX = 2**31 - 1  # the largest seed generated
TENANT_MAX = 10**6  # the largest tenant generated
MARGIN, SIGMAS = 0.10, 6.0  # how far over a random deal's count a statistic may go: 10%, plus 6 sd, plus 2
DEAL_TENANTS, FEW_SHARDS_TENANTS = 120, 200  # tenants a deal takes; where C(workers, size) <= 6
SEED_TENANTS = 60  # tenants dealt with a second seed (where C(workers, size) >= 6)
CALL_EXAMPLES, DEAL_EXAMPLES = 20, 3  # generated scenarios: a few tenants each, then whole deals
NAME = "my_shard"  # what a replay calls a deal with no name of its own (a lambda)
Shard = tuple[int, ...]
_REAL_HASH = builtins.hash


@dataclass(frozen=True)
class Calls:
    """A few tenants of one fleet, dealt in order, again in reverse order, then as another process."""

    workers: int
    size: int
    seed: int
    tenants: tuple[int, ...]


@dataclass(frozen=True)
class Deal:
    """A fleet dealt to tenants ``0 .. tenants - 1`` with ``seed``, then some of them with ``other``."""

    workers: int
    size: int
    seed: int
    other: int

    @property
    def shards(self) -> int:
        return math.comb(self.workers, self.size)

    @property
    def tenants(self) -> int:
        return FEW_SHARDS_TENANTS if self.shards <= 6 else DEAL_TENANTS


LESSON = Deal(WORKERS, SIZE, SEED, SEED + 1)  # section 2's fleet: 8 workers in pairs
BOUNDARIES = (
    Calls(1, 1, 0, (0,)),
    Calls(2, 2, 0, (0, 1)),
    Calls(3, 1, 1, (0, 1, 2)),
    Calls(WORKERS, SIZE, SEED, (0, 1, 2)),
    Calls(13, 6, SEED_MAX, (TENANT_MAX, 0)),
    Calls(MAX_WORKERS, 1, 7, (5,)),
    Calls(MAX_WORKERS, MAX_WORKERS, 7, (5,)),
)  # the fleets the contract's bounds name: one worker, size 1, size = workers, the largest numbers


@cache
def sizes(workers: int) -> tuple[int, ...]:
    """The sizes generated for ``workers``: 1 to ``workers``, C(workers, size) at most COMBINATIONS."""
    return tuple(k for k in range(1, workers + 1) if math.comb(workers, k) <= COMBINATIONS)


def _size(workers: int, drawn: int) -> int:
    """A size for ``workers`` from a drawn 0..MAX_WORKERS: 0 is 1 (shrinks there), the largest ``workers``."""
    return workers if drawn == MAX_WORKERS else sizes(workers)[drawn % len(sizes(workers))]


WORKERS_DRAWN = st.integers(1, MAX_WORKERS)
SIZE_DRAWN = st.integers(0, MAX_WORKERS)
SEED_DRAWN = st.integers(0, SEED_MAX)
CALLS = st.tuples(
    WORKERS_DRAWN, SIZE_DRAWN, SEED_DRAWN, st.lists(st.integers(0, TENANT_MAX), min_size=1, max_size=4)
).map(lambda d: Calls(d[0], _size(d[0], d[1]), d[2], tuple(dict.fromkeys(d[3]))))
DEALS = st.tuples(st.integers(2, DEAL_WORKERS), SIZE_DRAWN, SEED_DRAWN, st.integers(1, 2**20)).map(
    lambda d: Deal(d[0], _half(d[0], d[1]), d[2], d[2] + d[3])
)


def _half(workers: int, drawn: int) -> int:
    """A size for a deal: up to half the workers (C(workers, size) = C(workers, workers - size), and a
    smaller shard is quicker to draw); 0 is 1, the largest ``workers // 2``."""
    half = [k for k in sizes(workers) if k <= workers // 2 and math.comb(workers, k) <= DEAL_COMBINATIONS]
    return half[-1] if drawn == MAX_WORKERS else half[drawn % len(half)]


def _items(got: object) -> list[object] | None:
    """What ``got`` holds when it is a collection of workers (not a string or a mapping), else None."""
    if isinstance(got, (str, bytes, bytearray, Mapping)) or not isinstance(got, Collection):
        return None
    try:
        return list(got)
    except Exception:  # a learner's collection that cannot be listed (numpy's 0-d array)
        return None


def _shard(got: object, workers: int, size: int) -> tuple[Shard | None, str, str]:
    """The shard ``got`` is, sorted; or None, what came back and what promise 1 expects."""
    items = _items(got)
    if items is not None and all(type(w) is int and 0 <= w < workers for w in items):
        if len(items) == size and len(set(items)) == size:  # the usual case, quickly
            return tuple(sorted(items)), "", ""  # type: ignore[arg-type]
    shown, wanted = f"returned {short_repr(got)}", f"{size} different worker{'s' * (size != 1)}"
    if items is None:
        return None, shown, f"where the contract expects a tuple of {wanted} of range({workers})"
    for w in items:
        if not isinstance(w, Integral) or isinstance(w, bool):
            return None, shown, f"where each worker is a whole number, and {short_repr(w)} is not"
        if not 0 <= int(w) < workers:
            return None, shown, f"where each worker is one of range({workers}), and {int(w)} is not"
    dealt = Counter(int(w) for w in items)  # type: ignore[call-overload]
    twice = [w for w, n in dealt.items() if n > 1]
    if twice:
        return None, f"{shown}, worker {twice[0]} twice", f"where a shard is {wanted}"
    if len(items) != size:
        many = f"{len(items)} worker{'s' * (len(items) != 1)}"
        return None, f"{shown}, {many}", f"where size is {size}"
    return tuple(sorted(dealt)), "", ""


def dealt(fn: Callable[..., object], tenant: int, workers: int, size: int, seed: int) -> Shard:
    """The tenant's shard from ``fn``, sorted; a :class:`Broke` naming the call when it breaks promise 1."""
    case = f"{named(fn, NAME)}({tenant}, {workers}, {size}, {seed})"
    got, fault = returned(fn, tenant, workers, size, seed)
    if fault is not None:
        wanted = f"{size} different worker{'s' * (size != 1)} of range({workers})"
        raise Broke(case, fault.removeprefix("it "), f"where the contract expects {wanted}", case)
    shard, said, wanted = _shard(got, workers, size)
    if shard is None:
        raise Broke(case, said, wanted, case)
    return shard


def _salted(value: object) -> tuple[bool, object]:
    """``value`` with each string (or bytes) in it, nested in tuples and frozensets, wrapped in a tuple:
    whether anything changed, and the value to hash instead."""
    if isinstance(value, (str, bytes)):
        return True, ("another process", value)
    if isinstance(value, (tuple, frozenset)):
        parts = [_salted(v) for v in value]
        if any(changed for changed, _ in parts):
            return True, type(value)(v for _, v in parts)
    return False, value


def salted_hash(value: object) -> int:
    """``hash(value)`` as another Python process might give it: strings and bytes (also inside tuples
    and frozensets) hash otherwise; numbers, and everything else, as they do here (as in every process)."""
    changed, salted = _salted(value)
    return _REAL_HASH(salted if changed else value)


@contextmanager
def another_process() -> Iterator[None]:
    """Within: the builtin ``hash`` hashes strings as another process (another PYTHONHASHSEED) would."""
    builtins.hash = salted_hash
    try:
        yield
    finally:
        builtins.hash = _REAL_HASH


def _twice(
    fn: Callable[..., object], c: Calls, t: int, was: Shard, now: Shard, order: tuple[int, ...]
) -> Broke:
    """The Broke of a tenant's shard that changed from call to call (``order``: the tenants called)."""
    name, fleet = named(fn, NAME), f"{c.workers}, {c.size}, {c.seed}"
    if set(order) == {t}:  # one tenant, called again and again
        replay = f"{{tuple(sorted({name}({t}, {fleet}))) for _ in range(20)}}"
        return Broke(f"{name}({t}, {fleet}) called again", f"returned {was}, then {now}", _ONE, replay)
    return Broke(
        f"{name}({t}, {fleet}) called twice, in the calls for tenants {order}",
        f"returned {was}, then {now}",
        _ONE,
        f"[{name}(t, {fleet}) for t in {order}]",
    )


_ONE = "where a tenant and seed always get one shard"


def _steady(fn: Callable[..., object], c: Calls, t: int, was: Shard, now: Shard) -> None:
    """Before a shard that changed with the strings' hash is blamed on it: the call again, 12 times as
    here and 8 as in another process, each giving the same (a deal that changes anyway is named so)."""
    for salted, times in ((False, 12), (True, 8)):
        for _ in range(times):
            with another_process() if salted else nullcontext():
                here = dealt(fn, t, c.workers, c.size, c.seed)
            if here != (now if salted else was):
                raise _twice(fn, c, t, now if salted else was, here, (t, t))


def _same_again(fn: Callable[..., object], c: Calls) -> None:
    """Promise 2: the tenants dealt again, in reverse order, then with strings hashed otherwise."""
    first = [dealt(fn, t, c.workers, c.size, c.seed) for t in c.tenants]
    clear = getattr(fn, "cache_clear", None)  # functools' caches: deal afresh, as after a restart
    if callable(clear):
        call(clear)
    again = [dealt(fn, t, c.workers, c.size, c.seed) for t in reversed(c.tenants)][::-1]
    order = (*c.tenants, *reversed(c.tenants))
    for t, was, now in zip(c.tenants, first, again, strict=True):
        if was != now:
            raise _twice(fn, c, t, was, now, order)
    with another_process():
        salted = [dealt(fn, t, c.workers, c.size, c.seed) for t in c.tenants]
    for t, was, now in zip(c.tenants, first, salted, strict=True):
        if was == now:
            continue
        _steady(fn, c, t, was, now)
        case = f"{named(fn, NAME)}({t}, {c.workers}, {c.size}, {c.seed})"
        raise Broke(
            f"{case} in a process that hashes strings otherwise (another PYTHONHASHSEED)",
            f"returned {now}, and {was} in this one",
            "where a restart must not deal anew: Python salts hash() of a string per process",
            f"{case}  # then Kernel > Restart, run your cell, and call it again",
        )


def allowed(trials: int, chance: float) -> float:
    """The most events of ``chance`` each a random deal may show in ``trials``: its expected count,
    :data:`MARGIN` over, plus :data:`SIGMAS` standard deviations, plus 2."""
    return trials * chance * (1 + MARGIN) + SIGMAS * math.sqrt(trials * chance * (1 - chance)) + 2


def allowed_pairs(tenants: int, shards: int) -> float:
    """The most tenant pairs on the very same shard a random deal of ``shards`` may show among
    ``tenants``: as :func:`allowed`, the standard deviations read from the chi-square law of the
    shards' counts where it is wider (few shards: pairs are Sum C(m, 2) = (X2 tenants / shards +
    tenants**2 / shards - tenants) / 2, X2 chi-square with shards - 1 degrees of freedom, its
    :data:`SIGMAS`-sigma quantile by Wilson and Hilferty)."""
    df = shards - 1
    quantile = df * (1 - 2 / (9 * df) + SIGMAS * math.sqrt(2 / (9 * df))) ** 3
    pairs, chance = math.comb(tenants, 2), 1 / shards
    spread = max(SIGMAS * math.sqrt(pairs * chance * (1 - chance)), (quantile - df) * tenants / (2 * shards))
    return pairs * chance * (1 + MARGIN) + spread + 2


def pairs_alike(shards: Sequence[Shard]) -> int:
    """The tenant pairs (unordered) on the very same shard."""
    return sum(n * (n - 1) // 2 for n in Counter(shards).values())


def _spread(shards: Sequence[Shard], d: Deal) -> str:
    """What the deal's shards are, in a few words: one shard, fixed blocks, few, or uneven."""
    used = Counter(shards)
    if len(used) == 1:
        return f"every tenant got the same shard, {shards[0]}"
    if sum(map(len, used)) == len(set().union(*used)) and len(used) > 1:
        return f"the deal uses {len(used)} fixed blocks that share no worker (plain sharding)"
    if len(used) < d.shards:
        return f"the deal uses {len(used)} of the C({d.workers}, {d.size}) = {d.shards} shards"
    top, n = used.most_common(1)[0]
    return f"it uses all {d.shards} shards, unevenly: {n} tenants on {top}"


def _unused(shards: Sequence[Shard], d: Deal, case: str, name: str) -> Broke | None:
    """Promise 3's first half: every worker serves tenants (judged where each should serve 20 or more)."""
    unused, expected = sorted(set(range(d.workers)) - set().union(*shards)), d.tenants * d.size / d.workers
    if not unused or expected < 20:
        return None
    shown = ", ".join(map(str, unused[:6])) + (", ..." if len(unused) > 6 else "")
    return Broke(
        case,
        f"no tenant got worker{'s' * (len(unused) > 1)} {shown}",
        f"where every worker of range({d.workers}) serves tenants, about {expected:.0f} each",
        f"sorted(set().union(*({name}(t, {d.workers}, {d.size}, {d.seed}) for t in range({d.tenants}))))",
    )


def _sunk(shards: Sequence[Shard], d: Deal, case: str, name: str) -> Broke | None:
    """Promise 3's second half: the blast radius, as tenant pairs on the very same shard."""
    pairs, most = math.comb(d.tenants, 2), allowed_pairs(d.tenants, d.shards)
    if pairs_alike(shards) <= most:
        return None
    share = pairs_alike(shards) / pairs
    return Broke(
        case,
        f"{_spread(shards, d)}: a poison tenant takes down the whole shard of {share:.2%} of the others "
        f"(1 in {1 / share:.0f})",
        f"where C({d.workers}, {d.size}) = {d.shards} shards dealt at random leave about 1 in {d.shards} "
        f"({1 / d.shards:.2%}), at most {most / pairs:.2%} passes",
        f"from collections import Counter; Counter(frozenset({name}(t, {d.workers}, {d.size}, {d.seed})) "
        f"for t in range({d.tenants})).most_common(3)",
    )


def _spread_well(fn: Callable[..., object], d: Deal) -> None:
    """Promises 3 and 4 on one deal."""
    name, fleet = named(fn, NAME), f"{d.workers}, {d.size}"
    shards = [dealt(fn, t, d.workers, d.size, d.seed) for t in range(d.tenants)]
    case = (
        f"dealing tenants 0 to {d.tenants - 1} a shard of {d.size} of {d.workers} workers with seed {d.seed}"
    )
    one = len(set(shards)) == 1  # every tenant on one shard: named by the blast radius first
    broke = (
        _sunk(shards, d, case, name)
        if one
        else _unused(shards, d, case, name) or _sunk(shards, d, case, name)
    )
    if broke:
        raise broke
    if d.shards < 6:  # too few shards to tell another seed's deal from chance in a few tenants
        return
    again = [dealt(fn, t, d.workers, d.size, d.other) for t in range(SEED_TENANTS)]
    alike, most = (
        sum(a == b for a, b in zip(shards, again, strict=False)),
        allowed(SEED_TENANTS, 1 / d.shards),
    )
    if alike > most:
        raise Broke(
            f"dealing tenants 0 to {SEED_TENANTS - 1} a shard of {d.size} of {d.workers} workers with seed "
            f"{d.seed}, then with seed {d.other}",
            f"{alike} of the {SEED_TENANTS} tenants got the same shard both times",
            f"where another seed deals anew: about {SEED_TENANTS / d.shards:.0f} alike by chance (1 in "
            f"{d.shards}), at most {math.floor(most)} passes",
            f"sum(set({name}(t, {fleet}, {d.seed})) == set({name}(t, {fleet}, {d.other})) "
            f"for t in range({SEED_TENANTS}))",
        )


PROPERTIES = (
    f"every shard is size different workers of range(workers) (1 to {MAX_WORKERS} workers, size 1 to "
    f"workers)",
    "a tenant and seed get the same shard in any order of calls and whatever hash() gives a string",
    f"deals of {DEAL_TENANTS} to {FEW_SHARDS_TENANTS} tenants (and section 2's) use every worker, and a "
    "poison tenant takes down the whole shard of about 1 in C(workers, size) of the others "
    f"({MARGIN:.0%} over chance and {SIGMAS:g} standard deviations allowed)",
    "another seed deals anew",
)


def check(candidate: object) -> Verdict:
    """The verdict on ``candidate`` as ``shard(tenant, workers, size, seed)``: every promise kept over the
    boundary fleets and the generated scenarios, or the smallest case found that breaks one."""
    fn = a_function(candidate, "check(my_shard)")
    seen = [0]

    def counted(prop: Callable[[Callable[..., object], Any], None]) -> Callable[[Any], None]:
        def run(scenario: Calls | Deal) -> None:
            seen[0] += 1
            prop(fn, scenario)

        return run

    same, spread = counted(_same_again), counted(_spread_well)
    broke = (
        first_broken(same, BOUNDARIES)  # the smallest first
        or search(same, CALLS, examples=CALL_EXAMPLES)
        or search(spread, DEALS, examples=DEAL_EXAMPLES)
        or first_broken(spread, (LESSON,))  # section 2's fleet, last
    )
    return Verdict.broke(broke) if broke else Verdict.right(seen[0], PROPERTIES)
