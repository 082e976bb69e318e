"""A class on a shared JupyterHub (issue 40): the lab settings a hub's environment carries, the course's own
copy, each learner's copy and a reset without git (bulkhead_lab/classroom.py, docs/teaching-a-class.md)."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

from bulkhead_lab import classroom
from bulkhead_lab.cli import main

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"


def test_the_packaged_lab_settings_are_the_ones_the_lab_command_uses() -> None:
    assert classroom.LAB_SETTINGS == json.loads(
        (REPO / "jupyter" / "lab-settings" / "overrides.json").read_text()
    )


def test_jupyterlab_reads_overrides_json_where_hub_setup_writes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from jupyterlab.commands import get_app_dir

    monkeypatch.delenv("JUPYTERLAB_DIR", raising=False)
    assert Path(get_app_dir()) / "settings" / "overrides.json" == Path(sys.prefix).joinpath(
        *classroom.SETTINGS_PATH
    )


def test_hub_setup_writes_the_settings_beside_others_and_a_copy_every_user_can_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prefix = tmp_path / "env"
    settings = prefix.joinpath(*classroom.SETTINGS_PATH)
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"}}))
    assert main(["hub-setup", "--prefix", str(prefix), "--notebooks", str(NOTEBOOKS)]) == 0
    written = json.loads(settings.read_text())
    assert written == {
        "@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"},
        **classroom.LAB_SETTINGS,
    }
    course = prefix.joinpath(*classroom.COURSE_PATH)
    names = sorted(p.name for p in course.iterdir() if p.is_file())
    assert names == sorted(p.name for p in NOTEBOOKS.glob("[0-9][0-9]_*.*"))
    assert "00_start_here.md" in names and "04_fail_fast_queue.ipynb" in names
    for path in [settings, *course.rglob("*")]:  # lessons/ too, where the lab copied the lessons in
        assert stat.S_IMODE(path.stat().st_mode) == (0o755 if path.is_dir() else 0o644), path
    for folder in [course, *course.parents]:
        if folder == prefix:
            break
        assert stat.S_IMODE(folder.stat().st_mode) == 0o755, folder
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "hub-setup: each learner runs `bulkhead-lab notebooks` for a copy in ~/bulkhead-lab"


def test_hub_setup_refuses_a_folder_without_the_course_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["hub-setup", "--prefix", str(tmp_path), "--notebooks", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("bulkhead-lab hub-setup: error: --notebooks must be the course's notebooks")
        and err.count("\n") == 1
    )


def test_a_learners_copy_keeps_their_work_and_a_reset_needs_no_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "home" / "data"))
    mine = tmp_path / "home" / "bulkhead-lab"
    assert main(["notebooks", "--from", str(NOTEBOOKS)]) == 0
    assert sorted(p.name for p in mine.iterdir() if p.is_file()) == sorted(
        p.name for p in NOTEBOOKS.glob("[0-9][0-9]_*.*")
    )
    out = capsys.readouterr().out
    assert f"notebooks: {len(list(NOTEBOOKS.glob('[0-9][0-9]_*.ipynb')))} notebooks trusted by you" in out
    assert _trusted(mine / "04_fail_fast_queue.ipynb")
    edited = mine / "04_fail_fast_queue.ipynb"
    edited.write_text("my work")
    (mine / "my_notes.ipynb").write_text("mine")
    assert main(["notebooks", "--from", str(NOTEBOOKS)]) == 0
    assert edited.read_text() == "my work"  # never overwritten unasked
    assert "your copy is" in capsys.readouterr().out
    assert main(["notebooks", "--from", str(NOTEBOOKS), "--reset", "04"]) == 0
    assert edited.read_bytes() == (NOTEBOOKS / edited.name).read_bytes()
    assert (mine / "04_fail_fast_queue.ipynb.bak").read_text() == "my work"
    assert (mine / "my_notes.ipynb").read_text() == "mine"
    assert "reset 04_fail_fast_queue.ipynb to the course's (yours is 04_fail_fast_queue.ipynb.bak)" in (
        capsys.readouterr().out
    )
    assert main(["notebooks", "--from", str(NOTEBOOKS), "--reset", "4x"]) == 2
    err = capsys.readouterr().err
    assert err == "bulkhead-lab notebooks: error: --reset names no course file: 4x (e.g. 04, or all)\n"


def _trusted(path: Path) -> bool:
    import nbformat
    from nbformat.sign import NotebookNotary

    return bool(NotebookNotary().check_signature(nbformat.read(path, as_version=4)))


def test_the_start_page_and_the_readme_tell_a_shared_machine_what_to_do() -> None:
    start = (NOTEBOOKS / "00_start_here.md").read_text()
    assert "bulkhead-lab notebooks --reset 04" in start
    assert "--port 0 --notification-port 0 --catalog-port 0" in start
    assert "--port 0 --payment-port 0 --inventory-port 0" in start
    assert "(docs/teaching-a-class.md)" in (REPO / "README.md").read_text()
    assert (REPO / "docs" / "teaching-a-class.md").exists()
