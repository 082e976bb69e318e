"""Notebook 03's exercise 4: does the learner's ``my_pool_for(limits, pool)`` place a pool per dependency?

The contract. ``my_pool_for`` gets a service's ``limits`` (``{"notification": 4, "catalog": 4}``: each
dependency's name and its slots, 1 to :data:`~bulkhead_lab.live.placement.pools.MAX_POOL_SLOTS`) and
``pool(n)``, which makes a new pool of ``n`` slots (any whole number: numpy's too). It returns
``pool_for(dependency)``, which every call site calls, once per call, for the pool its call goes through.
Then, for every service, in any order of calls:

- every call of ``pool_for(d)`` gets a pool made by this service's ``pool(n)`` (None is no pool at all);
- the *same* pool every time for one dependency (a new pool per call limits nothing);
- a pool of its own for each dependency, and for each service (one shared pool lets the slow one hold
  every slot; a pool kept between services is another service's);
- of its own limit: made by ``pool(limits[d])``;
- nothing left unclosed: the batch closes the pools ``pool_for`` hands out, so ``pool(n)`` makes no pool
  it never hands out (a ``setdefault(d, pool(n))`` makes one on every call);
- ``limits`` stays as it was given.

:func:`check` runs these without sockets, with toy pools (:class:`ToyPool`) that say their number and
slots: on two services made side by side first (a cache kept between calls of ``my_pool_for`` shows
there), then on :data:`SCENARIOS` seeded scenarios (:func:`random_scenario`: one to three services of one
to five dependencies, limits from 1 to 1000, up to :data:`MAX_ASKS` calls in any order, and every
dependency asked once more as the batch closes). Once one fails, Hypothesis draws the same kind
(:func:`scenarios`) for the smallest that fails, named with a line to replay in notebook 03
(``exercises.toy_pool()``). A contract that holds is then run once live (:func:`live_batch`): two
dependencies on 127.0.0.1 and the learner's pools as aiohttp sessions; each dependency sees at most its
limit at once, and the slow one delays no other's calls. :func:`pool_for_each` is the course's own answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any, TypeVar

from hypothesis import strategies as st

from bulkhead_lab.course.judges.contract import (
    Broke,
    Verdict,
    named,
    returned,
    run_loop,
    search,
    traced,
    untraced,
)
from bulkhead_lab.course.ui.trial import Fault, a_function, call, short_repr
from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.placement import pools as live
from bulkhead_lab.live.placement.pools import MAX_POOL_SLOTS

P = TypeVar("P")
NAMES = ("notification", "catalog", "payment", "inventory", "search", "email", "pricing", "ledger")
SCENARIOS = 300  # generated scenarios a right answer passes (seeded: the same ones every check)
SEED = 3
EXAMPLES = 120  # Hypothesis's scenarios, searched for the smallest failing one once a scenario fails
MAX_ASKS = 16  # generated calls of pool_for in a scenario, before the closing ones
#: The services made side by side before the generated ones: lesson 003's and one more, sharing names.
SIDE_BY_SIDE = ({"notification": 4, "catalog": 4}, {"notification": 2, "payment": 3, "catalog": 5})

#: The live batch: each dependency's slots, latency (s) and calls: two waves of each, the slow one's calls
#: as many as both pools' slots (one shared pool would hold catalog's calls until its first answer).
LIVE = {"notification": (2, 0.15, 4), "catalog": (2, 0.005, 4)}
SLOW = "notification"
LIVE_SECONDS = 1.0
#: What a Right line says held in every generated scenario.
PROPERTIES = (
    "each call got a pool made by pool(n), the same pool every time for one dependency",
    "none shared by two dependencies or two services",
    "each made by pool(its limit)",
    "no pool made that no call got (it would never be closed)",
    "limits left as given",
)


def pool_for_each(limits: Mapping[str, int], pool: Callable[[int], P]) -> Callable[[str], P]:
    """One pool per dependency, each of its own limit, made once; every call site asks for its own."""
    pools = {dependency: pool(slots) for dependency, slots in limits.items()}
    return lambda dependency: pools[dependency]


class Kept(Broke):
    """A service handed out a pool another service (or an earlier call of the learner's function) made."""


class ToyPool:
    """A pool as the contract sees it: ``number`` (the order ``pool(n)`` made it in) and its ``slots``."""

    def __init__(self, maker: ToyPoolMaker, number: int, slots: int, service: int) -> None:
        self.maker, self.number, self.slots, self.service = maker, number, slots, service

    def __repr__(self) -> str:
        return f"pool #{self.number} ({self.slots} slot{'' if self.slots == 1 else 's'})"


class ToyPoolMaker:
    """``pool(n)``: a new :class:`ToyPool` of ``n`` slots, numbered; ``made`` lists them in order, and
    ``refused`` the first call that was not a whole number of slots 1..1000 (refused as the live one is)."""

    def __init__(self) -> None:
        self.made: list[ToyPool] = []
        self.refused: str | None = None
        self.service = 0  # the service whose code is running (the judge sets it before each call)

    def __call__(self, limit: object) -> ToyPool:
        slots = int(limit) if isinstance(limit, Integral) and not isinstance(limit, bool) else 0
        if not 1 <= slots <= MAX_POOL_SLOTS:
            self.refused = self.refused or f"pool({short_repr(limit)})"
            raise ValueError(f"limit must be a whole number from 1 to {MAX_POOL_SLOTS} (got {limit!r})")
        self.made.append(ToyPool(self, len(self.made) + 1, slots, self.service))
        return self.made[-1]

    def __repr__(self) -> str:
        return "pool"


def a_maker(candidate: object) -> Callable[..., Any]:
    """The learner's ``my_pool_for``: a function, or a class (its instances are then ``pool_for``); anything
    else, or an ``async def``, a one-line :class:`Fault`."""
    if isinstance(candidate, type):
        return candidate
    return a_function(candidate, "check(my_pool_for)")


def toy_pool() -> ToyPoolMaker:
    """A ``pool(n)`` for a replay in a cell: its pools say their number and slots, ``.made`` lists them."""
    return ToyPoolMaker()


@dataclass(frozen=True)
class Scenario:
    """Services made side by side (each one's limits), then calls of their ``pool_for``: (service, name)."""

    services: tuple[dict[str, int], ...]
    asks: tuple[tuple[int, str], ...]

    def closing(self) -> tuple[tuple[int, str], ...]:
        """The calls, then every dependency of every service once more: the batch asks for what it closes."""
        return self.asks + tuple((i, d) for i, limits in enumerate(self.services) for d in limits)


limits_st = st.dictionaries(
    st.sampled_from(NAMES),
    st.one_of(st.integers(1, 6), st.integers(1, MAX_POOL_SLOTS)),
    min_size=1,
    max_size=5,
)


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    """One to three services, then up to :data:`MAX_ASKS` calls among their dependencies in an order drawn
    from a seed (two draws, not two per call: Hypothesis's drawing is most of a search's time)."""
    services = tuple(draw(st.lists(limits_st, min_size=1, max_size=3)))
    picks = [(i, d) for i, limits in enumerate(services) for d in limits]
    asks, order = draw(st.integers(0, MAX_ASKS)), random.Random(draw(st.integers(0, 2**16)))
    return Scenario(services, tuple(order.choice(picks) for _ in range(asks)))


def random_scenario(rng: random.Random) -> Scenario:
    """A scenario as :func:`scenarios` draws them, from ``rng``: generating it costs a hundredth as much
    (Hypothesis's engine costs 1 to 3 ms a scenario), so a right answer is checked on many more."""
    services = []
    for _ in range(rng.randint(1, 3)):
        names = rng.sample(NAMES, rng.randint(1, 5))
        services.append(
            {n: rng.choice((1, rng.randint(1, 6), rng.randint(1, MAX_POOL_SLOTS))) for n in names}
        )
    picks = [(i, d) for i, limits in enumerate(services) for d in limits]
    return Scenario(tuple(services), tuple(rng.choice(picks) for _ in range(rng.randint(0, MAX_ASKS))))


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@dataclass
class Run:
    """One scenario as the learner's code meets it: what each call got, and the lines that name it."""

    name: str  # the learner's function's name, as the replay calls it
    scenario: Scenario
    kept_only: bool = False  # judge only that each service hands out pools of its own (:class:`Kept`)
    pool: ToyPoolMaker = field(default_factory=ToyPoolMaker)
    pool_fors: list[Callable[[str], Any]] = field(default_factory=list)
    given: list[dict[str, int]] = field(default_factory=list)  # the dicts passed (the learner's to change)
    first: dict[tuple[int, str], ToyPool] = field(default_factory=dict)  # each dependency's first pool
    owner: dict[int, tuple[int, str]] = field(default_factory=dict)  # id(pool) -> who got it first
    calls: list[tuple[int, str]] = field(default_factory=list)  # the calls made so far

    def fn(self, service: int) -> str:
        """How the replay names ``service``'s pool_for: ``pool_for``, or ``a``, ``b``, ``c``."""
        return "pool_for" if len(self.scenario.services) == 1 else "abc"[service]

    def asked(self, calls: Sequence[tuple[int, str]]) -> str:
        return ", ".join(f"{self.fn(i)}({d!r})" for i, d in calls)

    def making(self, upto: int | None = None, named: int | None = None) -> list[str]:
        """Each service made, as a cell writes it (``a = my_pool_for({...}, pool)``), the ``named`` one's
        limits as ``limits``."""
        services = self.scenario.services[:upto]
        return [f"{self.fn(i)} = {self.name}({'limits' if i == named else repr(s)}, pool)"
                for i, s in enumerate(services)]  # fmt: skip

    def made(self, upto: int | None = None, bare: bool = False) -> str:
        """The services made, for a line; ``bare``: the last one as the call alone (it failed)."""
        making = self.making(upto)
        if bare:
            making[-1] = making[-1].split(" = ", 1)[1]
        return " and ".join(making)

    def replay(self, tail: str = "", named: int | None = None) -> str:
        """One line for a notebook 03 cell: a toy ``pool``, the services, the calls so far and ``tail``; a
        service that failed as it was made ends it as a bare call (its value shown), ``named``'s limits
        as ``limits`` first."""
        steps = ["pool = exercises.toy_pool()"]
        if named is not None:
            steps.append(f"limits = {self.scenario.services[named]!r}")
        if self.calls:
            return "; ".join([*steps, *self.making(None, named), self.asked(self.calls) + tail])
        *before, failed = self.making(len(self.pool_fors) + 1, named)
        return "; ".join([*steps, *before, failed.split(" = ", 1)[1] + tail])

    def broke(self, got: str, expected: str, kept: bool = False) -> Broke:
        """The scenario up to the call just made: what it got, what the contract expects, the replay
        (a :class:`Kept` when ``kept``)."""
        if self.calls:
            i, d = self.calls[-1]
            case = f"after {self.made()}, the {ordinal(len(self.calls))} call {self.fn(i)}({d!r})"
        else:
            case = self.made(len(self.pool_fors) + 1, bare=True)
        return (Kept if kept else Broke)(case, got, expected, self.replay())


def contract(make: Callable[..., Any], scenario: Scenario, kept_only: bool = False) -> None:
    """The scenario's services made, then every call (the closing ones included); Broke at the first
    promise broken (only :class:`Kept` when ``kept_only``)."""
    run = Run(named(make, "my_pool_for"), scenario, kept_only)
    for i, limits in enumerate(scenario.services):
        run.pool.service = i
        run.given.append(dict(limits))
        pool_for = _fault_or(run, make, run.given[i], run.pool)
        _limits_unchanged(run)
        if not callable(pool_for):
            raise run.broke(f"it returned {short_repr(pool_for)}", "where the contract expects a function "
                            "pool_for(dependency)")  # fmt: skip
        run.pool_fors.append(pool_for)
    for i, dependency in scenario.closing():
        run.calls.append((i, dependency))
        run.pool.service = i
        got = _fault_or(run, run.pool_fors[i], dependency)
        _limits_unchanged(run)
        _one_pool(run, i, dependency, got)
    if not kept_only:
        _all_handed_out(run)


def _fault_or(run: Run, fn: Callable[..., Any], *args: object) -> Any:
    """What the learner's ``fn(*args)`` returned; what it raised, or a pool(n) it asked wrongly, as Broke."""
    got, fault = returned(traced, fn, *args)
    if fault is not None and run.pool.refused is None:
        raise run.broke(
            fault, "where every call expects a pool" if run.calls else "where it returns pool_for"
        )
    if run.pool.refused is not None:
        raise run.broke(f"it called {run.pool.refused}", f"where pool(n) takes a whole number of slots, "
                        f"1 to {MAX_POOL_SLOTS}")  # fmt: skip
    return got


def _limits_unchanged(run: Run) -> None:
    """``limits`` as it was given, every service's."""
    for i, (limits, given) in enumerate(zip(run.scenario.services, run.given, strict=False)):
        if given != limits:
            broke = run.broke(f"it changed its limits {limits!r} to {short_repr(given)}",
                              "where the contract expects them left as they were given")  # fmt: skip
            broke.replay = run.replay(", limits", named=i)
            raise broke


def _one_pool(run: Run, service: int, dependency: str, got: object) -> None:
    """The promises about one call's pool: made here, for this service, the same each time, its own, sized."""
    if not isinstance(got, ToyPool):
        said = "None, no pool at all" if got is None else f"{short_repr(got)}, not a pool made by pool(n)"
        raise run.broke(f"it returned {said}", "where every call expects a pool made by pool(n)")
    if got.maker is not run.pool:
        raise run.broke(f"it returned {got!r}, made before this {run.name}(limits, pool) was called",
                        "where each call hands out only pools its own pool(n) made", kept=True)  # fmt: skip
    if got.service != service:
        raise run.broke(f"it returned {got!r}, made for {run.fn(got.service)}",
                        "where each service's pools are its own", kept=True)  # fmt: skip
    if run.kept_only:
        return
    key, fn = (service, dependency), run.fn(service)
    first = run.first.setdefault(key, got)
    if first is not got:
        raise run.broke(f"it returned {got!r}, a new one: the 1st {fn}({dependency!r}) returned {first!r}",
                        f"where every call for {dependency} expects the same pool")  # fmt: skip
    other = run.owner.setdefault(id(got), key)
    if other != key:
        raise run.broke(f"it returned {got!r}, the pool {run.fn(other[0])}({other[1]!r}) got",
                        "where each dependency expects a pool of its own")  # fmt: skip
    limit = run.scenario.services[service][dependency]
    if got.slots != limit:
        raise run.broke(f"it returned {got!r}", f"where {dependency}'s limit is {limit}: its pool is "
                        f"pool({limit})")  # fmt: skip


def _all_handed_out(run: Run) -> None:
    """Every pool made was handed out (the batch closes those; any other is never closed)."""
    left = [p for p in run.pool.made if id(p) not in run.owner]
    if left:
        made, out = len(run.pool.made), len(run.owner)
        raise Broke(
            f"after {run.made()} and the calls {run.asked(run.calls)}",
            f"pool(n) had made {made} pools and the calls got {out}: {left[0]!r} was never handed out, "
            "so the batch never closes it",
            "where the contract expects one pool per dependency, each handed to its calls",
            run.replay("; pool.made"),
        )


def check(make: Callable[..., Any]) -> Verdict:
    """``make`` judged: two services side by side, then generated scenarios, then one live batch."""
    with untraced():  # but the learner's calls (:func:`_fault_or`)
        first = broken(make)
    if first is not None:
        return Verdict.broke(first)
    try:
        seen = run_loop(lambda: live_batch(make), LIVE_SECONDS)
    except Broke as broke:
        return Verdict.broke(broke)
    return Verdict(True, f"{Verdict.right(SCENARIOS, PROPERTIES).says[:-1]}; and {seen}.")


def broken(make: Callable[..., Any]) -> Broke | None:
    """The first promise ``make`` breaks, in the smallest scenario found, or None."""
    try:  # a cache kept between calls of make shows most plainly here; anything else, smallest, below
        contract(make, Scenario(SIDE_BY_SIDE, ()), kept_only=True)
    except Kept as kept:
        return kept
    except Broke:
        pass
    rng = random.Random(SEED)
    for _ in range(SCENARIOS):
        try:
            contract(make, random_scenario(rng))
        except Broke as broke:  # the smallest failing scenario Hypothesis finds, else this one
            return search(lambda s: contract(make, s), scenarios(), examples=EXAMPLES) or broke
    return None


@dataclass
class Seen:
    """What the live batch's call sites saw: the slow one's first answer, the others' calls done by then."""

    first: float | None = None
    before: dict[str, int] = field(default_factory=dict)


async def live_batch(make: Callable[..., Any]) -> str:
    """The learner's pools as aiohttp sessions against two dependencies on 127.0.0.1, every call at once;
    each dependency's peak within its limit and every fast call done before the slow one's first answer,
    said as one clause, or Broke. Every pool the learner's code made is closed."""
    made: list[Any] = []

    def pool(limit: int) -> Any:
        made.append(live.pool(limit))
        return made[-1]

    limits = {name: slots for name, (slots, _, _) in LIVE.items()}
    deps = {name: Dependency(name, latency) for name, (_, latency, _) in LIVE.items()}
    seen = Seen(before=dict.fromkeys((d for d in LIVE if d != SLOW), 0))
    async with contextlib.AsyncExitStack() as services:
        for dep in deps.values():
            await services.enter_async_context(dep)
        try:
            pool_for = call(make, dict(limits), pool)
            calls = [_site(deps[d], pool_for, seen) for d, (_, _, n) in LIVE.items() for _ in range(n)]
            await asyncio.gather(*calls)
        finally:
            await asyncio.gather(*(p.close() for p in made), return_exceptions=True)
    return _live_facts(limits, {d: dep.stats().peak for d, dep in deps.items()}, seen)


async def _site(dep: Dependency, pool_for: Callable[[str], Any], seen: Seen) -> None:
    """One call site: asks ``pool_for`` for its pool, calls through it, and notes when its answer came."""
    try:
        await live.call(dep.port, "/call", call(pool_for, dep.name))
    except live.DependencyError as error:
        raise Fault(f"a live call failed: {error}") from None
    if dep.name == SLOW:
        seen.first = seen.first or time.monotonic()
    elif seen.first is None:
        seen.before[dep.name] += 1


def _live_facts(limits: Mapping[str, int], peaks: Mapping[str, int], seen: Seen) -> str:
    """The live batch's facts as a Right line's clause, or Broke naming the one that failed."""
    shown = (
        f"{d} {slots} slots at {latency * 1000:g} ms, {n} calls" for d, (slots, latency, n) in LIVE.items()
    )
    case = f"one live batch on 127.0.0.1 ({', '.join(shown)})"
    for d, peak in peaks.items():
        if peak > limits[d]:
            raise Broke(case, f"{d} saw {peak} calls at once", f"where its limit is {limits[d]}")
    for d, done in seen.before.items():
        if done < LIVE[d][2]:
            raise Broke(case, f"only {done} / {LIVE[d][2]} {d} calls were done before {SLOW}'s first answer",
                        "where a slow dependency delays no other's calls")  # fmt: skip
    at_once = ", ".join(f"{d} {peaks[d]}" for d in LIVE)
    before = " and ".join(f"{d}'s {LIVE[d][2]}" for d in seen.before)
    return (
        f"{case}: each saw at most its limit at once ({at_once}), and {before} calls were all done before "
        f"{SLOW}'s first answer"
    )
