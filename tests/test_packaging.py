"""pip and conda users get the same lab: pyproject.toml and environment.yml agree."""

from __future__ import annotations

import importlib.metadata
import re
import sys
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

REPO = Path(__file__).resolve().parents[1]

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import pip._vendor.tomli as tomllib  # type: ignore[no-redef]


def _split(requirement: str) -> tuple[str, str]:
    name, spec = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*?)\s*$", requirement).groups()
    return name.lower().replace("_", "-"), ",".join(sorted(str(s) for s in SpecifierSet(spec)))


def _with_extras(requirement: str) -> dict[str, str]:
    """A pip requirement as conda lists it: conda has no extras, so ``httpx[http2]>=0.27`` is httpx
    and each package its ``http2`` extra asks for, at the range the installed httpx's metadata gives."""
    req = Requirement(requirement)
    found = dict([_split(f"{req.name}{req.specifier}")])
    for extra in sorted(req.extras):
        for line in importlib.metadata.requires(req.name) or ():
            needed = Requirement(line)
            if needed.marker is not None and needed.marker.evaluate({"extra": extra}):
                found.update([_split(f"{needed.name}{needed.specifier}")])
    return found


def pyproject_packages() -> dict[str, str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["dev"]
    return {name: spec for r in wanted for name, spec in _with_extras(r).items()}


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
