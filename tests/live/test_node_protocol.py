"""Lesson 003's own node tests, unchanged, against ``python -m bulkhead_lab serve-pools``.

pool.test.mjs talks to 127.0.0.1:8401 (the loan service) with node's http module; if
our services speak the lesson's protocol and keep its facts, its three tests pass.
"""

from __future__ import annotations

import select
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from loopback import listening

pytestmark = [pytest.mark.live, pytest.mark.node]


def test_lesson_003s_pool_tests_pass_unchanged_against_serve_pools(
    node: str, seeds: Path, tmp_path: Path
) -> None:
    test_file = seeds / "code" / "pool.test.mjs"
    if not test_file.exists():
        pytest.skip(f"lesson 003's pool.test.mjs not found in {test_file.parent}")
    shutil.copy(test_file, tmp_path / "pool.test.mjs")
    server = subprocess.Popen(
        [sys.executable, "-m", "bulkhead_lab", "serve-pools"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ready, _, _ = select.select([server.stdout], [], [], 20)
        assert ready, "serve-pools printed nothing within 20 s"
        line = server.stdout.readline()
        assert line.startswith("serve-pools: loan http://127.0.0.1:8401/run"), (
            line + server.stderr.read() if server.poll() is not None else line
        )
        run = subprocess.run(
            [node, "--test", "--test-force-exit", "--test-reporter=tap", "pool.test.mjs"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=180,
        )
    finally:
        server.send_signal(signal.SIGINT)  # Ctrl-C
        out, err = server.communicate(timeout=15)
    summary = [ln for ln in run.stdout.splitlines() if ln.startswith(("ok", "not ok", "# pass", "# fail"))]
    assert run.returncode == 0, run.stdout + run.stderr
    assert summary == [
        "ok 1 - pool per dependency saves the neighboring stream",
        "ok 2 - a skipped call site exceeds the pool limit",
        "ok 3 - the pool limit binds only its own dependency",
        "# pass 3",
        "# fail 0",
    ]
    assert server.returncode == 0 and err == "" and out.strip() == "serve-pools: stopped"
    assert not any(listening(port) for port in (8401, 8402, 8403))
