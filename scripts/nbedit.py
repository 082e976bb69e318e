"""Edit notebook code cells' sources in place, keeping the file's JSON layout (indent 1, UTF-8).

Usage from Python: ``edit(path, {old_source_substring: new_substring, ...})``; only code and
markdown sources change, never outputs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def load(path: str | Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def save(path: str | Path, nb: dict) -> None:
    Path(path).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def source(cell: dict) -> str:
    return "".join(cell["source"])


def set_source(cell: dict, text: str) -> None:
    lines = text.splitlines(keepends=True)
    cell["source"] = lines


def edit(path: str | Path, replacements: dict[str, str], kinds: tuple[str, ...] = ("code",)) -> int:
    nb = load(path)
    changed = 0
    for cell in nb["cells"]:
        if cell["cell_type"] not in kinds:
            continue
        text = source(cell)
        new = text
        for old, repl in replacements.items():
            new = new.replace(old, repl)
        if new != text:
            set_source(cell, new)
            changed += 1
    save(path, nb)
    return changed


if __name__ == "__main__":
    print(__doc__, file=sys.stderr)


def build(path: str | Path, cells: list[tuple[str, str]]) -> None:
    """Rewrite ``path`` with ``cells`` (``("md"|"code", source)``), keeping its notebook metadata.

    Outputs are dropped; execute the notebook afterwards to store them
    (``jupyter nbconvert --to notebook --execute --inplace``).
    """
    p = Path(path)
    nb = load(p) if p.exists() else {"metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    meta = {k: v for k, v in nb.get("metadata", {}).items() if k in ("kernelspec", "language_info")}
    if "kernelspec" not in meta:
        meta["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    out = []
    for i, (kind, text) in enumerate(cells):
        cell: dict = {"cell_type": "markdown" if kind == "md" else "code", "id": f"c{i:02d}", "metadata": {}}
        set_source(cell, text.strip("\n"))
        if kind != "md":
            cell["execution_count"] = None
            cell["outputs"] = []
        out.append(cell)
    save(p, {"cells": out, "metadata": meta, "nbformat": 4, "nbformat_minor": 5})
