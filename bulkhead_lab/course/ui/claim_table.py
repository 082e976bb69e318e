"""A lesson's statement beside this run's value: one claim, one table, one count line.

A :class:`Claim` says where a lesson states a number or fact, what it says, the lesson's value and
this run's, shown one of three ways: :data:`EXACT` (the same value, character for character),
:data:`INVARIANT` (a duration, which timing moves, as a fact timing cannot change: a floor, an
order of events, a bound the lesson's own check uses) or :data:`NOT_HERE` (not reproduced, and why
in a few words: the notebook explains it once, in its story). Every ``here`` is free of timing, so
nbval compares a cell showing :func:`table` or :func:`count`: if a fact stops holding, it changes.

A live claim that comes out NO on a machine that was starved during its run (:func:`starved`: the
run's loop lag, :mod:`bulkhead_lab.live.net.lag`) says so beside the NO, in the same line: ``NO - this
machine was too busy during the run (loop lag up to 480 ms): run it again``. A claim that holds, or a
run that was not starved, shows exactly what it showed before.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields, is_dataclass, replace
from typing import Literal

import pandas as pd

from bulkhead_lab.live.net.lag import LagWatch, busy_reason

Shown = Literal["exact", "as an invariant", "not reproducible here"]
EXACT: Shown = "exact"
INVARIANT: Shown = "as an invariant"
NOT_HERE: Shown = "not reproducible here"


class WideFrame(pd.DataFrame):
    """A table shown whole: no cell cut to pandas' 50 characters with '...' (sentences are the point)."""

    @property
    def _constructor(self) -> type[WideFrame]:
        return WideFrame

    def _repr_html_(self) -> str | None:
        with pd.option_context("display.max_colwidth", None):
            return super()._repr_html_()

    def __repr__(self) -> str:
        wide = ("display.max_colwidth", None, "display.max_columns", None, "display.width", 400)
        with pd.option_context(*wide):
            return super().__repr__()


@dataclass(frozen=True)
class Claim:
    """One claim of a lesson: where it says it, what it says, its value there and here, whether it holds."""

    where: str
    says: str
    lesson: str
    here: str
    shown: Shown
    holds: bool
    why: str = ""  # why a claim is not reproducible here, in a few words
    busy: str = ""  # the machine was too busy during its run (net.lag's busy_reason), or ""

    @property
    def reproduced(self) -> bool:
        return self.holds and self.shown != NOT_HERE

    @property
    def verdict(self) -> str:
        if self.shown == NOT_HERE:
            return "no: see why below"
        if not self.holds:
            return f"NO - {self.busy}: run it again" if self.busy else "NO"
        return "yes" if self.shown == EXACT else "yes, " + self.shown


def exact(where: str, says: str, lesson: object, here: object) -> Claim:
    """A claim that holds when this run shows the lesson's value, character for character."""
    return Claim(where, says, str(lesson), str(here), EXACT, str(here) == str(lesson))


def fact(where: str, says: str, lesson: str, holds: bool, yes: str, no: str) -> Claim:
    """A claim reproduced as a timing-free fact: ``yes`` shown when it holds, ``no`` when not."""
    return Claim(where, says, lesson, yes if holds else no, INVARIANT, holds)


def not_here(where: str, says: str, lesson: object, here: str, why: str) -> Claim:
    """A claim this run does not reproduce: what it shows instead, and why in a few words."""
    return Claim(where, says, str(lesson), here, NOT_HERE, False, why)


def starved(claims: Iterable[Claim], *runs: object) -> list[Claim]:
    """``claims``, each that came out NO saying so if the machine was too busy during ``runs``.

    ``runs`` are the live results the claims read (anything with a ``lag``, or lists, tuples and
    dataclasses holding them); their worst loop lag and highest load decide, one line for all.
    """
    watches = [w for run in runs for w in _lags(run)]
    if not watches:
        return list(claims)
    worst, cores = max(w.worst for w in watches), max(w.cores for w in watches)
    loads = [w.load for w in watches if w.load is not None]
    why = busy_reason(worst, max(loads) if loads else None, cores)
    return [replace(c, busy=why) if why and not c.holds and c.shown != NOT_HERE else c for c in claims]


def _lags(run: object) -> Iterator[LagWatch]:
    lag = getattr(run, "lag", None)
    if isinstance(lag, LagWatch):
        yield lag
    elif isinstance(run, (list, tuple)):
        for item in run:
            yield from _lags(item)
    elif is_dataclass(run) and not isinstance(run, type):
        for f in fields(run):
            yield from _lags(getattr(run, f.name))


def table(claims: Iterable[Claim], lesson: str, appendix: bool = False) -> WideFrame:
    """What ``lesson`` says, its value and this run's; in the story the claim's words are the index, in the
    appendix each row is numbered and also says where the lesson says it and whether it is reproduced."""
    claims = list(claims)
    rows = [
        {
            **({"where": c.where} if appendix else {}),
            f"{lesson} says": c.says,
            lesson: c.lesson,
            "here": c.here,
            **({"reproduced": c.verdict} if appendix else {}),
        }
        for c in claims
    ]
    frame = WideFrame(rows)
    if appendix:
        frame.index = pd.RangeIndex(1, len(claims) + 1, name="claim")
        return frame
    return WideFrame(frame.set_index(f"{lesson} says"))


def count(claims: Iterable[Claim], lesson: str, invariants: str = "") -> str:
    """How many claims checked output reproduces, exactly or as ``invariants``; which not, and why."""
    claims = list(claims)
    n_exact = sum(c.reproduced and c.shown == EXACT for c in claims)
    n_invariant = sum(c.reproduced and c.shown == INVARIANT for c in claims)
    missing = [c for c in claims if not c.reproduced]
    how = f", {n_invariant} as invariant facts: {invariants}" if n_invariant else ""
    lines = [
        f"{lesson}'s claims reproduced in checked output: {n_exact + n_invariant} of {len(claims)} "
        f"({n_exact} exactly{how})",
        f"not reproduced: {len(missing)}",
    ]
    lines += [f"  - {c.says}: {lesson} {c.lesson}; here {c.here}. Why: {c.why or c.verdict}" for c in missing]
    return "\n".join(lines)
