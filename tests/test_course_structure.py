"""Every notebook is a lesson of the course: goals, numbered sections, exercises, takeaways, clean outputs."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest
import writes

from bulkhead_lab.book.widgets import WIDGET_VIEW, saved_models

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
RAW_WIDGET_REPR = re.compile(r"^(VBox|HBox|IntProgress|Output|Box)\(children=|^[A-Z]\w+\(value=")


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def _text(cell: dict) -> str:
    return "".join(cell["source"])


def _markdown(path: Path) -> list[str]:
    return [_text(c) for c in _cells(path) if c["cell_type"] == "markdown"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: getattr(p, "name", str(p)))
def test_a_notebook_opens_with_its_title_what_you_will_learn_and_its_lesson(path: Path) -> None:
    """Its "About N minutes", near the top, is tests/test_cross_references.py's to check."""
    first = _markdown(path)[0]
    number = path.name[:2]
    assert re.match(rf"# \D*{number}\b", first), first.splitlines()[0]  # a title with the notebook's number
    assert "**You will learn**" in first
    outcomes = re.findall(r"^\d+\. ", first.split("**You will learn**")[1], re.M)
    assert 3 <= len(outcomes) <= 5, f"{len(outcomes)} outcomes"
    assert re.search(r"lesson 00\d|beyond the lessons", first, re.I), "which lesson it follows"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: getattr(p, "name", str(p)))
def test_sections_are_numbered_in_order(path: Path) -> None:
    numbers = [int(n) for md in _markdown(path) for n in re.findall(r"^## (\d+)\. ", md, re.M)]
    assert numbers and numbers == list(range(1, len(numbers) + 1)), numbers


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: getattr(p, "name", str(p)))
def test_at_least_two_exercises_each_with_an_answer_box(path: Path) -> None:
    cells = _cells(path)
    headings = [
        n
        for c in cells
        if c["cell_type"] == "markdown"
        for n in re.findall(r"^### Exercise (\d+): \S", _text(c), re.M)
    ]
    assert len(headings) >= 2 and headings == [str(i) for i in range(1, len(headings) + 1)], headings
    code = "\n".join(_text(c) for c in cells if c["cell_type"] == "code")
    for n in headings:
        assert re.search(rf"^exercises\.exercise_{n}$", code, re.M), f"exercise {n} has no answer box cell"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: getattr(p, "name", str(p)))
def test_one_exercise_asks_the_learner_to_write_the_mechanism_and_tests_writes_holds_its_candidates(
    path: Path,
) -> None:
    """Issue 30: every notebook has a write-it-yourself exercise (an Exercise whose box starts with the
    name its template cell defines), and tests/writes gives it a right and at least three broken sources."""
    from bulkhead_lab.course.ui.exercise import Exercise

    module = importlib.import_module(f"bulkhead_lab.course.{path.stem[3:]}.exercises")
    written = {id(e): e for e in vars(module).values() if isinstance(e, Exercise) and e.typed}
    assert len(written) == 1, f"{path.name}: {len(written)} write-it-yourself exercises, not one"
    (exercise,) = written.values()
    (candidates,) = [c for c in writes.all_candidates() if c.notebook == path.name]
    assert getattr(module, candidates.exercise) is exercise
    assert len(candidates.broken) >= 3, candidates.exercise
    code = [_text(c) for c in _cells(path) if c["cell_type"] == "code"]
    defines = re.compile(rf"^(async def|def|class) {exercise.typed}\b", re.M)
    assert any(defines.search(source) for source in code), f"no cell defines {exercise.typed}"
    assert any(re.search(rf"^exercises\.exercise_{exercise.number}$", s, re.M) for s in code)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: getattr(p, "name", str(p)))
def test_key_takeaways_close_the_story_and_an_appendix_follows(path: Path) -> None:
    """The takeaways close the story; then at least one appendix (unnumbered: the lesson's claims or
    the sources, checked) and nothing else."""
    markdown = _markdown(path)
    appendices = [i for i, md in enumerate(markdown) if md.startswith("## Appendix: ")]
    assert appendices, "no appendix after the takeaways"
    story = markdown[: appendices[0]] if appendices else markdown
    last = story[-1]
    assert last.startswith("## Key takeaways")
    assert len(re.findall(r"^\* ", last, re.M)) >= 3
    after = markdown[len(story) :]
    assert not any(re.match(r"## \d", md) for md in after), "a numbered section after the takeaways"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: getattr(p, "name", str(p)))
def test_run_all_stored_every_output_and_printed_no_answer_error_or_raw_widget(path: Path) -> None:
    for i, cell in enumerate(_cells(path)):
        if cell["cell_type"] != "code" or not _text(cell).strip():
            continue
        assert cell["execution_count"] is not None, f"cell {i} has no stored run"
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error", f"cell {i} stores an error"
            assert out.get("name") != "stderr", f"cell {i} stores stderr: {out.get('text')}"
            text = "".join(out.get("text", [])) + "".join(out.get("data", {}).get("text/plain", []))
            assert "Right:" not in text, f"cell {i} prints an answer before the learner tried"
            assert not RAW_WIDGET_REPR.match(text), f"cell {i} shows a raw widget repr on open: {text[:60]}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: getattr(p, "name", str(p)))
def test_every_widget_a_notebook_shows_is_in_its_saved_state(path: Path) -> None:
    """A trusted notebook opened before it runs draws its widgets from this state (sliders, figures);
    a widget missing from it would show "Error displaying widget: model not found" instead. (The book
    builds a page from the last commit's copy when the working one lacks it: in a fresh clone, this one.)"""
    nb = json.loads(path.read_text())
    state = saved_models(nb)
    outputs = [o for c in nb["cells"] for o in c.get("outputs", [])]
    outputs += [o for m in state.values() for o in m["state"].get("outputs", [])]  # inside Output widgets
    shown = [o["data"][WIDGET_VIEW]["model_id"] for o in outputs if WIDGET_VIEW in o.get("data", {})]
    assert shown, "no widget shown"
    assert [m for m in shown if m not in state] == []


def test_notebook_02s_trade_off_panel_is_driven_by_no_later_cell() -> None:
    """Section 5's panel opens as the learner left it: no cell after the one that builds it moves it."""
    cells = _cells(REPO / "notebooks" / "02_single_pool_vs_bulkhead.ipynb")
    code = [_text(c) for c in cells if c["cell_type"] == "code"]
    (built,) = [i for i, text in enumerate(code) if "tradeoff = panels.tradeoff_panel(" in text]
    assert not [text for text in code[built + 1 :] if "tradeoff." in text or "tradeoff_panel" in text]
