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
