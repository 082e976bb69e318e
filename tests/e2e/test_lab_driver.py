"""The browser harness itself, proven on scratch notebooks written to a temp dir (not the course's).

If these fail, a clean notebook's browser test proves nothing: the driver must see an error or a stderr line
when a cell shows one. (That it sees a slider move redraw a figure and a table, and reads the table, every
move of the notebooks' tests proves: a driver that could not would fail them, never pass them.)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lab_driver as ld
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

pytestmark = pytest.mark.e2e


def _write(path: Path, *sources: str) -> None:
    nb = new_notebook(cells=[new_markdown_cell("# Scratch"), *(new_code_cell(s) for s in sources)])
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    nbformat.write(nb, path)


@pytest.fixture(scope="module")
def scratch_lab(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ld.Lab]:
    root = tmp_path_factory.mktemp("scratch-notebooks")
    _write(root / "stderr.ipynb", "import sys\nprint('a warning', file=sys.stderr)", "print('after')")
    _write(root / "error.ipynb", "print('before')", "raise ValueError('split must be in 1..31')", "print(1)")
    with ld.running_lab(root, tmp_path_factory.mktemp("scratch-lab")) as lab:
        yield lab


@pytest.mark.parametrize(
    ("notebook", "shown"), [("stderr.ipynb", "a warning"), ("error.ipynb", "split must be in 1..31")]
)
def test_an_error_or_a_stderr_line_in_any_cell_is_seen(
    scratch_lab: ld.Lab, page: Any, notebook: str, shown: str
) -> None:
    try:
        ld.open_notebook(page, scratch_lab, notebook)
        ld.run_all(page, timeout_ms=60_000)  # an error ends the run: the cells below it never run
        errors = ld.error_outputs(page)
    finally:
        scratch_lab.shutdown_kernels()
    assert len(errors) == 1 and shown in errors[0], errors
