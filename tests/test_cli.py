"""The command line, as a learner runs it: exact output, JSON, and one-line errors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bulkhead_lab import cli
from bulkhead_lab.pool.params import COUNTER_NAMES, Params
from bulkhead_lab.pool.rounds import run

REPO = Path(__file__).resolve().parents[1]


def bulkhead_lab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bulkhead_lab", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )


def test_reproduce_prints_the_lessons_output_byte_for_byte(seeds) -> None:
    out = subprocess.run([sys.executable, "-m", "bulkhead_lab", "reproduce"], capture_output=True, timeout=60)
    assert out.returncode == 0
    assert out.stdout == (seeds / "code" / "bulkhead-run.expected.txt").read_bytes()


def test_the_console_script_is_installed() -> None:
    exe = shutil.which("bulkhead-lab", path=os.path.dirname(sys.executable))
    assert exe is not None
    out = subprocess.run([exe, "simulate", "--json"], capture_output=True, text=True, timeout=60)
    assert json.loads(out.stdout) == run(Params()).as_dict()


def test_simulate_json_has_exactly_the_six_counters(capsys) -> None:
    given: dict[str, Any] = dict(
        split=20, mode="slowdown", seed=77, total=30, rounds=900, start=300, cycle=50
    )
    given |= dict(tracking_rate=150, event_rate=60.5, hold_tracking=5, hold_event=3, slow=17)
    options = [f"--{name.replace('_', '-')}={value}" for name, value in given.items()]
    assert cli.main(["simulate", *options, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert list(got) == list(COUNTER_NAMES)
    assert got == run(Params(**given)).as_dict()


def test_simulate_prints_a_readable_table(capsys) -> None:
    assert cli.main(["simulate", "--split", "24"]) == 0
    out = capsys.readouterr().out
    assert "bulkhead (24/8), healthy day" in out
    assert "tracking dropped" in out and "172" in out


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["simulate", "--split", "32"], "split must be an integer in 1..31 (got 32)"),
        (["simulate", "--split", "abc"], "argument --split: invalid int value: 'abc'"),
        (["simulate", "--cycle", "1e-300"], "cycle must be a number >= 4.1667 rounds/s for tracking_rate"),
        (
            ["simulate", "--rounds", "1000000", "--tracking-rate", "10000", "--event-rate", "0"],
            "--force is needed for this much work: about 82 s and 1.8 GB (1000000 rounds x 100.0 arrivals",
        ),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        ([], "the following arguments are required"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_exit_2(args: list[str], words: str) -> None:
    out = bulkhead_lab(*args)
    assert out.returncode == 2
    assert out.stdout == ""
    assert out.stderr.count("\n") == 1, out.stderr
    assert words in out.stderr
    assert "Traceback" not in out.stderr


def test_simulate_work_under_the_bound_runs_and_force_lifts_the_bound() -> None:
    from bulkhead_lab.cli import MAX_WORK_SECONDS, check_work, planned_work

    lesson = Params()
    seconds, nbytes, _ = planned_work(lesson)
    assert seconds < 1 and nbytes < 1e7  # the lesson's own run is far inside the bound
    check_work(lesson, force=False)
    huge = Params(rounds=1_000_000, tracking_rate=10_000, event_rate=0)
    assert planned_work(huge)[0] > MAX_WORK_SECONDS
    check_work(huge, force=True)  # --force: the user asked for it
