"""Notebook 03's numbers: the tables beside lesson 003's, the claims on lesson-like batches (nbval compares
the live ones) and their count in the closing note."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bulkhead_lab.course.pool_placement import claims, lesson003, views
from bulkhead_lab.live.placement import lesson
from bulkhead_lab.live.placement.batch import PlacementResult
from bulkhead_lab.live.placement.code import code_facts
from bulkhead_lab.live.placement.pooltests import TEST_NAMES, PoolTestRun

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "notebooks" / "03_pool_placement.ipynb"


def batch(placement: str, notif: int, cat: int, skip: int, before: int, peaks: tuple[int, int], ms: float):
    """A batch as a live run would return it, with every notification call >= 300 ms and catalog >= 5 ms."""
    r = PlacementResult(placement, notif, cat, skip, 40, before, peaks[0], peaks[1], ms)
    r.latencies_ms = {"notification": [300.4 + j for j in range(40)], "catalog": [5.2 + j for j in range(40)]}
    r.timelines = {"notification": [(0.0, 0), (0.01, peaks[0])], "catalog": [(0.0, 0), (0.01, peaks[1])]}
    return r


ROWS = [
    ("single shared pool", batch("single", 4, 4, 0, 0, (8, 6), 1586.0)),
    ("pool per dependency", batch("separate", 4, 4, 0, 40, (4, 4), 3010.0)),
    ("pool per dependency + 8 skipped", batch("separate", 4, 4, 8, 40, (12, 4), 2460.0)),
]
SIZING = [
    ("1 / 4", batch("separate", 1, 4, 0, 40, (1, 4), 12050.0)),
    ("4 / 4", ROWS[1][1]),
    ("40 / 4", batch("separate", 40, 4, 0, 40, (40, 4), 320.0)),
    ("4 / 1", batch("separate", 4, 1, 0, 40, (4, 1), 3020.0)),
    (lesson.NO_POOL[0], batch("separate", 4, 4, 40, 40, (40, 4), 330.0)),
]
PASSED = PoolTestRun([None, None, None])


def all_claims(rows=ROWS, sizing=SIZING, tests=PASSED) -> list[claims.Claim]:
    return claims.lesson_claims(rows, sizing, code_facts(), tests)


def test_each_measured_number_stands_beside_the_lessons_and_the_duration_is_the_measured_one() -> None:
    table = views.placement_table(ROWS)
    assert list(table.index) == [label for label, *_ in lesson.PLACEMENT_ROWS]
    for measure in ("catalog done before", "notification peak", "catalog peak", "duration ms"):
        assert list(table[measure].columns[:2]) == ["here", "lesson 003"] or measure == "duration ms"
    assert list(table[("catalog done before", "lesson 003")]) == ["0 / 40", "40 / 40", "40 / 40"]
    assert list(table[("catalog peak", "lesson 003")]) == ["1", "4", "4"]
    # The measured duration to the ms (what a sentence about the same batch would say), not rounded to 500.
    assert list(table[("duration ms", "here")]) == [1586, 3010, 2460]
    assert list(table[("duration ms", "ideal")]) == [1525, 3000, 2400]
    assert list(table[("duration ms", "lesson 003")]) == ["2000", "3000", "2500"]


def test_the_sizing_table_has_the_lessons_four_rows_then_no_pool_at_all() -> None:
    table = views.sizing_table(SIZING)
    assert list(table.index) == ["1 / 4", "4 / 4", "40 / 4", "4 / 1", lesson.NO_POOL[0]]
    assert list(table[("duration ms", "lesson 003")]) == ["12000", "3000", "500", "3000", "—"]
    assert list(table[("notification peak", "here")]) == [1, 4, 40, 4, 40]


def test_the_rules_give_the_lessons_peaks_and_catalog_counts() -> None:
    assert views.expected_notification_peak("single", 4, 4) == 8
    assert views.expected_notification_peak("separate", 4, 4, 8) == 12
    assert views.expected_notification_peak("separate", 40, 4) == 40
    assert views.expected_catalog_before("single", 4, 4) == 0
    assert views.expected_catalog_before("separate", 4, 4) == 40
    assert views.expected_catalog_before("single", 8, 8) == 0  # twice the shared slots: still none
    assert views.expected_catalog_before("single", 30, 30) == 40  # more slots than slow calls


def test_a_fact_that_stops_holding_changes_the_checked_output() -> None:
    slow_neighbour = [
        ROWS[0],
        ("pool per dependency", batch("separate", 4, 4, 0, 39, (4, 4), 3010.0)),
        ROWS[2],
    ]
    table = claims.claims_table(claims.placement_claims(slow_neighbour)).set_index("lesson 003 says")
    assert table.loc["pool per dependency: catalog done before", "here"] == "39 / 40"
    assert table.loc["pool per dependency: catalog done before", "reproduced"] == "NO"
    too_fast = [("1 / 4", batch("separate", 1, 4, 0, 40, (1, 4), 11000.0)), *SIZING[1:]]
    table = claims.claims_table(claims.sizing_claims(too_fast)).set_index("lesson 003 says")
    assert table.loc["1 / 4: duration", "here"] == "shorter than its ideal 12000 ms"
    failed = PoolTestRun([None, "/run?... answered notification 11, expected 12", None])
    assert "not ok 2 - a skipped call site exceeds the pool limit" in failed.tap()
    assert claims.claims_count(all_claims(tests=failed)).startswith(
        "lesson 003's claims reproduced in checked output: 42 of 47"
    )


def test_no_claim_shown_in_checked_output_carries_a_timing_number() -> None:
    # "here" strings hold counts, the ideal (computed, not measured) and verdicts, never a measured ms.
    measured = {"1586", "3010", "2460", "12050", "320", "3020", "330"}
    for claim in all_claims():
        assert not measured & set(re.findall(r"\d+", claim.here)), claim


def test_the_notebooks_closing_note_gives_the_count_its_checked_output_prints() -> None:
    cells = ["".join(c["source"]) for c in json.loads(NOTEBOOK.read_text())["cells"]]
    last = next(text for text in cells if text.startswith("## Key takeaways"))
    count = claims.claims_count(all_claims()).splitlines()[0]
    reproduced, total, exact, invariant = re.findall(r"\d+", count.split(":", 1)[1])[:4]
    assert f"Of lesson 003's {total} claims, {reproduced} are reproduced in checked output" in last
    assert f"({exact} exactly, {invariant} durations as" in " ".join(last.split())


def test_the_lessons_constants_are_what_lesson_003_prints(lesson_text) -> None:
    text = lesson_text("003")
    for label, row in lesson003.PLACEMENT.items():
        line = re.search(rf"^{re.escape(label)}\s+(\d+) / 40\s+(\d+)\s+(\d+)\s+(\d+)$", text, re.M)
        assert line is not None, label
        assert tuple(map(int, line.groups())) == (
            row.catalog_before,
            row.notification,
            row.catalog,
            row.duration_ms,
        )
    for label, row in lesson003.SIZING.items():
        line = re.search(rf"^{re.escape(label)}\s+(\d+)\s+(\d+)\s+(\d+)$", text, re.M)
        assert line is not None, label
        assert tuple(map(int, line.groups())) == (row.notification, row.catalog, row.duration_ms)
    cost = lesson003.CODE_COST
    assert (
        f"pool definition is {cost.block_lines} lines, in one place; outbound call sites {cost.call_sites}"
        in text
    )
    assert f"is {cost.pool_for_expressions} poolFor(port) expressions" in text
    for line in lesson003.TAP:
        assert re.search(rf"^{re.escape(line)}$", text, re.M), line


def test_the_pool_tests_table_says_what_each_test_asserts_and_how_it_did() -> None:
    table = views.pool_tests_table(
        PoolTestRun([None, "/run?... answered notification 11, expected 12", None])
    )
    assert list(table.index) == [f"{i}. {name}" for i, name in enumerate(TEST_NAMES, 1)]
    assert list(table["here"]) == [
        "passes",
        "fails: /run?... answered notification 11, expected 12",
        "passes",
    ]
    assert "12" in table.loc[f"2. {TEST_NAMES[1]}", "asserts"]
    assert all(asserts in repr(table) for asserts in views.TEST_ASSERTS)  # a sentence is never cut


def test_the_upstream_code_the_appendix_cites_does_what_it_says() -> None:
    """aiohttp's _release_waiter shuffles the waiting hosts; Node's request with agent: false gets a new
    Agent of default options, and removeSocket serves the same host first (read from node's own source)."""
    import inspect
    import shutil
    import subprocess

    import aiohttp.connector

    assert "random.shuffle(queues)" in inspect.getsource(aiohttp.connector.BaseConnector._release_waiter)
    if shutil.which("node") is None:
        pytest.skip("node is not installed: Node's source cannot be read")
    script = (
        "const n = process.binding('natives');"
        "const c = n._http_client, a = n._http_agent;"
        "const r = a.slice(a.indexOf('Agent.prototype.removeSocket'),"
        " a.indexOf('Agent.prototype.keepSocketAlive'));"
        "console.log(JSON.stringify(["
        "/agent === false\\)\\s*\\{\\s*agent = new defaultAgent\\.constructor\\(\\)/.test(c),"
        " r.indexOf('this.requests[name][0]') < r.indexOf('ObjectKeys(this.requests)'),"
        " /if \\(this\\.sockets\\[prop\\] && this\\.sockets\\[prop\\]\\.length\\) break;/.test(r)]))"
    )
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        pytest.skip(f"this node cannot show its own source: {out.stderr.strip().splitlines()[-1:]}")
    assert json.loads(out.stdout) == [True, True, True]
