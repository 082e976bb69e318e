"""JupyterLab settings for Bulkhead Lab, used by the README's lab command and the browser tests.

Load it with ``jupyter lab --config=jupyter/jupyter_lab_config.py``. It opens the lab on ``notebooks/``
and points JupyterLab's *application* settings at ``jupyter/lab-settings/``, whose ``overrides.json``
changes a few defaults (a learner can still change them in Settings):

- notebook windowing ``none``: every cell stays in the page, so widgets below the fold render and keep
  their state (and a browser test can find them);
- no news or update check: no pop-up asking to fetch Jupyter news, no request to a website;
- Markdown files open rendered (the course's start page is one).

The lab opens on the start page, ``notebooks/00_start_here.md``.

The extension manager is read-only: it lists what is installed and never queries PyPI.
Paths are absolute (from this file), so the command works from any working directory.
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

c = get_config()  # noqa: F821 - injected by traitlets when it loads this file

c.ServerApp.root_dir = str(REPO / "notebooks")
c.LabApp.app_settings_dir = str(HERE / "lab-settings")
c.LabApp.extension_manager = "readonly"
c.LabApp.default_url = "/lab/tree/00_start_here.md"
