"""The book's copy of a notebook is what a page that cannot run shows: slider panels as the figures they
last drew with the line naming the lab command, figures with alt text, math as MathML, and the committed
notebooks untouched. (The built site in a browser: ``tests/e2e/test_book.py``.)"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bulkhead_lab.book import alt, source, widgets

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = source.notebooks(REPO / "notebooks")


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _book(path: Path) -> dict[str, Any]:
    return source.book_notebook(_load(path), path.stem.split("_", 1)[1])


def _outputs(nb: dict[str, Any]) -> list[dict[str, Any]]:
    return [o for c in nb["cells"] for o in c.get("outputs", [])]


def _markdown_outputs(nb: dict[str, Any]) -> list[str]:
    return [o["data"]["text/markdown"] for o in _outputs(nb) if "text/markdown" in o.get("data", {})]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_book_copy_has_no_widget_view_and_no_widget_state(path: Path) -> None:
    nb = _book(path)
    assert not any(widgets.WIDGET_VIEW in o.get("data", {}) for o in _outputs(nb))
    assert "widgets" not in nb["metadata"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_figure_a_panel_drew_is_in_the_book_with_the_lab_command_under_it(path: Path) -> None:
    original = _load(path)
    panel_figures = [
        o["data"][widgets.IMAGE]
        for m in widgets.saved_models(original).values()
        if m["model_name"] == "OutputModel"
        for o in m["state"].get("outputs", [])
        if widgets.IMAGE in o.get("data", {})
    ]
    stored = [o["data"][widgets.IMAGE] for o in _outputs(original) if widgets.IMAGE in o.get("data", {})]
    outputs = _outputs(_book(path))
    shown = [o["data"][widgets.IMAGE] for o in outputs if widgets.IMAGE in o.get("data", {})]
    assert sorted(shown) == sorted(stored + panel_figures)
    for i, output in enumerate(outputs):
        if widgets.IMAGE in output.get("data", {}) and output["data"][widgets.IMAGE] in panel_figures:
            line = outputs[i + 1]["data"]["text/markdown"]
            assert "In the lab the controls move" in line and f"`{widgets.LAB_COMMAND}`" in line


def test_a_panels_line_gives_the_settings_its_figure_was_drawn_at() -> None:
    path = REPO / "notebooks" / "02_single_pool_vs_bulkhead.ipynb"
    lines = [m for m in _markdown_outputs(_book(path)) if m.startswith("*Drawn at the saved settings")]
    splits = [
        m["state"]["_options_labels"][m["state"]["index"]]
        for m in widgets.saved_models(_load(path)).values()
        if m["model_name"] == "SelectionSliderModel" and m["state"]["description"] == "split (tracking/event)"
    ]
    assert lines and len(lines) == len(splits)
    drawn_at = [re.findall(r"split \(tracking/event\) = (.+?)(?:; |\. In the lab)", m) for m in lines]
    assert sorted(s for found in drawn_at for s in found) == sorted(splits)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_an_answer_box_is_one_line_saying_where_it_checks_answers(path: Path) -> None:
    original = _load(path)
    code = ["".join(c["source"]) for c in original["cells"] if c["cell_type"] == "code"]
    boxes = sum(bool(re.search(r"^exercises\.exercise_\d+$", c, re.M)) for c in code)
    lines = [m for m in _markdown_outputs(_book(path)) if m == widgets.EXERCISE_NOTE]
    assert len(lines) == boxes >= 2


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_each_figure_cell_has_one_figure_and_an_alt_sentence(path: Path) -> None:
    for cell in _book(path)["cells"]:
        figures = [o for o in cell.get("outputs", []) if widgets.IMAGE in o.get("data", {})]
        text = cell["metadata"].get("mystnb", {}).get("image", {}).get("alt", "")
        assert len(figures) <= 1
        if figures:
            assert (
                len(text.split()) >= 8 and text.endswith(").") and "``" not in text and ":func:" not in text
            )


def test_alt_text_is_the_first_paragraph_of_what_draws_the_figure() -> None:
    text = alt.alt_text("pool_placement", "figures.placement_figure(rows[0][1])", "3. Two placements", False)
    assert text == (
        "Latency by stream (left) and the concurrency each dependency saw (right) for one batch "
        "(figure of section “3. Two placements”)."
    )


def test_a_panels_alt_text_is_that_of_the_figure_it_draws() -> None:
    panel = alt.alt_text("fail_fast_queue", "panel = panels.orders_panel()\npanel", "8. Try it", True)
    figure = alt.alt_text("fail_fast_queue", "figures.orders_figure(r)", "8. Try it", False)
    assert panel == figure and panel.startswith("The lesson's 20 orders and 10 stock checks on one time axis")


def test_a_figure_built_with_a_kept_figure_class_takes_the_class_description() -> None:
    text = alt.alt_text("timeouts_and_queues", "figures.storm_figure(views.storm_view())", "The storm", False)
    assert text.startswith("Calls/s over the run (top) and the calls waiting in the dependency's queue")
    assert "Kept by" not in text and "drawn once" not in text


def test_a_figure_without_a_known_drawing_is_named_by_its_section() -> None:
    assert alt.alt_text("pool_placement", "plt.show()", "2. Setup", False) == "Figure of section “2. Setup”."


def test_alt_text_leaves_out_code_asides_and_how_a_panel_keeps_its_figure() -> None:
    doc = "Drops per flow (:func:`.views.run`). Kept by the panel: redrawn in place.\n\nMore."
    assert alt.plain_sentence(doc) == "Drops per flow."


def test_display_math_becomes_mathml_and_no_dollar_math_is_left() -> None:
    nb = _book(REPO / "notebooks" / "01_littles_law_sizing.ipynb")
    markdown = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in markdown
    assert "$$" not in markdown


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_book_copy_drops_the_nbval_markers_and_keeps_the_code(path: Path) -> None:
    code = ["".join(c["source"]) for c in _book(path)["cells"] if c["cell_type"] == "code"]
    assert code and not any("# NBVAL_" in c for c in code)
    assert any("exercises.exercise_1" in c for c in code)


def test_writing_the_source_tree_leaves_the_notebooks_as_committed(tmp_path: Path) -> None:
    before = {p: p.read_bytes() for p in NOTEBOOKS}
    written = source.write_source(REPO / "notebooks", REPO / "book" / "_config.yml", tmp_path / "src")
    assert {p: p.read_bytes() for p in NOTEBOOKS} == before
    assert [p.name for p in written] == [p.name for p in NOTEBOOKS]
    toc = (tmp_path / "src" / "_toc.yml").read_text()
    assert toc.startswith("format: jb-book\nroot: 00_start_here\n")
    assert all(f"- file: {p.stem}\n" in toc for p in NOTEBOOKS)
    assert "](lessons/" not in (tmp_path / "src" / source.START_PAGE).read_text()


def test_the_book_config_adds_no_widget_manager_from_a_cdn() -> None:
    config = (REPO / "book" / "_config.yml").read_text()
    assert "nb_ipywidgets_js: {}" in config and 'execute_notebooks: "off"' in config
    assert "dollarmath" not in config.split("myst_enable_extensions:")[1].split("html:")[0]


@pytest.mark.parametrize(
    ("args", "named"),
    [(["--bogus"], "--bogus"), (["--notebooks", "/nonexistent"], "--notebooks"), (["--out"], "--out")],
)
def test_a_bad_argument_is_one_line_and_exit_status_2(args: list[str], named: str) -> None:
    done = subprocess.run([sys.executable, "-m", "bulkhead_lab.book", *args], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and named in done.stderr and "Traceback" not in done.stderr
