"""pip and conda users get the same lab: pyproject.toml and environment.yml agree."""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import pip._vendor.tomli as tomllib  # type: ignore[no-redef]


def _split(requirement: str) -> tuple[str, str]:
    name, spec = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*?)\s*$", requirement).groups()
    return name.lower().replace("_", "-"), spec.replace(" ", "")


def pyproject_packages() -> dict[str, str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["dev"]
    return dict(_split(r) for r in wanted)


def conda_packages() -> dict[str, str]:
    lines = (REPO / "environment.yml").read_text().splitlines()
    start = lines.index("dependencies:")
    found = {}
    for line in lines[start + 1 :]:
        m = re.match(r"^  - ([^:\s][^:]*)$", line)
        if m:
            found.update([_split(m.group(1))])
    return {k: v for k, v in found.items() if k not in ("python", "pip")}


def test_environment_yml_lists_the_same_packages_as_pyproject() -> None:
    assert conda_packages() == pyproject_packages()


def test_environment_yml_installs_the_project_itself() -> None:
    text = (REPO / "environment.yml").read_text()
    assert "- conda-forge" in text and "- -e ." in text
    assert "python>=3.10" in text
