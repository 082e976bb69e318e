"""The notebooks' ``#@save`` cells are the package's code: exported as written, never a second copy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bulkhead_lab import cells


def test_every_saved_cell_is_the_code_the_package_runs() -> None:
    assert cells.differences() == [], "run `python -m bulkhead_lab.cells` after editing a #@save cell"


def _notebook(path: Path, sources: list[tuple[str, str]]) -> None:
    nb = {
        "cells": [
            {"cell_type": kind, "metadata": {}, "source": text.splitlines(keepends=True)}
            | ({"outputs": [], "execution_count": None} if kind == "code" else {})
            for kind, text in sources
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "bulkhead_lab").mkdir()
    _notebook(
        tmp_path / "notebooks" / "02_demo.ipynb",
        [
            ("markdown", "# 02 · Demo\n\n## 1. First\n"),
            ("code", "#@save bulkhead_lab/demo.py\ndef one() -> int:\n    return 1\n"),
            ("code", "one()"),
            ("markdown", "## 2. Second\n"),
            ("code", "# @save bulkhead_lab/demo.py\n\ndef two() -> int:\n    return 2\n"),  # as ruff has it
        ],
    )
    module = f'"""Demo."""\n\nimport math\n\n{cells.BEGIN}\nstale\n{cells.END}\n\nTAIL = 1\n'
    (tmp_path / "bulkhead_lab" / "demo.py").write_text(module)
    return tmp_path


def test_a_saved_cell_lands_between_the_markers_with_where_it_is_defined(repo: Path) -> None:
    [(path, (now, want))] = cells.plan(repo).items()
    assert path == repo / "bulkhead_lab" / "demo.py"
    assert "stale" in now and "stale" not in want
    assert want.startswith('"""Demo."""\n\nimport math\n\n') and want.endswith(f"{cells.END}\n\nTAIL = 1\n")
    region = want.split(cells.BEGIN + "\n")[1].split(cells.END)[0]
    assert region == (
        "# Defined in notebooks/02_demo.ipynb, section 1. First\ndef one() -> int:\n    return 1\n\n\n"
        "# Defined in notebooks/02_demo.ipynb, section 2. Second\ndef two() -> int:\n    return 2\n\n\n"
    )


def test_an_edit_on_either_side_is_a_difference(repo: Path) -> None:
    target = repo / "bulkhead_lab" / "demo.py"
    target.write_text(cells.plan(repo)[target][1])
    assert cells.differences(repo) == []
    target.write_text(target.read_text().replace("return 1", "return 11"))
    assert cells.differences(repo) == ["bulkhead_lab/demo.py"]


def test_a_module_without_markers_is_refused_with_one_line(repo: Path) -> None:
    (repo / "bulkhead_lab" / "demo.py").write_text('"""No markers."""\n')
    with pytest.raises(ValueError, match="must hold the saved-cells markers"):
        cells.plan(repo)


def test_a_cell_saved_to_a_missing_module_is_refused(repo: Path) -> None:
    (repo / "bulkhead_lab" / "demo.py").unlink()
    with pytest.raises(ValueError, match="which does not exist"):
        cells.plan(repo)


def test_an_exported_module_is_as_ruff_format_leaves_it(repo: Path, tmp_path: Path) -> None:
    """The cells end in a def, the module goes on below the end marker: no blank line for ruff to add."""
    target = repo / "bulkhead_lab" / "demo.py"
    target.write_text(cells.plan(repo)[target][1].replace("import math\n", ""))
    ruff = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--diff", "--no-cache", str(target)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
