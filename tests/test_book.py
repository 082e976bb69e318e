"""The book's copy of a notebook is what a page that cannot run shows: slider panels as the figures they
last drew with the settings they drew at, figures with alt text, math as MathML, and the committed
notebooks untouched. (The built site in a browser, ``tests/e2e/test_book.py``, counts each page's figures
against the notebook's, each panel's with its line naming the lab command, and finds no widget left.)"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from bulkhead_lab.book import alt, source, widgets

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = source.notebooks(REPO / "notebooks")


def _load(path: Path) -> dict[str, Any]:
    """The notebook the book builds ``path``'s page from (its working copy, or its last commit's)."""
    return source.book_source(path).notebook


def _book(path: Path) -> dict[str, Any]:
    return source.book_notebook(_load(path), path.stem.split("_", 1)[1])


def _outputs(nb: dict[str, Any]) -> list[dict[str, Any]]:
    return [o for c in nb["cells"] for o in c.get("outputs", [])]


def _markdown_outputs(nb: dict[str, Any]) -> list[str]:
    return [o["data"]["text/markdown"] for o in _outputs(nb) if "text/markdown" in o.get("data", {})]


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


def test_alt_text_is_the_first_sentence_of_what_draws_the_figure_else_its_section() -> None:
    """A figure function's docstring, or the kept-figure class's it builds; a panel's figure, the figure's;
    with no drawing known, the section's heading alone."""
    from bulkhead_lab.course.pool_placement import figures as placement
    from bulkhead_lab.course.timeouts_and_queues import figures as storm

    text = alt.alt_text("pool_placement", "figures.placement_figure(rows[0][1])", "3. Two placements", False)
    said = alt.plain_sentence(placement.placement_figure.__doc__ or "")[:-1]
    assert text == f"{said} (figure of section “3. Two placements”)."
    kept = alt.alt_text("timeouts_and_queues", "figures.storm_figure(views.storm_view())", "The storm", False)
    assert kept.startswith(alt.plain_sentence(storm.StormFigure.__doc__ or "")[:-1]) and "Kept by" not in kept
    panel = alt.alt_text("fail_fast_queue", "panel = panels.orders_panel()\npanel", "8. Try it", True)
    assert panel == alt.alt_text("fail_fast_queue", "figures.orders_figure(r)", "8. Try it", False)
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


# A notebook after the lab's save. JupyterLab rewrites a notebook's outputs as the kernel drew them, and
# keeps its metadata as it loaded it unless Settings > Save Widget State Automatically is on (off by
# default: the widget manager's saveState). So after Run All and a save, each widget view in the outputs
# names a widget of the new run while metadata.widgets still holds those of the last full save: seen with
# JupyterLab 4.6 and jupyterlab_widgets 3.0 on notebooks 01 and 02 (metadata unchanged, every view's
# model_id new). With the setting on, the state is the live widgets' only, their defaults left out.

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="


def _model(name: str, **state: Any) -> dict[str, Any]:
    return {"model_name": name, "model_module": "@jupyter-widgets/controls", "state": state}


def _panel_notebook(split: str = "24/8", value: int = 6) -> dict[str, Any]:
    """A notebook saved with its widget state: one panel (a split, a hold, the figure it drew)."""
    figure = {"output_type": "display_data", "data": {widgets.IMAGE: PNG, "text/plain": "<Figure>"}}
    models = {
        "panel": _model("VBoxModel", children=["IPY_MODEL_split", "IPY_MODEL_hold", "IPY_MODEL_out"]),
        "split": _model(
            "SelectionSliderModel", description="split", _options_labels=["20/12", "24/8"], index=1
        ),
        "hold": _model("IntSliderModel", description="hold", value=value),
        "out": _model("OutputModel", outputs=[figure]),
    }
    models["split"]["state"]["index"] = ["20/12", "24/8"].index(split)
    view = {widgets.WIDGET_VIEW: {"model_id": "panel", "version_major": 2, "version_minor": 0}}
    cell = {
        "cell_type": "code",
        "source": "panels.tradeoff_panel()",
        "metadata": {},
        "execution_count": 1,
        "outputs": [
            {"output_type": "display_data", "data": {**view, "text/plain": "VBox()"}, "metadata": {}}
        ],
    }
    state = {"version_major": 2, "version_minor": 0, "state": models}
    return {
        "cells": [{"cell_type": "markdown", "source": "## 1. The panel", "metadata": {}}, cell],
        "metadata": {"widgets": {widgets.WIDGET_STATE: state}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _saved_by_the_lab(notebook: dict[str, Any]) -> dict[str, Any]:
    """``notebook`` after Run All and a save in the lab with its default settings: every widget view
    names a new widget, the widget state is the one it loaded."""
    saved = json.loads(json.dumps(notebook))
    for cell in saved["cells"]:
        for output in cell.get("outputs", []):
            if widgets.WIDGET_VIEW in output.get("data", {}):
                output["data"][widgets.WIDGET_VIEW]["model_id"] = uuid.uuid4().hex
    return saved


def _write(path: Path, notebook: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(notebook, indent=1) + "\n", encoding="utf-8")
    return path


def _git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True)


@pytest.fixture
def no_outer_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """git finds no repository above ``tmp_path`` (wherever the temporary folder is)."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))


def _the_books_page(notebook: dict[str, Any]) -> list[str]:
    """The panel's outputs in the book's copy: a figure as ``figure``, a line as its Markdown."""
    outputs = _outputs(source.book_notebook(notebook, "single_pool_vs_bulkhead"))
    return ["figure" if widgets.IMAGE in o["data"] else o["data"]["text/markdown"] for o in outputs]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed here")
def test_a_notebook_the_lab_saved_without_its_widget_state_is_built_from_its_last_commit(
    tmp_path: Path, no_outer_repo: None
) -> None:
    clone = tmp_path / "clone"
    path = _write(clone / "notebooks" / "02_single_pool_vs_bulkhead.ipynb", _panel_notebook())
    _git(clone, "init", "-q")
    _git(clone, "add", "notebooks")
    _git(
        clone, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "commit", "-qm", "c"
    )
    _write(path, _saved_by_the_lab(_panel_notebook(split="20/12", value=9)))
    assert source.unsaved_views(json.loads(path.read_text())) == (1, 1)

    chosen = source.book_source(path)

    assert chosen.notebook == _panel_notebook()
    assert chosen.said is not None and len(chosen.said.splitlines()) == 1
    assert chosen.said.startswith("book: 02_single_pool_vs_bulkhead.ipynb is built from its last commit")
    page = _the_books_page(chosen.notebook)
    assert page[0] == "figure" and "split = 24/8; hold = 6" in page[1] and len(page) == 2


@pytest.mark.parametrize("git", ["not a clone", "no git at all"])
def test_without_a_committed_copy_the_build_says_which_notebooks_panels_cannot_be_shown_and_why(
    tmp_path: Path, no_outer_repo: None, monkeypatch: pytest.MonkeyPatch, git: str
) -> None:
    tarball = tmp_path / "bulkhead-lab" / "notebooks"
    path = _write(tarball / "02_single_pool_vs_bulkhead.ipynb", _saved_by_the_lab(_panel_notebook()))
    if git == "no git at all":
        monkeypatch.setenv("PATH", str(tmp_path / "empty"))

    chosen = source.book_source(path)

    assert chosen.notebook == json.loads(path.read_text())
    assert chosen.said is not None and len(chosen.said.splitlines()) == 1
    assert chosen.said.startswith("book: 02_single_pool_vs_bulkhead.ipynb: 1 of its 1 panels")
    assert "saved widget state does not hold" in chosen.said and "no committed copy" in chosen.said
    assert _the_books_page(chosen.notebook) == [widgets.UNSAVED_NOTE]


def test_a_notebook_whose_saved_widget_state_shows_its_panels_is_built_as_it_is(tmp_path: Path) -> None:
    """Saved with its widget state (by nbconvert, or by the lab with the setting on: new widgets only, their
    defaults left out), the working copy is the page, whatever the last commit holds."""
    saved = _saved_by_the_lab(_panel_notebook())
    view = next(o for c in saved["cells"] for o in c.get("outputs", []) if widgets.WIDGET_VIEW in o["data"])
    new_id = view["data"][widgets.WIDGET_VIEW]["model_id"]
    models = saved["metadata"]["widgets"][widgets.WIDGET_STATE]["state"]
    models[new_id] = models.pop("panel")
    del models["hold"]["state"]["value"]  # a value at its default (0) is not saved
    path = _write(tmp_path / "02_single_pool_vs_bulkhead.ipynb", saved)

    def never(path: Path) -> dict[str, Any]:
        raise AssertionError("read the last commit of a notebook that needs none")

    chosen = source.book_source(path, read_committed=never)
    assert chosen.said is None and chosen.notebook == saved
    assert _the_books_page(chosen.notebook)[1].startswith(
        "*Drawn at the saved settings: split = 24/8; hold = 0."
    )


def test_writing_the_source_tree_passes_on_the_line_about_a_notebook(
    tmp_path: Path, no_outer_repo: None
) -> None:
    folder = tmp_path / "notebooks"
    _write(folder / "02_single_pool_vs_bulkhead.ipynb", _saved_by_the_lab(_panel_notebook()))
    (folder / source.START_PAGE).write_text("# 00 · Start here\n", encoding="utf-8")
    said: list[str] = []
    source.write_source(folder, REPO / "book" / "_config.yml", tmp_path / "src", say=said.append)
    assert len(said) == 1 and said[0].startswith("book: 02_single_pool_vs_bulkhead.ipynb: 1 of its 1 panels")
