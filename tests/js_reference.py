"""Run lesson 000's own JavaScript with other constants, as a reference for the port.

The lesson's ``bulkhead-run.mjs`` names its constants on three lines and its seed in
``run()``; this rewrites exactly those and appends one line that prints the counters
of the runs asked for, so the lesson's code itself answers for any parameter set.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from bulkhead_lab.pool.params import COUNTER_NAMES, Params

_CONSTANT_LINES = (
    (
        "const TOTAL = 32, CYCLE = 100, T = 4000, START = 1000;",
        "const TOTAL = {total}, CYCLE = {cycle!r}, T = {rounds}, START = {start};",
    ),
    (
        "const TRACKING = 416.67, EVENT = 97.22;",
        "const TRACKING = {tracking_rate!r}, EVENT = {event_rate!r};",
    ),
    (
        "const HOLD = { tracking: 4, event: 6 }, SLOW = 22;",
        "const HOLD = {{ tracking: {hold_tracking}, event: {hold_event} }}, SLOW = {slow};",
    ),
)
_MARK = "@@runs@@"
_JS_KEYS = ("trackingResponses", "trackingDropped", "eventResponses", "eventDropped", "idle", "busyRounds")


def js_source(source: str, p: Params, runs: list[tuple[int | None, str]]) -> str:
    """The lesson's script with ``p``'s constants and a line printing ``runs``' counters."""
    fields = {
        k: getattr(p, k)
        for k in (
            "total",
            "cycle",
            "rounds",
            "start",
            "tracking_rate",
            "event_rate",
            "hold_tracking",
            "hold_event",
            "slow",
        )
    }
    for old, new in _CONSTANT_LINES:
        assert source.count(old) == 1, f"the lesson's script changed: {old!r} not found once"
        source = source.replace(old, new.format(**fields))
    assert "20260801" in source
    source = source.replace("20260801", str(p.seed))
    asked = json.dumps([[split, mode] for split, mode in runs])
    return source + (
        f"\nconsole.log({_MARK!r} + JSON.stringify("
        f"{asked}.map(([split, mode]) => run({{ split, mode }}))));\n"
    )


def run_js(
    node: str, script: Path, p: Params, runs: list[tuple[int | None, str]], tmp: Path
) -> tuple[str, list[dict[str, int]]]:
    """(the report the lesson's code prints, the counters of ``runs``) under ``node``."""
    path = tmp / "bulkhead-run.mjs"
    path.write_text(js_source(script.read_text(), p, runs))
    out = subprocess.run([node, str(path)], capture_output=True, text=True, timeout=120, check=True).stdout
    report, _, tail = out.partition(_MARK)
    counters = [
        {snake: c[js] for snake, js in zip(COUNTER_NAMES, _JS_KEYS, strict=True)} for c in json.loads(tail)
    ]
    return report, counters
