"""Lesson 003's own node tests, unchanged, against ``python -m bulkhead_lab serve-pools``.

pool.test.mjs talks to 127.0.0.1:8401 (the loan service) with node's http module; if
our services speak the lesson's protocol and keep its facts, its three tests pass.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from loopback import listening
from outside import serving

pytestmark = [pytest.mark.live, pytest.mark.node]


def test_lesson_003s_pool_tests_pass_unchanged_against_serve_pools(
    node: str, seeds: Path, tmp_path: Path
) -> None:
    test_file = seeds / "code" / "pool.test.mjs"
    if not test_file.exists():
        pytest.skip(f"lesson 003's pool.test.mjs not found in {test_file.parent}")
    shutil.copy(test_file, tmp_path / "pool.test.mjs")
    # serving() asserts each service binds 127.0.0.1 alone and how it stops: exit 0, "stopped", no stderr
    with serving("serve-pools", free_ports=False) as s:
        assert s.urls["loan"] == "http://127.0.0.1:8401"  # the lesson's own ports, as the node tests expect
        run = subprocess.run(
            [node, "--test", "--test-force-exit", "--test-reporter=tap", "pool.test.mjs"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=180,
        )
    summary = [ln for ln in run.stdout.splitlines() if ln.startswith(("ok", "not ok", "# pass", "# fail"))]
    assert run.returncode == 0, run.stdout + run.stderr
    assert summary == [
        "ok 1 - pool per dependency saves the neighboring stream",
        "ok 2 - a skipped call site exceeds the pool limit",
        "ok 3 - the pool limit binds only its own dependency",
        "# pass 3",
        "# fail 0",
    ]
    assert not any(listening(port) for port in (8401, 8402, 8403))
