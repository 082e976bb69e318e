"""Alternative text for a figure: one sentence of what it shows, for readers who cannot see it.

How it is chosen: a figure cell draws with one call, ``figures.NAME(...)`` or, for a slider panel's
figure, ``panels.NAME(...)``. The first paragraph of the docstring of what draws the figure (in the
notebook's own course package) says what it shows: the ``figures`` function itself; for a panel, the
first ``figures`` function or class its body uses; and for a function that builds its figure with a
``figures`` class (one a panel keeps and redraws), that class. That sentence, without its code asides,
is the alt text, followed by the section the figure sits in. Where a docstring does not read as a
description of the picture (it says how the figure is kept and redrawn), :data:`AUTHORED` gives the
sentence instead, by the name of what draws it; a figure whose function cannot be found is named by
its section heading alone.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

COURSE = Path(__file__).resolve().parents[1] / "course"

_CALL = re.compile(r"\b(figures|panels)\.(\w+)\(")
_ROLE = re.compile(r":\w+:`~?\.?(?:[\w.]*\.)?([^`.]+)`")
_LITERAL = re.compile(r"``([^`]+)``")
_KEPT = re.compile(r"\s*Kept by [^.:]*[.:].*$")  # how a panel keeps the figure, not what it shows
_CODE_ASIDE = re.compile(r"\s*\([^()]*(?::\w+:`|``)[^()]*\)")


_BLOCKING = (
    "The share of arrivals a pool refuses against its size in slots: Erlang-B's curve beside the "
    "seeded model's measured drops, with the pool, the load in flight and the suggested limit marked."
)
# (topic, what draws the figure) -> the sentence, where its docstring speaks of code, not the picture.
AUTHORED = {
    ("littles_law_sizing", "blocking_figure"): _BLOCKING,
    ("littles_law_sizing", "BlockingFigure"): _BLOCKING,
    ("single_pool_vs_bulkhead", "TradeoffFigure"): (
        "Drops per flow against every split of the 32 slots, on the healthy and the failing day, with the "
        "single pool's levels and the chosen split marked."
    ),
}


@cache
def _definitions(topic: str, kind: str) -> dict[str, ast.FunctionDef | ast.ClassDef]:
    """Function and class name -> definition, over ``course/<topic>/<kind>.py`` or the package ``<kind>/``."""
    folder = COURSE / topic
    files = [folder / f"{kind}.py", *sorted((folder / kind).glob("*.py"))]
    found: dict[str, ast.FunctionDef | ast.ClassDef] = {}
    for path in files:
        if path.exists():
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                    found.setdefault(node.name, node)
    return found


def drawing_description(topic: str, kind: str, name: str) -> str | None:
    """What the figure shows, from what draws it: a ``figures`` definition, or the first one a panel uses."""
    node = _definitions(topic, kind).get(name)
    if node is None:
        return None
    if kind == "panels":
        used = _CALL.finditer(ast.unparse(node))
        drawn = [m.group(2) for m in used if m.group(1) == "figures"]
        figure = _definitions(topic, "figures").get(drawn[0]) if drawn else None
        if figure is not None and _described(topic, figure):
            node = figure
    kept = _kept_figure(topic, node)
    node = kept if kept is not None and _described(topic, kept) else node
    return AUTHORED.get((topic, node.name)) or ast.get_docstring(node)


def _described(topic: str, node: ast.FunctionDef | ast.ClassDef) -> bool:
    return bool(AUTHORED.get((topic, node.name)) or ast.get_docstring(node))


def _kept_figure(topic: str, node: ast.FunctionDef | ast.ClassDef) -> ast.ClassDef | None:
    """The ``figures`` class a function builds its figure with (``StormFigure().update(view)``), if any."""
    if isinstance(node, ast.ClassDef):
        return None
    classes = {n: d for n, d in _definitions(topic, "figures").items() if isinstance(d, ast.ClassDef)}
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in classes:
            return classes[call.func.id]
    return None


def plain_sentence(docstring: str) -> str:
    """A docstring's first paragraph as plain text: no code asides in brackets, no reST markup."""
    text = " ".join(docstring.split("\n\n")[0].split())
    text = _KEPT.sub("", _CODE_ASIDE.sub("", text))
    text = _LITERAL.sub(r"\1", _ROLE.sub(r"\1", text))
    return text if text.endswith(".") else text + "."


def drawing_call(source: str, from_panel: bool) -> tuple[str, str] | None:
    """``(kind, name)`` of the call that drew the cell's figure: its last ``figures.`` call, or for a
    panel's figure its ``panels.`` call."""
    calls = [(m.group(1), m.group(2)) for m in _CALL.finditer(source)]
    wanted = "panels" if from_panel else "figures"
    chosen = [c for c in calls if c[0] == wanted] or calls
    return chosen[-1] if chosen else None


def alt_text(topic: str, source: str, heading: str, from_panel: bool) -> str:
    """One sentence of what the cell's figure shows, then the section it sits in."""
    section = f"section “{heading}”" if heading else "this page"
    call = drawing_call(source, from_panel)
    if call is None:
        return f"Figure of {section}."
    doc = drawing_description(topic, *call)
    if not doc:
        return f"Figure of {section}."
    return f"{plain_sentence(doc)[:-1]} (figure of {section})."
