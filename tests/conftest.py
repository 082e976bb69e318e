"""Shared fixtures: where the lessons' seed files are, and the JavaScript reference."""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def seeds_dir() -> Path:
    """The lessons' folder: $BULKHEAD_LAB_SEEDS, else ../shared/seeds beside the repo."""
    return Path(os.environ.get("BULKHEAD_LAB_SEEDS", REPO.parent / "shared" / "seeds"))


@pytest.fixture(scope="session")
def seeds() -> Path:
    path = seeds_dir()
    if not (path / "code" / "bulkhead-run.mjs").exists():
        pytest.skip(f"lesson seeds not found at {path} (set BULKHEAD_LAB_SEEDS)")
    return path


@pytest.fixture(scope="session")
def lesson_text(seeds: Path) -> Callable[[str], str]:
    """Lesson ``NNN``'s text among the seeds; a test asking for one that is not there is skipped."""

    def read(number: str) -> str:
        found = sorted(seeds.glob(f"{number}_*.txt"))
        if not found:
            pytest.skip(f"lesson {number}'s text is not among the seeds")
        return found[0].read_text(encoding="utf-8")

    return read


@pytest.fixture(scope="session")
def node() -> str:
    exe = shutil.which("node")
    if exe is None:
        pytest.skip("node is not installed: the lesson's JavaScript cannot run as a reference")
    return exe


@pytest.fixture
def kernel_sigint() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt in the main thread, as in a Jupyter kernel running a cell.

    ipykernel installs Python's own SIGINT handler for every cell it runs. A test run started in
    the background of a script (``bash scripts/test.sh &``, nohup) inherits SIGINT *ignored*, and
    then an interrupt test would wait out its whole run instead of testing the interrupt.
    """
    was = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, was)
