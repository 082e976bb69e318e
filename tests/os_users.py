"""Learners as a shared machine has them, for the class tests (tests/hub, tests/live/test_two_users.py):
OS users root creates and removes, what their processes need to import this checkout, a Python they
may run. Where that cannot be, the test is skipped with the reason in one line."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]


def learner_env() -> dict[str, str]:
    """What a learner's process needs to import this checkout and its packages, nothing of root's."""
    path = os.pathsep.join([str(REPO), sysconfig.get_paths()["purelib"]])
    return {"PATH": "/usr/bin:/bin", "PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"}


def as_user(user: str) -> dict[str, Any]:
    """Popen arguments that run a process as ``user`` (uid, gid, no extra groups), in its home."""
    entry = pwd.getpwnam(user)
    return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": [], "cwd": entry.pw_dir}


def _python_for(user: str, imports: str) -> str | None:
    """A Python of this version that ``user`` may execute and that imports ``imports``."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for exe in dict.fromkeys([sys.executable, shutil.which(version, path="/usr/bin:/usr/local/bin")]):
        if exe is None:
            continue
        try:
            done = subprocess.run(
                [exe, "-c", f"import {imports}"],
                env=learner_env(),
                capture_output=True,
                timeout=120,
                **as_user(user),
            )
        except OSError:
            continue
        if done.returncode == 0:
            return exe
    return None


@contextmanager
def learners(users: tuple[str, ...], imports: str) -> Iterator[str]:
    """These OS users, with homes (created here if missing, and then removed); yields a Python they may
    run that imports ``imports``."""
    if sys.platform != "linux" or os.geteuid() != 0:
        pytest.skip("needs root on Linux to create two OS users, one per learner")
    if shutil.which("useradd") is None or shutil.which("userdel") is None:
        pytest.skip("useradd or userdel is not installed: cannot create two OS users")
    created = []
    try:
        for user in users:
            if subprocess.run(["id", user], capture_output=True).returncode != 0:
                add = ["useradd", "--create-home", "--shell", "/bin/bash", user]
                subprocess.run(add, check=True, capture_output=True)
                created.append(user)
        python = _python_for(users[0], imports)
        if python is None:
            pytest.skip(
                f"no Python that another user may execute imports this checkout ({REPO}) and {imports}: "
                "install it shared, as docs/teaching-a-class.md says"
            )
        yield python
    finally:
        for user in created:
            subprocess.run(["pkill", "-KILL", "-u", user], capture_output=True)
            subprocess.run(["userdel", "--remove", user], capture_output=True)
