"""Bounded memos, each declared beside the function whose results it keeps, and one registry of them.

The model is pure, so a slider moving over it would replay the same runs again and again. A
module that wants a result remembered declares a :class:`Memo` next to the function that
computes it, and a small function that asks the memo first::

    _runs: Memo[Params, Counters] = Memo("runs", 1024)

    def counters(params: Params) -> Counters:
        key = canonical(params)
        return _runs.get(key, lambda: run(key, stream=stream(key)))

Names say which is which: a memoised function is named for what it gives (``counters``,
``occupancy``, ``stream``, ``compartment``, ``pool_run``, ``retry_run``); the pure function it
keeps is a verb (``run``, ``arrival_stream``, ``run_compartment``, ``run_pool``, ``storm.run``).

A memo is a least-recently-used table of at most ``maxsize`` entries. One whose entries grow
with the run length also has a *weight budget* and says how its entries weigh (``weigh``, in
the unit the budget counts: arrivals, rounds of per-round series): an entry heavier than the
whole budget is computed and handed back but not kept, so a 10^6-round stream never stays in
memory. Every memo registers itself under its name when its module is imported;
:func:`stats` reports each one's hits, misses, entries and weight, :func:`clear` empties them
all (tests and benchmarks use these, never the tables).

Pure: imports nothing from the package, so any module may declare a memo.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

ROUNDS_BUDGET = 8_000_000  # rounds of per-round series a memo of traces keeps (the lesson's run: 4,000)


@dataclass(frozen=True)
class MemoStats:
    """One memo's counters since the last :func:`clear`."""

    hits: int
    misses: int
    entries: int
    weight: int


class Memo(Generic[K, V]):
    """A least-recently-used table of at most ``maxsize`` entries and, if given, ``budget`` weight.

    ``weigh`` (required with a budget) says what one value weighs in the budget's unit.
    A memo registers itself under ``name`` (a second memo of that name replaces the first).
    """

    def __init__(
        self, name: str, maxsize: int, *, budget: int | None = None, weigh: Callable[[V], int] | None = None
    ) -> None:
        if (budget is None) != (weigh is None):
            raise ValueError(f"memo {name!r}: a weight budget and a weigh function go together")
        self.name = name
        self.maxsize = maxsize
        self.budget = budget
        self._weigh = weigh
        self._table: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._weight = 0
        self.hits = 0
        self.misses = 0
        MEMOS[name] = self

    def get(self, key: K, compute: Callable[[], V]) -> V:
        """The value kept for ``key``, or ``compute()`` kept (if it fits) and returned."""
        entry = self._table.get(key)
        if entry is not None:
            self.hits += 1
            self._table.move_to_end(key)
            return entry[0]
        self.misses += 1
        value = compute()
        weight = 0 if self._weigh is None else self._weigh(value)
        if self.budget is not None and weight > self.budget:
            return value  # too heavy to keep: the caller gets it, the memo stays small
        self._table[key] = (value, weight)
        self._weight += weight
        while len(self._table) > self.maxsize or (self.budget is not None and self._weight > self.budget):
            _, (_, dropped) = self._table.popitem(last=False)
            self._weight -= dropped
        return value

    def clear(self) -> None:
        """Forget every entry and zero the counters."""
        self._table.clear()
        self._weight = 0
        self.hits = self.misses = 0

    def stats(self) -> MemoStats:
        return MemoStats(self.hits, self.misses, len(self._table), self._weight)


MEMOS: dict[str, Memo] = {}  # every memo declared so far (its module imported), by name


def clear() -> None:
    """Empty every memo and zero its counters."""
    for memo in MEMOS.values():
        memo.clear()


def stats() -> dict[str, MemoStats]:
    """Hits, misses, entries and weight of every memo, by name."""
    return {name: memo.stats() for name, memo in MEMOS.items()}
