"""The code that teaches is in the notebooks: cells marked ``#@save`` are the package's own code.

A notebook defines its mechanism (the round, the bulkhead, the limiter, the retry) in short
cells a learner reads, runs and may change. A cell whose first line is

    #@save bulkhead_lab/pool/rounds.py

(or ``# @save ...``, as ruff format writes it) is exported, as written, into that module,
between the module's markers

    # >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
    ...
    # <<< saved cells

each preceded by a "Defined in" line naming the notebook and its section (d2l's ``#@save``
with its back-link). The module keeps its imports and anything else above or below the
markers; between them is only what the notebooks hold, in notebook order (notebooks sorted
by name). ``python -m bulkhead_lab.cells`` writes every module; ``--check`` only says which
differ (``tests/test_cells.py`` runs it, so a hand edit on either side fails the suite).

Pure: reads notebooks (JSON) and modules (text); writes only when asked.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
SAVE = re.compile(r"^# ?@save (bulkhead_lab/[\w/]+\.py)\s*$")  # ruff format writes "# @save"
BEGIN = "# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`"
END = "# <<< saved cells"
SECTION = re.compile(r"^## (\d+\.\s.*)$", re.M)


@dataclass(frozen=True)
class SavedCell:
    """One ``#@save`` cell: where it is (notebook, section), where it goes, and its code."""

    notebook: str  # e.g. "02_single_pool_vs_bulkhead.ipynb"
    section: str  # the heading of the section it stands in, e.g. "2. One round, in code"
    target: str  # the module's path in the repository, e.g. "bulkhead_lab/pool/rounds.py"
    code: str  # the cell's source without its #@save line, stripped

    @property
    def defined_in(self) -> str:
        return f"# Defined in notebooks/{self.notebook}, section {self.section}"


def saved_cells(notebooks: Path = NOTEBOOKS) -> list[SavedCell]:
    """Every ``#@save`` cell of every notebook, in order."""
    found = []
    for path in sorted(notebooks.glob("[0-9][0-9]_*.ipynb")):
        section = "0. (before the first section)"
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "markdown":
                headings = SECTION.findall(source)
                section = headings[-1].strip() if headings else section
                continue
            first, _, rest = source.partition("\n")
            match = SAVE.match(first)
            if cell["cell_type"] == "code" and match:
                found.append(SavedCell(path.name, section, match.group(1), rest.strip("\n")))
    return found


def region(cells: list[SavedCell]) -> str:
    """What stands between a module's markers for these cells (theirs, in order)."""
    blocks = [f"{cell.defined_in}\n{cell.code}" for cell in cells]
    return "\n\n\n".join(blocks)


def exported(module_text: str, cells: list[SavedCell], target: str) -> str:
    """``module_text`` with its marked region holding ``cells``; a module without markers is refused."""
    if module_text.count(BEGIN) != 1 or module_text.count(END) != 1:
        raise ValueError(f"{target} must hold the saved-cells markers once each:\n{BEGIN}\n{END}")
    head, _, tail = module_text.partition(BEGIN)
    _, _, tail = tail.partition(END)
    # two blank lines before the end marker: what ruff format leaves after a top-level def or class
    return f"{head}{BEGIN}\n{region(cells)}\n\n\n{END}{tail}"


def plan(repo: Path = REPO) -> dict[Path, tuple[str, str]]:
    """Each target module: (its text now, its text with the notebooks' cells)."""
    by_target: dict[str, list[SavedCell]] = {}
    for cell in saved_cells(repo / "notebooks"):
        by_target.setdefault(cell.target, []).append(cell)
    result = {}
    for target, cells in by_target.items():
        path = repo / target
        if not path.exists():
            raise ValueError(f"{cells[0].notebook} saves a cell to {target}, which does not exist")
        now = path.read_text(encoding="utf-8")
        result[path] = (now, exported(now, cells, target))
    return result


def differences(repo: Path = REPO) -> list[str]:
    """The modules whose saved cells differ from their notebooks' (empty: all in step)."""
    return [str(path.relative_to(repo)) for path, (now, want) in plan(repo).items() if now != want]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args not in ([], ["--check"]):
        print("usage: python -m bulkhead_lab.cells [--check]", file=sys.stderr)
        return 2
    todo = plan()
    stale = [path for path, (now, want) in todo.items() if now != want]
    if args == ["--check"]:
        for path in stale:
            print(f"{path.relative_to(REPO)} differs from its notebooks' #@save cells")
        return 1 if stale else 0
    for path in stale:
        path.write_text(todo[path][1], encoding="utf-8")
        print(f"wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
