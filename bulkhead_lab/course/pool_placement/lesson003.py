"""Lesson 003's own numbers, as named constants, each saying where in the lesson it is printed.

The lesson ("Bulkhead Pattern", ``../shared/seeds/003_*.txt``) runs ``services.mjs`` and ``measure.mjs``,
which prints two tables and a code-cost line, then ``test/pool.test.mjs``, whose TAP lines it prints.
Durations are ``Math.round(ms / 500) * 500`` ("the expected value is ceil(40/slots) x 300 ms"). The
notebook's tables and claims (:mod:`.claims`) set each beside a run;
``tests/course/test_pool_placement_views.py`` finds each in the lesson's text when the seeds are present.
"""

from __future__ import annotations

from dataclasses import dataclass

from bulkhead_lab.live.placement.code import CodeCost
from bulkhead_lab.live.placement.pooltests import TEST_NAMES

#: "Forty concurrent calls are made to each" (Mechanism; services.mjs ``const N = 40``).
CALLS = 40
#: "notification takes 300 ms, catalog takes 5 ms" (Mechanism; services.mjs's two ``service(...)`` lines).
NOTIFICATION_MS = 300
CATALOG_MS = 5
#: "eight in the single pool, four plus four in the pool-per-dependency case" (Mechanism, RS8).
TOTAL_SLOTS = 8


@dataclass(frozen=True)
class LessonRow:
    """One row of a measure.mjs table; ``catalog_before`` is None where the table has no such column."""

    catalog_before: int | None
    notification: int
    catalog: int
    duration_ms: int


#: measure.mjs's first table (printed under "Mechanism"): placement -> its row.
PLACEMENT: dict[str, LessonRow] = {
    "single shared pool": LessonRow(0, 8, 1, 2000),
    "pool per dependency": LessonRow(40, 4, 4, 3000),
    "pool per dependency + 8 skipped": LessonRow(40, 12, 4, 2500),
}

#: measure.mjs's second table, "wrong sizing" (under pool per dependency): "notif / cat" -> its row.
SIZING: dict[str, LessonRow] = {
    "1 / 4": LessonRow(None, 1, 4, 12000),
    "4 / 4": LessonRow(None, 4, 4, 3000),
    "40 / 4": LessonRow(None, 40, 4, 500),
    "4 / 1": LessonRow(None, 4, 1, 3000),
}


#: "pool definition is 5 lines, in one place; outbound call sites 2 and none of them changed — what
#: moves the pool to the call site is 2 poolFor(port) expressions." (measure.mjs's last line)
CODE_COST = CodeCost(block_lines=5, call_sites=2, pool_for_expressions=2)

#: The lines the lesson prints from ``node --test ... | grep -E "^(ok|not ok|# (tests|pass|fail) )"``.
TAP = (
    *(f"ok {i} - {name}" for i, name in enumerate(TEST_NAMES, start=1)),
    "# tests 3",
    "# pass 3",
    "# fail 0",
)
