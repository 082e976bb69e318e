"""A lesson's statement beside this run's value: one claim, one table, one count line.

A :class:`Claim` says where a lesson states a number or fact, what it says, the lesson's value and
this run's, shown one of three ways: :data:`EXACT` (the same value, character for character),
:data:`INVARIANT` (a duration, which timing moves, as a fact timing cannot change: a floor, an
order of events, a bound the lesson's own check uses) or :data:`NOT_HERE` (not reproduced, and why
in a few words: the notebook explains it once, in its story). Every ``here`` is free of timing, so
nbval compares a cell showing :func:`table` or :func:`count`: if a fact stops holding, it changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import pandas as pd

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

    @property
    def reproduced(self) -> bool:
        return self.holds and self.shown != NOT_HERE

    @property
    def verdict(self) -> str:
        if self.shown == NOT_HERE:
            return "no: see why below"
        if not self.holds:
            return "NO"
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
