"""Fixtures for the browser tests: one headless Chromium and one JupyterLab per module, always stopped.

The tests skip, with the reason, where the playwright package or ``/usr/bin/chromium`` is missing or
Chromium cannot start; everywhere else they run. Screenshots go to ``test-artifacts/screenshots/``
(git-ignored) so a person can look at what the learner would see.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lab_driver as ld
import pytest

SCREENSHOTS = ld.REPO / "test-artifacts" / "screenshots"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by playwright (skips with the reason if it cannot start).

    Module scope, not session: while playwright's sync API is open it keeps an asyncio loop running on
    the main thread, which would break every asyncio test that runs after these in the same process.
    """
    try:
        with ld.launch_chromium() as chromium:
            yield chromium
    except ld.BrowserUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def notebooks_lab(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ld.Lab]:
    """JupyterLab on the repository's ``notebooks/``, started with the README's lab config."""
    with ld.running_lab(ld.REPO / "notebooks", tmp_path_factory.mktemp("lab")) as lab:
        yield lab


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh browser context and page (no cookies or storage shared between notebooks)."""
    context = browser.new_context(viewport=ld.VIEWPORT)
    context.set_default_timeout(60_000)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def screenshots(request: pytest.FixtureRequest) -> Path:
    """This test's screenshot folder under ``test-artifacts/screenshots/``."""
    name = request.node.callspec.id if hasattr(request.node, "callspec") else request.node.name
    folder = SCREENSHOTS / name.replace(".ipynb", "")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
