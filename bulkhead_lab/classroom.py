"""Teaching a class on a shared JupyterHub: the instructor's ``hub-setup`` and the learner's ``notebooks``.

A hub starts each learner's JupyterLab itself (``jupyterhub-singleuser``), so it never reads
``jupyter/jupyter_lab_config.py``. What the course relies on goes into the shared environment instead:

- :func:`install_lab_settings` writes :data:`LAB_SETTINGS` (the same settings as
  ``jupyter/lab-settings/overrides.json``: notebook windowing off, so widgets below the fold render;
  Markdown opening rendered, so the start page does; no news pop-up) as JupyterLab's
  ``<prefix>/share/jupyter/lab/settings/overrides.json``, which every user's lab reads, keeping any
  other setting an overrides file there already holds;
- :func:`install_course` copies the course's notebooks (and ``lessons/`` if there) to
  ``<prefix>/share/bulkhead-lab/notebooks``, readable by every user: the course's own copy;
- :func:`copy_notebooks` gives a learner their own copy (``~/bulkhead-lab`` by default), never
  overwriting their work, and resets a notebook they name back to the course's (theirs kept as
  ``.bak``): a reset that needs no git.

``bulkhead-lab hub-setup`` and ``bulkhead-lab notebooks`` run them (docs/teaching-a-class.md).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

#: JupyterLab settings the course relies on; tests/test_classroom.py keeps them equal to
#: jupyter/lab-settings/overrides.json (what ``scripts/lab.sh`` uses).
LAB_SETTINGS: dict[str, dict[str, Any]] = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
    "@jupyterlab/docmanager-extension:plugin": {"defaultViewers": {"markdown": "Markdown Preview"}},
}
SETTINGS_PATH = ("share", "jupyter", "lab", "settings", "overrides.json")
COURSE_PATH = ("share", "bulkhead-lab", "notebooks")
START_PAGE = "00_start_here.md"
DEFAULT_COPY = Path("~/bulkhead-lab")


def install_lab_settings(prefix: Path) -> Path:
    """Write :data:`LAB_SETTINGS` into ``prefix``'s JupyterLab ``overrides.json`` (other settings kept)."""
    path = prefix.joinpath(*SETTINGS_PATH)
    settings: dict[str, Any] = {}
    if path.exists():
        try:
            settings = json.loads(path.read_text())
        except ValueError:
            raise ValueError(f"{path} is not JSON: fix or remove it, then run hub-setup again") from None
    for plugin, values in LAB_SETTINGS.items():
        settings[plugin] = {**settings.get(plugin, {}), **values}
    _readable_dirs(path.parent, prefix)
    path.write_text(json.dumps(settings, indent=2) + "\n")
    path.chmod(0o644)
    return path


def course_files(source: Path) -> list[Path]:
    """The course's files in ``source``, relative to it: the notebooks, the start page, the lessons."""
    found = [
        *source.glob("[0-9][0-9]_*.ipynb"),
        *source.glob("[0-9][0-9]_*.md"),
        *source.glob("lessons/*.txt"),
    ]
    return sorted(p.relative_to(source) for p in found)


def install_course(prefix: Path, source: Path) -> Path:
    """Copy the course's files from ``source`` to ``prefix/share/bulkhead-lab/notebooks``, readable by all."""
    files = course_files(source)
    if not any(f.name == START_PAGE for f in files):
        raise ValueError(
            f"--notebooks must be the course's notebooks folder, with {START_PAGE} (got {source})"
        )
    into = prefix.joinpath(*COURSE_PATH)
    for name in files:
        _readable_dirs((into / name).parent, prefix)
        shutil.copyfile(source / name, into / name)
        (into / name).chmod(0o644)
    return into


def copy_notebooks(dest: Path, source: Path, reset: list[str]) -> list[str]:
    """A learner's copy of the course in ``dest``: each file it lacks, and each named in ``reset``
    (``04``, ``04_fail_fast_queue`` or ``all``) copied afresh, their own kept as ``NAME.bak``.
    Returns one line per file. Never touches another file of theirs."""
    files = course_files(source)
    if not files:
        raise ValueError(f"no course notebooks in {source}: the instructor runs `bulkhead-lab hub-setup`")
    unknown = [r for r in reset if r != "all" and not any(f.name.startswith(r) for f in files)]
    if unknown:
        raise ValueError(f"--reset names no course file: {', '.join(unknown)} (e.g. 04, or all)")
    lines = []
    for name in files:
        target = dest / name
        again = "all" in reset or any(name.name.startswith(r) for r in reset)
        if target.exists() and not again:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        said = f"copied {name}"
        if target.exists():
            backup = target.with_name(target.name + ".bak")
            shutil.copyfile(target, backup)
            said = f"reset {name} to the course's (yours is {backup.name})"
        shutil.copyfile(source / name, target)
        lines.append(said)
    return lines


def trust(paths: list[Path]) -> int:
    """Sign each notebook in this user's trust database (``jupyter trust``), as ``scripts/lab.sh`` does,
    so its stored output renders before it is run; returns how many (0 without nbformat)."""
    try:
        import nbformat
        from nbformat.sign import NotebookNotary
    except ImportError:  # pragma: no cover - nbformat comes with JupyterLab
        return 0
    notary = NotebookNotary()
    for path in paths:
        notary.sign(nbformat.read(path, as_version=4))
    return len(paths)


def _readable_dirs(folder: Path, prefix: Path) -> None:
    """Make ``folder`` and its parents below ``prefix`` (created if missing) readable by every user."""
    folder.mkdir(parents=True, exist_ok=True)
    while folder != prefix and prefix in folder.parents:
        folder.chmod(0o755)
        folder = folder.parent


def _checkout_notebooks() -> Path | None:
    """The notebooks of the checkout this package runs from (an editable install), if there."""
    here = Path(__file__).resolve().parents[1] / "notebooks"
    return here if (here / START_PAGE).exists() else None


def hub_setup_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--prefix", default=sys.prefix, help="the shared environment (default: this Python's)")
    p.add_argument(
        "--notebooks", default=None, help="the course's notebooks folder (default: this checkout's)"
    )


def hub_setup(ns: argparse.Namespace) -> int:
    """``bulkhead-lab hub-setup``: the lab settings and the course's own copy, into the shared environment."""
    prefix = Path(ns.prefix).resolve()
    source = Path(ns.notebooks).resolve() if ns.notebooks else _checkout_notebooks()
    if source is None:
        raise ValueError("--notebooks is needed: this install is not a checkout (give its notebooks folder)")
    course = install_course(prefix, source)  # first: a wrong folder leaves nothing half written
    print(f"hub-setup: JupyterLab settings in {install_lab_settings(prefix)}")
    print(f"hub-setup: the course's notebooks in {course}")
    print(f"hub-setup: each learner runs `bulkhead-lab notebooks` for a copy in {DEFAULT_COPY}")
    return 0


def notebooks_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("dest", nargs="?", default=str(DEFAULT_COPY), help="your copy (default %(default)s)")
    p.add_argument(
        "--reset", nargs="+", default=[], help="notebooks to copy afresh: 04, 04_fail_fast_queue, all"
    )
    p.add_argument("--from", dest="source", default=None, help="the course's copy (default: hub-setup's)")


def notebooks(ns: argparse.Namespace) -> int:
    """``bulkhead-lab notebooks``: a learner's own copy of the course, or a notebook reset to the course's."""
    shared = Path(sys.prefix).joinpath(*COURSE_PATH)
    source = Path(ns.source) if ns.source else shared if shared.exists() else _checkout_notebooks()
    if source is None:
        raise ValueError(f"no course notebooks in {shared}: the instructor runs `bulkhead-lab hub-setup`")
    dest = Path(ns.dest).expanduser()
    lines = copy_notebooks(dest, source, ns.reset)
    for line in lines:
        print(f"notebooks: {line}")
    if lines:
        trusted = trust(sorted(dest.glob("[0-9][0-9]_*.ipynb")))
        print(f"notebooks: {trusted} notebooks trusted by you: their stored tables and sliders render")
    print(f"notebooks: your copy is {dest}: {len(lines)} copied now, the rest already yours")
    return 0
