"""The lab the README opens: widgets' JupyterLab extension present, and our settings overrides still valid.

No browser here: these are quick facts about the installed JupyterLab. A setting renamed by a JupyterLab
upgrade would otherwise be ignored without a word (windowing back on, the news pop-up back).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import lab_driver as ld
from traitlets.config.loader import PyFileConfigLoader

OVERRIDES = ld.REPO / "jupyter" / "lab-settings" / "overrides.json"
SCHEMAS = Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas"


def test_the_ipywidgets_lab_extension_is_installed_and_enabled() -> None:
    listing = subprocess.run(
        [sys.executable, "-m", "jupyter", "labextension", "list"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    lines = [
        ln
        for ln in (listing.stdout + listing.stderr).splitlines()
        if "@jupyter-widgets/jupyterlab-manager" in ln
    ]
    assert lines, "ipywidgets' JupyterLab extension (jupyterlab_widgets) is missing: sliders would not render"
    assert "enabled" in lines[0] and "OK" in lines[0], lines[0]


def test_every_override_names_a_real_setting_with_an_allowed_value() -> None:
    overrides = json.loads(OVERRIDES.read_text())
    assert overrides, "no overrides"
    for plugin_id, values in overrides.items():
        package, plugin = plugin_id.split(":")
        schema = json.loads((SCHEMAS / package / f"{plugin}.json").read_text())
        for key, value in values.items():
            assert key in schema["properties"], f"{plugin_id} has no setting {key!r}"
            spec = schema["properties"][key]
            allowed = [c["const"] for c in spec.get("oneOf", []) if "const" in c] or spec.get("enum")
            if allowed:
                assert value in allowed, f"{plugin_id}.{key} = {value!r}, allowed {allowed}"
            else:
                kind = {"boolean": bool, "string": str, "object": dict}[spec["type"]]
                assert isinstance(value, kind), (plugin_id, key)


def test_the_lab_config_opens_the_notebooks_folder_with_these_overrides() -> None:
    config = PyFileConfigLoader(ld.LAB_CONFIG.name, path=str(ld.LAB_CONFIG.parent)).load_config()
    assert Path(config.ServerApp.root_dir) == ld.REPO / "notebooks"
    assert Path(config.LabApp.app_settings_dir) == OVERRIDES.parent
    start = config.LabApp.default_url.removeprefix("/lab/tree/")
    assert (ld.REPO / "notebooks" / start).is_file(), f"the lab opens on {start}, which is missing"
