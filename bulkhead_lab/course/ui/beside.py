"""A lesson's claims beside what a live run shows without timing: one claim, its verdict, the table.

A *claim* is a number or fact a lesson states. Live notebooks (03, 04) reproduce each one of
three ways:

- :data:`EXACT`: the same value, counted by a service itself or read from the source;
- :data:`INVARIANT`: a duration, which timing moves, as a fact timing cannot change (a floor no
  machine can beat, an order of events, a bound the lesson's own check uses);
- :data:`NOT_HERE`: what this implementation does not reproduce, and why.

Every ``here`` string is free of timing, so a notebook cell printing :func:`claims_table` or
:func:`claims_count` is compared by nbval: if a fact stops holding, the checked output changes.
Each notebook's ``views.claims`` module states its lesson's claims with :func:`exact` and
:func:`fact`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

EXACT, INVARIANT, NOT_HERE = "exact", "as an invariant", "not reproducible here"


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
    """One claim of a lesson: where it is, what it says, its value there and here, whether it holds."""

    section: str
    says: str
    lesson: str
    here: str
    kind: str
    holds: bool
    why: str = ""  # why a claim is not reproducible here

    @property
    def reproduced(self) -> bool:
        return self.holds and self.kind != NOT_HERE

    @property
    def verdict(self) -> str:
        if self.kind == NOT_HERE:
            return "no: see why below"
        if not self.holds:
            return "NO"
        return "yes" if self.kind == EXACT else "yes, " + self.kind


def exact(section: str, says: str, lesson: object, here: object) -> Claim:
    """A claim that holds when this run shows the lesson's value, character for character."""
    return Claim(section, says, str(lesson), str(here), EXACT, str(here) == str(lesson))


def fact(section: str, says: str, lesson: str, holds: bool, yes: str, no: str) -> Claim:
    """A claim reproduced as a timing-free fact: ``yes`` shown when it holds, ``no`` when not."""
    return Claim(section, says, lesson, yes if holds else no, INVARIANT, holds)


def claims_table(claims: Iterable[Claim], lesson: str, numbered: bool = False) -> WideFrame:
    """The claims as a table: what ``lesson`` says, its value, what this run shows, and the verdict.

    Numbered, each row also names its section; otherwise the claim's words are the index.
    """
    claims = list(claims)
    frame = WideFrame(
        [
            {
                **({"section": c.section} if numbered else {}),
                f"{lesson} says": c.says,
                lesson: c.lesson,
                "here (no timing)": c.here,
                "reproduced": c.verdict,
            }
            for c in claims
        ]
    )
    if numbered:
        frame.index = pd.RangeIndex(1, len(claims) + 1, name="claim")
        return frame
    return WideFrame(frame.set_index(f"{lesson} says"))


def claims_count(claims: Iterable[Claim], lesson: str, invariants: str) -> str:
    """How many claims checked output reproduces, exactly or as ``invariants``, which cannot be, and why."""
    claims = list(claims)
    n_exact = sum(c.reproduced and c.kind == EXACT for c in claims)
    n_invariant = sum(c.reproduced and c.kind == INVARIANT for c in claims)
    missing = [c for c in claims if not c.reproduced]
    lines = [
        f"{lesson}'s claims reproduced in checked output: {n_exact + n_invariant} of {len(claims)} "
        f"({n_exact} exactly, {n_invariant} as invariant facts: {invariants})",
        f"not reproduced: {len(missing)}",
    ]
    lines += [f"  - {c.says}: {lesson} {c.lesson}; here {c.here}. Why: {c.why or c.verdict}" for c in missing]
    return "\n".join(lines)
