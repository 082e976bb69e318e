"""The book's source tree: a copy of the start page and of every notebook, made for a page that cannot run.

Nothing under ``notebooks/`` is changed. Each notebook's copy differs from it in what a static page needs:
widget views become the outputs they last showed (:mod:`.widgets`), each figure cell carries its alt text
(:mod:`.alt`, as myst-nb's ``mystnb.image.alt`` cell option; a cell with several figures is split so each
has its own), display math becomes MathML (which the browser draws without a script from a CDN), the
``# NBVAL_...`` lines that only the tests read are dropped, and the widget state is left out. The start
page's links to the lessons become their plain names: the lessons live beside the course, not in it.

A notebook the lab saved after its cells ran, without the widget state (JupyterLab's default: Settings >
Save Widget State Automatically is off), names in its outputs widgets its saved state does not hold, so
its panels would show no figure. :func:`book_source` then takes the notebook as the last commit holds it
(``git show HEAD:``), or, with no committed copy that shows them (a tarball, no git), keeps the working
copy and says in one line which notebook's panels cannot be shown and why.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .alt import alt_text
from .widgets import IMAGE, WIDGET_VIEW, Output, model_tree, replace_widget_views, saved_models

START_PAGE = "00_start_here.md"
_NBVAL = re.compile(r"^# NBVAL_\w+[ \t]*\n?", re.M)
_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
_LESSON_LINK = re.compile(r"\[([^\]]+)\]\(lessons/[^)]*\)")
_HEADING = re.compile(r"^#{1,6} (.+)$", re.M)

Cell = dict[str, Any]


def notebooks(folder: Path) -> list[Path]:
    """The course's notebooks, in course order (``NN_name.ipynb``)."""
    return sorted(folder.glob("[0-9][0-9]_*.ipynb"))


def mathml(markdown: str) -> str:
    """Markdown with each ``$$...$$`` block as MathML (``latex2mathml``), so no page needs MathJax."""
    from latex2mathml.converter import convert

    return _DISPLAY_MATH.sub(lambda m: "\n" + convert(m.group(1).strip(), display="block") + "\n", markdown)


def _has_image(output: Output) -> bool:
    return IMAGE in output.get("data", {})


def _split_by_figure(cell: Cell) -> list[Cell]:
    """The cell, or one cell per figure where it has several (the later ones without the code shown)."""
    parts: list[list[Output]] = [[]]
    for output in cell.get("outputs", []):
        if _has_image(output) and any(_has_image(o) for o in parts[-1]):
            parts.append([])
        parts[-1].append(output)
    cells = []
    for i, outputs in enumerate(parts):
        part = {**cell, "outputs": outputs, "metadata": copy.deepcopy(cell.get("metadata", {}))}
        if i:
            part["metadata"]["tags"] = [*part["metadata"].get("tags", []), "remove-input"]
        cells.append(part)
    return cells


def _code_cells(cell: Cell, topic: str, heading: str, models: dict[str, Any]) -> list[Cell]:
    """A code cell as the book shows it: static outputs, alt text on its figure, no nbval markers."""
    source = "".join(cell["source"])
    stored = [id(o) for o in cell.get("outputs", []) if _has_image(o)]  # figures not in a panel
    cell = {**cell, "source": _NBVAL.sub("", source)}
    cell["outputs"] = replace_widget_views(cell.get("outputs", []), models)
    cells = _split_by_figure(cell)
    for part in cells:
        figures = [o for o in part["outputs"] if _has_image(o)]
        if figures:
            alt = alt_text(topic, source, heading, from_panel=id(figures[0]) not in stored)
            part["metadata"].setdefault("mystnb", {}).setdefault("image", {})["alt"] = alt
    return cells


def book_notebook(notebook: dict[str, Any], topic: str) -> dict[str, Any]:
    """The book's copy of one notebook (``notebook`` itself is left as it was)."""
    models = saved_models(notebook)
    cells: list[Cell] = []
    heading = ""
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            text = "".join(cell["source"])
            headings = _HEADING.findall(text)
            heading = headings[-1].strip() if headings else heading
            cells.append({**cell, "source": mathml(_LESSON_LINK.sub(r"\1", text))})
        elif cell["cell_type"] == "code":
            cells += _code_cells(cell, topic, heading, models)
        else:
            cells.append(cell)
    metadata = {k: v for k, v in notebook.get("metadata", {}).items() if k != "widgets"}
    return {**notebook, "cells": cells, "metadata": metadata}


def unsaved_views(notebook: dict[str, Any]) -> tuple[int, int]:
    """(widget views in the outputs whose widgets the saved state does not hold, widget views in all)."""
    models = saved_models(notebook)
    views = [
        str(o["data"][WIDGET_VIEW].get("model_id", ""))
        for c in notebook["cells"]
        for o in c.get("outputs", [])
        if WIDGET_VIEW in o.get("data", {})
    ]
    return sum(None in model_tree(models, v) for v in views), len(views)


def committed(path: Path) -> dict[str, Any] | None:
    """The notebook at ``path`` as its checkout's last commit holds it; ``None`` without git, outside a
    clone, or where it was never committed."""
    try:
        done = subprocess.run(
            ["git", "-C", str(path.parent), "show", f"HEAD:./{path.name}"],
            capture_output=True,
            timeout=30,
            check=False,
        )
        notebook = json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None
    return notebook if isinstance(notebook, dict) and isinstance(notebook.get("cells"), list) else None


@dataclass(frozen=True)
class Source:
    """The notebook a page is built from, and the one line the build says about it (or ``None``)."""

    notebook: dict[str, Any]
    said: str | None = None


_WHY = "its outputs name widgets its saved widget state does not hold (the lab saved it without them)"


def book_source(path: Path, read_committed: Callable[[Path], dict[str, Any] | None] = committed) -> Source:
    """The working copy of ``path`` where its saved widget state holds every widget its outputs show;
    else its last committed copy where that one's does; else the working copy, with the line saying which
    panels cannot be shown and why."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    unsaved, views = unsaved_views(notebook)
    if not unsaved:
        return Source(notebook)
    last = read_committed(path)
    if last is not None and not unsaved_views(last)[0]:
        return Source(last, f"book: {path.name} is built from its last commit: {_WHY}")
    instead = "nor does its committed copy's" if last else "and there is no committed copy (not a git clone)"
    return Source(
        notebook,
        f"book: {path.name}: {unsaved} of its {views} panels and controls cannot be shown: {_WHY}, "
        f"{instead}; in the lab turn on Settings > Save Widget State Automatically, Run All and save",
    )


def toc(pages: list[Path]) -> str:
    """Jupyter Book's ``_toc.yml``: the start page, then every notebook in course order."""
    chapters = "".join(f"- file: {p.stem}\n" for p in pages)
    return f"format: jb-book\nroot: {Path(START_PAGE).stem}\nchapters:\n{chapters}"


def write_source(
    notebooks_dir: Path, config: Path, out: Path, say: Callable[[str], None] = lambda line: None
) -> list[Path]:
    """Write the book's source tree into ``out`` (emptied first); the notebooks' copies it wrote.

    Each notebook comes from :func:`book_source`; ``say`` gets its line where it has one."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    start = (notebooks_dir / START_PAGE).read_text(encoding="utf-8")
    (out / START_PAGE).write_text(mathml(_LESSON_LINK.sub(r"\1", start)), encoding="utf-8")
    shutil.copy(config, out / "_config.yml")
    if (config.parent / "_static").is_dir():  # the book's own stylesheet (Jupyter Book adds _static/*.css)
        shutil.copytree(config.parent / "_static", out / "_static")
    written = []
    for path in notebooks(notebooks_dir):
        topic = path.stem.split("_", 1)[1]
        chosen = book_source(path)
        if chosen.said:
            say(chosen.said)
        copied = out / path.name
        page = book_notebook(chosen.notebook, topic)
        copied.write_text(json.dumps(page, indent=1, ensure_ascii=False) + "\n")
        written.append(copied)
    (out / "_toc.yml").write_text(toc(written), encoding="utf-8")
    return written
