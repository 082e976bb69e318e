"""What a pool per dependency must do, judged by behaviour alone: lesson 003's batch, replayed in time.

A learner's ``make(limits, pool)`` gets a service's dependencies and their limits (``{"notification":
4, "catalog": 4}``) and ``pool(n)``, which makes a pool of ``n`` slots; it returns ``pool_for(dependency)``,
which every call site asks for the pool its call goes through (None: no pool, the lesson's ``agent:
false``, as :data:`~.pools.SKIPPED`). :func:`verdict` replays lesson 003's batch for each of
:data:`CASES`: 40 calls to each dependency at once, each call site asking ``pool_for`` when it
starts, notification first. Pure and deterministic: an event replay in whole milliseconds, each
pool first come, first served, each dependency counting its own open calls (what the live one counts).

The facts, in order, each naming the case and what broke first: every call site gets a pool made by
``pool`` (or None); each dependency sees at most its limit at once, and the limit is reached (the
pool binds, at its size); and every other dependency's calls are all done before the slow one's first
answer (the lesson's ``catalogBefore``: one slow dependency delays no other). :func:`pool_for_each`
is the course's own answer.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from bulkhead_lab.live.placement.batch import CALLS, CATALOG_LATENCY, NOTIFICATION_LATENCY

P = TypeVar("P")
MAX_SLOTS = 1000
#: Each dependency's latency in ms: lesson 003's two, and a third for a service with three.
LATENCY_MS = {"notification": round(NOTIFICATION_LATENCY * 1000), "payment": 10,
              "catalog": round(CATALOG_LATENCY * 1000)}  # fmt: skip
#: The services replayed: lesson 003's batch, then one with three dependencies and three limits.
CASES: tuple[dict[str, int], ...] = (
    {"notification": 4, "catalog": 4},
    {"notification": 2, "payment": 3, "catalog": 5},
)
SLOW = "notification"  # the slow dependency, whose first answer the others must not wait for


def pool_for_each(limits: Mapping[str, int], pool: Callable[[int], P]) -> Callable[[str], P]:
    """One pool per dependency, each of its own limit, made once; every call site asks for its own."""
    pools = {dependency: pool(slots) for dependency, slots in limits.items()}
    return lambda dependency: pools[dependency]


class Broken(Exception):
    """A fact failed; the message is the one line that says which."""


class Pool:
    """A pool of ``limit`` slots, as the replay runs it: calls past its limit wait, in turn."""

    def __init__(self, limit: int, number: int) -> None:
        self.limit, self.number, self.used = limit, number, 0
        self.waiting: list[str] = []  # the dependencies of the calls waiting for a slot, oldest first

    def __repr__(self) -> str:
        return f"pool {self.number} ({self.limit} slots)"


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@dataclass
class Replay:
    """One case's batch: the pool each call got, each dependency's peak, the others' calls done early."""

    limits: dict[str, int]
    made: list[Pool] = field(default_factory=list)
    got: dict[str, list[Pool | None]] = field(default_factory=dict)
    peak: dict[str, int] = field(default_factory=dict)
    before: dict[str, int] = field(default_factory=dict)  # calls done before SLOW's first answer
    first_ms: int = 0  # SLOW's first answer

    def pool(self, slots: object) -> Pool:
        """The ``pool(n)`` the learner's code is given."""
        if isinstance(slots, bool) or not isinstance(slots, int) or not 1 <= slots <= MAX_SLOTS:
            raise Broken(f"pool({slots!r}): a pool has a whole number of slots, 1 to {MAX_SLOTS}.")
        self.made.append(Pool(slots, len(self.made) + 1))
        return self.made[-1]


def _ask(replay: Replay, pool_for: Callable[[str], Any]) -> None:
    """Every call site asks ``pool_for(dependency)``, in the order the calls start."""
    for dependency in replay.limits:
        replay.got[dependency] = []
        for _ in range(CALLS):
            try:
                got = pool_for(dependency)
            except Exception as exc:
                raise Broken(f"pool_for({dependency!r}) raised {_error(exc)}.") from None
            if got is not None and not any(got is p for p in replay.made):
                shown = repr(got) if len(repr(got)) <= 40 else repr(got)[:37] + "..."
                raise Broken(
                    f"pool_for({dependency!r}) returned {shown}, not a pool made by pool(n) (or None)."
                )
            replay.got[dependency].append(got)


def _run(replay: Replay) -> None:
    """Replay the batch in time: who holds a slot, who waits, and what each dependency counts."""
    open_ = dict.fromkeys(replay.limits, 0)
    replay.peak, done = dict.fromkeys(replay.limits, 0), dict.fromkeys(replay.limits, 0)
    ends: list[tuple[int, int, str, Pool | None]] = []
    order = itertools.count()  # calls ending in the same millisecond end in the order they started

    def start(now: int, dependency: str, via: Pool | None) -> None:
        open_[dependency] += 1
        replay.peak[dependency] = max(replay.peak[dependency], open_[dependency])
        heapq.heappush(ends, (now + LATENCY_MS[dependency], next(order), dependency, via))

    for dependency, pools in replay.got.items():
        for via in pools:
            if via is None or via.used < via.limit:
                via = _take(via)
                start(0, dependency, via)
            else:
                via.waiting.append(dependency)
    while ends:
        now, _, dependency, via = heapq.heappop(ends)
        if dependency == SLOW and not replay.first_ms:
            replay.first_ms, replay.before = now, {d: n for d, n in done.items() if d != SLOW}
        open_[dependency] -= 1
        done[dependency] += 1
        if via is not None:
            via.used -= 1
            if via.waiting:
                start(now, via.waiting.pop(0), _take(via))


def _take(via: Pool | None) -> Pool | None:
    if via is not None:
        via.used += 1
    return via


def _case(number: int, limits: Mapping[str, int]) -> str:
    return f"case {number} (limits " + ", ".join(f"{d} {n}" for d, n in limits.items()) + ")"


def _error(exc: BaseException) -> str:
    why = (str(exc).splitlines() or [""])[0]
    return f"{type(exc).__name__}: {why}" if why else type(exc).__name__


def _why(replay: Replay, dependency: str) -> str:
    """Which call site (or pool) made ``dependency`` see other than its limit."""
    got, limit = replay.got[dependency], replay.limits[dependency]
    pools = {id(p): p for p in got if p is not None}
    if None in got:
        return f"its {ordinal(got.index(None) + 1)} call site got no pool (None: a connection of its own)"
    if len(pools) > 1:
        return f"its {CALLS} call sites got {len(pools)} pools: a new pool for every call limits nothing"
    (only,) = pools.values()
    shared = [d for d, g in replay.got.items() if d != dependency and any(p is only for p in g)]
    if shared:
        return f"it shares one pool of {only.limit} slots with {' and '.join(shared)}"
    return f"its pool has {only.limit} slots, not {limit}"


def judge_case(make: Callable[..., Any], limits: Mapping[str, int]) -> Replay:
    """One case: ``make(limits, pool)``, every call site's ask, the batch replayed; Broken if a fact fails."""
    replay = Replay(dict(limits))
    try:
        pool_for = make(dict(limits), replay.pool)
    except Broken:
        raise
    except Exception as exc:
        raise Broken(f"{getattr(make, '__name__', 'it')}(limits, pool) raised {_error(exc)}.") from None
    if not callable(pool_for):
        raise Broken(f"it returned {pool_for!r:.40}, not a function pool_for(dependency).")
    _ask(replay, pool_for)
    _run(replay)
    for dependency, limit in replay.limits.items():
        if replay.peak[dependency] != limit:
            saw, why = replay.peak[dependency], _why(replay, dependency)
            raise Broken(f"{dependency} saw {saw} calls at once where its limit is {limit}: {why}.")
    for dependency, n in replay.before.items():
        if n < CALLS:
            raise Broken(f"only {n} / {CALLS} {dependency} calls were done before {SLOW}'s first answer "
                         f"({replay.first_ms} ms): {_why(replay, dependency)}.")  # fmt: skip
    return replay


@dataclass(frozen=True)
class Verdict:
    """Every case held (``ok``), or the first fact that failed; ``says`` is the line either way."""

    ok: bool
    says: str


def verdict(make: Callable[..., Any]) -> Verdict:
    """``make`` judged on every case, in order: the first failed fact, or what each case counted."""
    counted = []
    for number, limits in enumerate(CASES, start=1):
        try:
            replay = judge_case(make, limits)
        except Broken as broken:
            return Verdict(False, f"{_case(number, limits)}: {broken}")
        peaks = ", ".join(f"{d} {replay.peak[d]}" for d in limits)
        before = ", ".join(f"{d} {n} / {CALLS}" for d, n in replay.before.items())
        counted.append(f"case {number}, each saw its limit at once ({peaks}) and {before} calls were done "
                       f"before {SLOW}'s first answer ({replay.first_ms} ms)")  # fmt: skip
    return Verdict(
        True, "; ".join(counted) + ": one pool per dependency, made once, asked by every call site."
    )
