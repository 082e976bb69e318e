"""What a learner might write for each write-it-yourself exercise, as data the tests share.

Each notebook's module here (``nNN_<what>.py``) holds one :class:`Candidates`: the name its template cell
defines (and the answer box holds), right sources written differently from one another and from the worked
answer, and broken sources of the kinds real learners write, each labelled with the kind of mistake it
makes; the line the notebook's own template cell gets; and what else a learner may type, with a piece of
the line it gets. ``tests/course/test_writes.py`` judges every one in Python and pins the verdict's kind
(Right / Not yet) and those pieces; the browser test (``tests/e2e/test_notebooks_in_browser.py``) types the
first broken one and the first right one into the notebook's template cell and reads the verdicts the page
shows. A mistake that is a small change of a source is written as that change (:func:`changed`)."""

from __future__ import annotations
import __future__

import asyncio
import collections
import importlib
import json
import math
import pkgutil
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


@dataclass(frozen=True)
class Candidates:
    """A write-it-yourself exercise's candidates: ``broken`` maps each source to what its line names."""

    notebook: str  # "01_littles_law_sizing.ipynb"
    exercise: str  # its Exercise's name in the notebook's exercises module: "write_erlang_b"
    right: str  # a source defining ``name`` that the exercise calls Right (the one the browser types)
    broken: Mapping[str, str]  # source -> the kind of mistake it makes (a label, not the verdict's words)
    template: str  # how the line for the notebook's template cell (the code a learner starts from) begins
    also_right: tuple[str, ...] = ()  # more right sources, each written differently
    lines: Mapping[str, str] = field(default_factory=dict)  # another source -> a piece of the line it gets
    said_labels: bool = False  # each broken source's label is a piece of the line it gets

    @property
    def rights(self) -> tuple[str, ...]:
        return (self.right, *self.also_right)

    @property
    def judged(self) -> Any:
        """The :class:`~bulkhead_lab.course.ui.exercise.Exercise` that judges these candidates."""
        module = importlib.import_module(f"bulkhead_lab.course.{self.notebook[3:-6]}.exercises")
        return getattr(module, self.exercise)

    @property
    def number(self) -> int:
        """Its number in the notebook (the answer box is ``.bl-answer-{number}``)."""
        return int(self.judged.number)

    @property
    def name(self) -> str:
        """What the template cell defines and the box holds: "my_erlang_b"."""
        return str(self.judged.typed)


def changed(source: str, *edits: tuple[str, str]) -> str:
    """``source`` with each ``(old, new)`` of ``edits`` replaced, each ``old`` found in it (so a source
    edited elsewhere fails here, not as a candidate that quietly stopped being broken)."""
    for old, new in edits:
        assert old in source, old
        source = source.replace(old, new)
    return source


def define(source: str, name: str) -> Any:
    """What ``source`` defines as ``name``, run as a notebook cell runs (the usual imports given)."""
    namespace: dict[str, Any] = {
        "asyncio": asyncio, "deque": collections.deque, "math": math, "random": random, "__name__": "cell",
    }  # fmt: skip
    # Annotations stay unevaluated: a template may name the notebook's own types (09's ``-> Rule``).
    flags = __future__.annotations.compiler_flag
    code = compile(source, "<cell>", "exec", flags=flags)
    exec(code, namespace)  # the tests' own text or a notebook's cell
    return namespace[name]


def template(candidates: Candidates) -> str:
    """The source of the notebook's template cell: its code cell defining ``candidates.name``, without a
    check that follows the definition in the cell (06's ``exercises.write_budget.check(MyBudget)``)."""
    cells = json.loads((NOTEBOOKS / candidates.notebook).read_text(encoding="utf-8"))["cells"]
    (source,) = [
        "".join(c["source"])
        for c in cells
        if c["cell_type"] == "code"
        and re.search(rf"^(def|class) {candidates.name}\b", "".join(c["source"]), re.MULTILINE)
    ]
    return source.split("\nexercises.")[0]


def all_candidates() -> list[Candidates]:
    """Every notebook's candidates, in notebook order."""
    found = []
    for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda i: i.name):
        found.append(importlib.import_module(f"writes.{info.name}").CANDIDATES)
    return found
