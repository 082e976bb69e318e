"""The browser harness itself, proven on scratch notebooks written to a temp dir (not the course's).

If these fail, the notebooks' browser tests cannot be trusted either way: the driver must see a slider
move redraw a figure and a table, and must see an error or a stderr line when a cell shows one.
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

SLIDER_CELL = """\
%matplotlib inline
import ipywidgets as widgets
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display

slider = widgets.IntSlider(value=5, min=1, max=20, description="x")
slider.add_class("bl-slider-x")
out = widgets.Output()
out.add_class("bl-view-x")

def redraw(change=None):
    with out:
        out.clear_output(wait=True)
        fig, ax = plt.subplots(figsize=(4, 2.5))
        ax.bar(["x", "x squared / 10"], [slider.value, slider.value**2 / 10])
        plt.show()
        display(pd.DataFrame({"x": [slider.value], "square": [slider.value**2]}))

slider.observe(redraw, "value")
redraw()
panel = widgets.VBox([slider, out])
panel.add_class("bl-panel-x")
display(panel)"""


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
    _write(root / "slider.ipynb", SLIDER_CELL, "print(slider.value)")
    _write(root / "stderr.ipynb", "import sys\nprint('a warning', file=sys.stderr)", "print('after')")
    _write(root / "error.ipynb", "print('before')", "raise ValueError('split must be in 1..31')", "print(1)")
    with ld.running_lab(root, tmp_path_factory.mktemp("scratch-lab")) as lab:
        yield lab


def test_arrow_keys_on_a_slider_handle_redraw_its_figure_and_table(
    scratch_lab: ld.Lab, page: Any, screenshots: Path
) -> None:
    try:
        ld.open_notebook(page, scratch_lab, "slider.ipynb")
        ld.run_all(page)
        assert ld.error_outputs(page) == []
        before = ld.wait_for_view(page, "x")
        assert ld.slider_value(page, "x") == "5"
        assert before.table() == [{"": "0", "x": "5", "square": "25"}]
        ld.screenshot(page, "x", screenshots / "before.png")

        ld.press_slider(page, "x", "ArrowRight", 3)
        after = ld.wait_until_settled(page, "x", before)
        ld.screenshot(page, "x", screenshots / "after.png")
    finally:
        scratch_lab.shutdown_kernels()
    assert ld.slider_value(page, "x") == "8"
    assert after.images != before.images
    assert after.table() == [{"": "0", "x": "8", "square": "64"}]


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
