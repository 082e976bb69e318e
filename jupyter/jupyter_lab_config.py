"""JupyterLab settings for Bulkhead Lab, used by the README's lab command and the browser tests.

Load it with ``jupyter lab --config=jupyter/jupyter_lab_config.py``. It opens the lab on ``notebooks/``
and points JupyterLab's *application* settings at ``jupyter/lab-settings/``, whose ``overrides.json``
changes a few defaults (a learner can still change them in Settings):

- notebook windowing ``none``: every cell stays in the page, so widgets below the fold render and keep
  their state (and a browser test can find them);
- no news or update check: no pop-up asking to fetch Jupyter news, no request to a website;
- Markdown files open rendered (the course's start page is one).

The lab opens on the start page, ``notebooks/00_start_here.md``: ``/`` redirects there, and a bare
``/lab`` opens it too, because a lab with no saved layout yet starts from ``workspace.json`` (the start
page, rendered). Once a learner has a layout of their own, the lab restores theirs.

Where the lessons are beside the course (``$BULKHEAD_LAB_SEEDS``, else ``../shared/seeds``), the lab copies
them to ``notebooks/lessons/`` (git-ignored) under readable names, so the start page can link them.

The extension manager is read-only: it lists what is installed and never queries PyPI.
Paths are absolute (from this file), so the command works from any working directory.
"""

import json
import os
import shutil
from pathlib import Path

from jupyterlab.labapp import get_workspaces_dir
from jupyterlab_server.workspaces_handler import WorkspacesManager

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
LESSONS = {"000": "lesson_000_bulkhead_model.txt", "003": "lesson_003_pool_placement.txt",
           "004": "lesson_004_order_service.txt"}  # fmt: skip


def seed_default_workspace(workspaces_dir: Path) -> None:
    """Give a lab with no saved default layout the course's (the start page); never overwrite one."""
    manager = WorkspacesManager(workspaces_dir)
    if not any(w["metadata"]["id"] == "default" for w in manager.list_workspaces()):
        manager.save("default", json.dumps(json.loads((HERE / "workspace.json").read_text())))


def copy_lessons(seeds: Path, into: Path) -> list[Path]:
    """Copy lessons 000, 003 and 004 from ``seeds`` (if there) into ``into``, named for what they are."""
    copied = []
    for prefix, name in LESSONS.items():
        found = sorted(seeds.glob(f"{prefix}_*.txt")) if seeds.is_dir() else []
        if found:
            into.mkdir(exist_ok=True)
            copied.append(Path(shutil.copyfile(found[0], into / name)))
    return copied


c = get_config()  # noqa: F821 - injected by traitlets when it loads this file

c.ServerApp.root_dir = str(REPO / "notebooks")
c.LabApp.app_settings_dir = str(HERE / "lab-settings")
c.LabApp.extension_manager = "readonly"
c.LabApp.default_url = "/lab/tree/00_start_here.md"
c.LabApp.workspaces_dir = get_workspaces_dir()  # $JUPYTERLAB_WORKSPACES_DIR, else jupyter's own
seed_default_workspace(Path(c.LabApp.workspaces_dir))
SEEDS = Path(os.environ.get("BULKHEAD_LAB_SEEDS", REPO.parent / "shared" / "seeds"))
copy_lessons(SEEDS, REPO / "notebooks" / "lessons")
