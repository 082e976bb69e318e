"""What a slider move must show, written as data: facts about the table before and after the move.

A fact compares two terms: a table cell (or a whole row) read in the view before or after the move, the
control's readout before (:data:`WAS`) or after (:data:`NOW`) it, a literal, or arithmetic on those::

    value("Erlang-B blocking").falls                      # after < before
    row(layout="24/8")["tracking dropped"].stays          # the same text before and after
    row(0)["slots"].after == NOW.format("{} shared")      # a cell against the readout
    row(0)["notification peak"].after == row(0)["slots"].after + NOW

Texts compare as texts; ordering, arithmetic and a number on either side compare numbers, the first
number in each text ('0.3486', '1,848', '0 / 40', '1.85 s'). A row's column value holding ``{}`` is
filled with the readout on that side (before: was, after: now); one ending in ``*`` is a prefix.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import lab_driver as ld


def number(text: Any) -> Any:
    """The first number in a table cell or readout (in each, for a column's cells; a number as it is)."""
    if isinstance(text, tuple):
        return tuple(number(cell) for cell in text)
    if not isinstance(text, str):
        return text
    match = re.search(r"-?\d[\d,]*(?:\.\d+)?", text)
    assert match is not None, f"no number in {text!r}"
    return float(match.group().replace(",", ""))


@dataclass(frozen=True)
class Seen:
    """One move as the test saw it: the view before and after, the control's readout before and after."""

    before: ld.View
    after: ld.View
    was: str
    now: str


def _arithmetic(op: Callable[[float, float], float], sign: str, swap: bool = False) -> Any:
    """A Term method: ``self <sign> other`` (``other <sign> self`` when ``swap``), on their numbers."""

    def method(self: Term, other: Any) -> Term:
        left, right = (_term(other).n, self.n) if swap else (self.n, _term(other).n)
        return Term(f"({left.label} {sign} {right.label})", lambda s: op(left.value(s), right.value(s)), True)

    return method


def _comparison(op: Callable[[Any, Any], bool], sign: str) -> Any:
    """A Term method: the fact ``self <sign> other``; on numbers unless both sides are texts (== and !=)."""

    def method(self: Term, other: Any) -> Fact:
        right = _term(other)
        texts = (
            sign in ("==", "!=") and isinstance(other, (str, Term)) and not (self.numeric or right.numeric)
        )
        return Fact(
            f"{self.label} {sign} {right.label}", op, self if texts else self.n, right if texts else right.n
        )

    return method


class Term:
    """A value a fact compares, read from what a move showed; numeric once arithmetic touched it."""

    def __init__(self, label: str, read: Callable[[Seen], Any], numeric: bool = False) -> None:
        self.label, self.read, self.numeric = label, read, numeric

    def value(self, seen: Seen) -> Any:
        return number(self.read(seen)) if self.numeric else self.read(seen)

    @property
    def n(self) -> Term:
        """The first number in this term's text."""
        return Term(self.label, self.read, numeric=True)

    def part(self, index: int) -> Term:
        """The number in part ``index`` of a text split at '/' ('24/8': 24, then 8)."""
        return Term(f"{self.label}[{index}]", lambda s: self.read(s).split("/")[index], numeric=True)

    def format(self, template: str) -> Term:
        """``template`` with this term's value in its ``{}``."""
        return Term(f"{template!r} with {self.label}", lambda s: template.format(self.value(s)))

    def group(self, pattern: str) -> Term:
        """The number in ``pattern``'s first group, matched at the start of this term's text."""

        def read(seen: Seen) -> str:
            match = re.match(pattern, self.read(seen))
            assert match is not None, f"{self.label} {self.read(seen)!r} does not match {pattern!r}"
            return match.group(1)

        return Term(f"{self.label} ~ {pattern!r}", read, numeric=True)

    __add__, __radd__ = _arithmetic(operator.add, "+"), _arithmetic(operator.add, "+", swap=True)
    __truediv__, __rtruediv__ = _arithmetic(operator.truediv, "/"), _arithmetic(operator.truediv, "/", True)
    __eq__, __ne__ = _comparison(operator.eq, "=="), _comparison(operator.ne, "!=")
    __lt__, __le__ = _comparison(operator.lt, "<"), _comparison(operator.le, "<=")
    __gt__, __ge__ = _comparison(operator.gt, ">"), _comparison(operator.ge, ">=")

    def startswith(self, other: Any) -> Fact:
        return Fact(f"{self.label} starts with {_term(other).label}", str.startswith, self, _term(other))

    def contains(self, other: Any) -> Fact:
        return Fact(f"{self.label} holds {_term(other).label}", operator.contains, self, _term(other))


def _term(operand: Any) -> Term:
    """A Term as it is, a literal as a Term (a number compares as a number)."""
    if isinstance(operand, Term):
        return operand
    return Term(repr(operand), lambda s: operand, numeric=not isinstance(operand, str))


WAS = Term("was", lambda s: s.was)  # the control's readout before the move
NOW = Term("now", lambda s: s.now)  # ... and after it


@dataclass(frozen=True)
class Fact:
    """``op(left, right)`` must hold for the move; a column's every cell when ``left`` reads a column."""

    label: str
    op: Callable[[Any, Any], bool]
    left: Term
    right: Term

    def failure(self, seen: Seen) -> str | None:
        """None when the fact holds; else what was read, for the test's message."""
        try:
            left, right = self.left.value(seen), self.right.value(seen)
            if all(self.op(cell, right) for cell in (left if isinstance(left, tuple) else (left,))):
                return None
        except AssertionError as err:
            return f"{self.label}: {err}"
        return f"{self.label}: {left!r} against {right!r}"


class Cell:
    """A table cell, a row or a column the lesson names; read before or after the move."""

    def __init__(self, label: str, pick: Callable[[ld.View, str], Any]) -> None:
        self.label, self.pick = label, pick  # pick(view, readout on that side)

    @property
    def before(self) -> Term:
        return Term(f"before {self.label}", lambda s: self.pick(s.before, s.was))

    @property
    def after(self) -> Term:
        return Term(f"after {self.label}", lambda s: self.pick(s.after, s.now))

    @property
    def rises(self) -> Fact:
        return self.after > self.before

    @property
    def falls(self) -> Fact:
        return self.after < self.before

    @property
    def stays(self) -> Fact:
        return self.after == self.before


def _rows(view: ld.View, where: dict[str, str], readout: str) -> list[dict[str, str]]:
    """The table's rows whose columns read as ``where`` ({} filled with ``readout``; * a prefix)."""

    def reads(cell: str | None, wanted: str) -> bool:
        wanted = wanted.replace("{}", readout)
        return cell is not None and (cell.startswith(wanted[:-1]) if wanted.endswith("*") else cell == wanted)

    return [r for r in view.table() if all(reads(r.get(c), w) for c, w in where.items())]


class Row(Cell):
    """A row of the view's table (a whole row compares as its texts); ``row[column]`` is one of its cells."""

    def __getitem__(self, column: str) -> Cell:
        return Cell(f"{self.label}[{column!r}]", lambda view, readout: self.pick(view, readout)[column])


def row(at: int | dict[str, str] | None = None, /, **where: str) -> Row:
    """The row at index ``at``; or the one row whose columns read as ``at`` (a dict) and ``where``."""
    if isinstance(at, int):
        return Row(f"row {at}", lambda view, readout: view.table()[at])
    where = {**(at or {}), **where}

    def one(view: ld.View, readout: str) -> dict[str, str]:
        found = _rows(view, where, readout)
        assert len(found) == 1, f"expected one row with {where} ({readout}), table has {view.table()}"
        return found[0]

    return Row(f"row {where}", one)


def value(name: str) -> Cell:
    """A (name, value) table's value for ``name``: the row whose first column reads ``name``."""
    named = row({"": name})
    return Cell(repr(name), lambda view, readout: next(v for k, v in named.pick(view, readout).items() if k))


def every(column: str) -> Cell:
    """Every cell of ``column``, top to bottom (a fact on it must hold for each)."""
    return Cell(f"every {column!r}", lambda view, readout: tuple(r[column] for r in view.table()))


def rows(**where: str) -> Cell:
    """How many rows of the table read as ``where`` (all rows when empty)."""
    return Cell(f"rows {where}", lambda view, readout: len(_rows(view, where, readout)))
