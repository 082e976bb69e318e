"""The lab the README opens: our settings overrides still valid, its start page and the lessons beside it.

No browser here: these are quick facts about the installed JupyterLab. A setting renamed by a JupyterLab
upgrade would otherwise be ignored without a word (windowing back on, the news pop-up back). That the
widgets' extension is installed is every browser test's: no slider moves without it.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import lab_driver as ld
import pytest
from jupyterlab_server.workspaces_handler import WorkspacesManager
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

OVERRIDES = ld.REPO / "jupyter" / "lab-settings" / "overrides.json"
SCHEMAS = Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas"


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


def _load_config(workspaces: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("JUPYTERLAB_WORKSPACES_DIR", str(workspaces))
    return PyFileConfigLoader(ld.LAB_CONFIG.name, path=str(ld.LAB_CONFIG.parent)).load_config()


def test_the_lab_config_opens_the_notebooks_folder_with_these_overrides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _load_config(tmp_path, monkeypatch)
    assert Path(config.ServerApp.root_dir) == ld.REPO / "notebooks"
    assert Path(config.LabApp.app_settings_dir) == OVERRIDES.parent
    start = config.LabApp.default_url.removeprefix("/lab/tree/")
    assert (ld.REPO / "notebooks" / start).is_file(), f"the lab opens on {start}, which is missing"


def test_a_lab_without_a_saved_layout_starts_on_the_start_page_and_a_saved_one_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _load_config(tmp_path, monkeypatch)
    assert Path(config.LabApp.workspaces_dir) == tmp_path
    [saved] = WorkspacesManager(tmp_path).list_workspaces()
    assert saved["metadata"]["id"] == "default"
    opened = saved["data"]["layout-restorer:data"]["main"]["dock"]["widgets"]
    assert opened == ["markdownviewer-widget:00_start_here.md"]
    assert (ld.REPO / "notebooks" / saved["data"][opened[0]]["data"]["path"]).is_file()
    mine = {"data": {}, "metadata": {"id": "default"}}
    WorkspacesManager(tmp_path).save("default", json.dumps(mine))
    _load_config(tmp_path, monkeypatch)
    assert WorkspacesManager(tmp_path).list_workspaces()[0]["data"] == {}, "a learner's layout was replaced"


def test_the_lessons_beside_the_course_are_copied_under_the_names_the_start_page_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTERLAB_WORKSPACES_DIR", str(tmp_path / "workspaces"))
    monkeypatch.setenv("BULKHEAD_LAB_SEEDS", str(tmp_path / "nowhere"))  # copies nothing into the repo
    namespace: dict[str, Any] = {"get_config": Config, "__file__": str(ld.LAB_CONFIG)}
    exec(compile(ld.LAB_CONFIG.read_text(), str(ld.LAB_CONFIG), "exec"), namespace)
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    for prefix in ("000", "003", "004", "005"):
        (seeds / f"{prefix}_0123abcd.txt").write_text(f"lesson {prefix}")
    copied = namespace["copy_lessons"](seeds, tmp_path / "lessons")
    assert [p.read_text() for p in copied] == ["lesson 000", "lesson 003", "lesson 004"]
    links = re.findall(r"\]\((lessons/[^)]+)\)", (ld.REPO / "notebooks" / "00_start_here.md").read_text())
    assert sorted(links) == sorted(f"lessons/{p.name}" for p in copied)
    assert namespace["copy_lessons"](tmp_path / "absent", tmp_path / "none") == []
