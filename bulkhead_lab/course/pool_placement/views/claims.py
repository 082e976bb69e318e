"""Lesson 003's claims, each beside what this run shows without timing, and how many hold.

A *claim* is a number or fact the lesson prints or states (its two tables, its code-cost
line, its three tests, and the sentences that add a fact to them; a fact the summary
repeats counts once). Each is reproduced one of three ways:

- :data:`EXACT`: the same value, counted by the dependency or from the source (peaks,
  ``catalogBefore``, line counts, the tests' TAP lines);
- :data:`INVARIANT`: durations, which timing moves, as facts timing cannot change: at
  least the batch's ideal ``ceil(calls / slots) x latency``, or which row is slowest;
- :data:`NOT_HERE`: what this implementation does not reproduce, and why.

Every ``here`` string is free of timing, so a notebook cell printing :func:`claims_table`
is checked by nbval: if a fact stops holding, the checked output changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bulkhead_lab.course.pool_placement.views import lesson003
from bulkhead_lab.course.pool_placement.views.code import CodeFacts
from bulkhead_lab.course.pool_placement.views.pooltests import PoolTestRun
from bulkhead_lab.course.ui.beside import NOT_HERE, Claim, WideFrame
from bulkhead_lab.course.ui.beside import claims_count as _count
from bulkhead_lab.course.ui.beside import claims_table as _table
from bulkhead_lab.course.ui.beside import exact as _exact
from bulkhead_lab.course.ui.beside import fact as _fact
from bulkhead_lab.live.placement.batch import PlacementResult

TOLERANCE_MS = 1.0  # a sleep may end a clock tick early; no batch comes near its floor by less
AIOHTTP = "aiohttp gives a freed connection to a random waiting host; Node's Agent, to the same host first"

Rows = Sequence[tuple[str, PlacementResult]]


def at_least_ideal(r: PlacementResult) -> bool:
    """The batch took at least its ideal duration (a floor no timing can break)."""
    return r.duration_ms >= r.ideal_ms() - TOLERANCE_MS


def _floor(section: str, label: str, r: PlacementResult, lesson_ms: int) -> Claim:
    ideal = round(r.ideal_ms())
    return _fact(
        section,
        f"{label}: duration",
        f"{lesson_ms} ms",
        at_least_ideal(r),
        f"at least {ideal} ms, its ideal",
        f"shorter than its ideal {ideal} ms",
    )


def _before(r: PlacementResult) -> str:
    return f"{r.catalog_before} / {r.n}"


# --- the claims, section by section of the lesson ------------------------------------------


def setup_claims(batches: Rows) -> list[Claim]:
    """Mechanism: 40 calls a stream, 300 ms and 5 ms, the same 8 slots, durations of ceil(40/slots) waves."""
    s = "Mechanism"
    results = [r for _, r in batches]
    by_label = dict(batches)
    single, separate = by_label["single shared pool"], by_label["pool per dependency"]
    slow = min(min(r.latencies_ms["notification"]) for r in results)
    fast = min(min(r.latencies_ms["catalog"]) for r in results)
    calls = {r.n for r in results}
    return [
        _exact(s, "concurrent calls per stream", lesson003.CALLS, calls.pop() if len(calls) == 1 else calls),
        _fact(
            s,
            "notification takes 300 ms",
            f"{lesson003.NOTIFICATION_MS} ms",
            slow >= lesson003.NOTIFICATION_MS - TOLERANCE_MS,
            "every notification answer took at least 300 ms",
            "a notification answer came sooner than 300 ms",
        ),
        _fact(
            s,
            "catalog takes 5 ms",
            f"{lesson003.CATALOG_MS} ms",
            fast >= lesson003.CATALOG_MS - TOLERANCE_MS,
            "every catalog answer took at least 5 ms",
            "a catalog answer came sooner than 5 ms",
        ),
        _exact(
            s,
            "the same slots under both placements: one pool, or four plus four",
            f"{lesson003.TOTAL_SLOTS} = 4 + 4",
            f"{single.notif + single.cat} = {separate.notif} + {separate.cat}",
        ),
        _fact(
            s,
            "a batch takes ceil(40 / slots) x 300 ms",
            "expected value",
            all(at_least_ideal(r) for r in results),
            "every batch took at least its ideal",
            "a batch was shorter than its ideal",
        ),
    ]


def placement_claims(rows: Rows) -> list[Claim]:
    """Two placements, the same eight slots: the first table's first two rows and what the text adds."""
    s = "Two placements"
    r = dict(rows)
    single, separate = r["single shared pool"], r["pool per dependency"]
    lesson_single, lesson_separate = (
        lesson003.PLACEMENT["single shared pool"],
        lesson003.PLACEMENT["pool per dependency"],
    )
    return [
        _exact(s, "shared pool: catalog done before", "0 / 40", _before(single)),
        _exact(s, "shared pool: notification peak (holds all eight slots)", 8, single.notification),
        Claim(s, "shared pool: catalog peak (finds at most one)", "1", "varies from run to run", NOT_HERE,
              False, AIOHTTP),
        Claim(s, "shared pool: duration", f"{lesson_single.duration_ms} ms",
              f"near its ideal, {round(single.ideal_ms())} ms", NOT_HERE, False,
              "catalog's calls fill the gaps between notification's waves instead of queueing behind them "
              "on one socket: the same hand-off"),
        _exact(s, "pool per dependency: catalog done before", "40 / 40", _before(separate)),
        _exact(s, "pool per dependency: notification peak", 4, separate.notification),
        _exact(s, "pool per dependency: catalog peak (its own four slots)", 4, separate.catalog),
        _floor(s, "pool per dependency", separate, lesson_separate.duration_ms),
        _exact(s, "notification concurrency drops from eight to four", "8 -> 4",
               f"{single.notification} -> {separate.notification}"),
        _fact(
            s,
            "the bulkhead's cost: the batch takes longer (2000 -> 3000 ms)",
            "longer",
            separate.duration_ms > single.duration_ms,
            "longer",
            "not longer",
        ),
    ]  # fmt: skip


def skipped_claims(rows: Rows) -> list[Claim]:
    """The skipped path: the first table's third row and the excess it shows."""
    s = "The skipped path"
    label = "pool per dependency + 8 skipped"
    r = dict(rows)[label]
    lesson = lesson003.PLACEMENT[label]
    excess = r.notification - r.notif
    return [
        _exact(s, "8 skipped: catalog done before (the neighbour still fine)", "40 / 40", _before(r)),
        _exact(s, "8 skipped: notification peak, where the pool says 4", lesson.notification, r.notification),
        _exact(s, "8 skipped: catalog peak (the catalog pool not breached)", lesson.catalog, r.catalog),
        _floor(s, "8 skipped", r, lesson.duration_ms),
        _exact(s, "the excess is exactly the skipped call sites", f"{lesson.notification} - 4 = 8",
               f"{r.notification} - {r.notif} = {excess}"),
    ]  # fmt: skip


def sizing_claims(rows: Rows) -> list[Claim]:
    """Wrong sizing: the second table, both ends, and every pool a ceiling on its own stream."""
    s = "Wrong sizing"
    r = dict(rows)
    claims = []
    for label, lesson in lesson003.SIZING.items():
        claims.append(_exact(s, f"{label}: notification peak", lesson.notification, r[label].notification))
        claims.append(_exact(s, f"{label}: catalog peak", lesson.catalog, r[label].catalog))
        if label == "40 / 4":
            claims.append(_fact(
                s, f"{label}: duration", f"{lesson.duration_ms} ms",
                at_least_ideal(r[label]) and _fastest(r) == label,
                "one wave: at least 300 ms, the fastest of the four", "not the fastest, or under one wave",
            ))  # fmt: skip
        else:
            claims.append(_floor(s, label, r[label], lesson.duration_ms))
    no_pool = next(result for label, result in rows if label.startswith("no pool"))
    peak = r["40 / 4"].notification
    forty = (
        f"{peak}, as with no pool"
        if peak == no_pool.notification
        else f"{peak}, no pool {no_pool.notification}"
    )
    claims += [
        _exact(s, "one slot: the neighbouring stream comes out fine", "40 / 40", _before(r["1 / 4"])),
        _fact(s, "one slot: the protected stream becomes the slowest part", "slowest",
              _slowest(r) == "1 / 4", "1 / 4 is the slowest of the four", f"{_slowest(r)} is the slowest"),
        _exact(s, "forty slots bind nothing, as if there were no pool", "40, as with no pool", forty),
        _exact(s, "every pool is a ceiling on its own stream", "yes",
               "yes" if all(_within(x) for _, x in rows if not x.skip) else "no"),
    ]  # fmt: skip
    return claims


def _four(rows: dict[str, PlacementResult]) -> dict[str, PlacementResult]:
    return {label: rows[label] for label in lesson003.SIZING}


def _slowest(rows: dict[str, PlacementResult]) -> str:
    four = _four(rows)
    return max(four, key=lambda label: four[label].duration_ms)


def _fastest(rows: dict[str, PlacementResult]) -> str:
    four = _four(rows)
    return min(four, key=lambda label: four[label].duration_ms)


def _within(r: PlacementResult) -> bool:
    if r.placement == "single":
        return r.notification <= r.notif + r.cat
    return r.notification <= r.notif and r.catalog <= r.cat


def code_claims(facts: CodeFacts) -> list[Claim]:
    """Where the pool sits: measure.mjs's last line, counted from the package's source."""
    s = "Where the pool sits"
    lesson = lesson003.CODE_COST
    return [
        _exact(s, "pool definition, lines", lesson.block_lines, facts.cost.block_lines),
        _exact(s, "the pool is defined in one place", 1, facts.places),
        _exact(s, "outbound call sites", lesson.call_sites, facts.cost.call_sites),
        _exact(s, "none of the call sites changed (none names a placement)", "none",
               "none" if not facts.call_sites_name_a_placement else "some"),
        _exact(s, "expressions that move the pool to the call site", lesson.pool_for_expressions,
               facts.cost.pool_for_expressions),
    ]  # fmt: skip


def testability_claims(run: PoolTestRun) -> list[Claim]:
    """Testability: pool.test.mjs's TAP lines, one claim each."""
    here = [line for line in run.tap().splitlines() if not line.startswith("#   ")]  # not a failure's detail
    says = [f"pool.test.mjs, test {i}" for i in (1, 2, 3)] + ["tests run", "tests passed", "tests failed"]
    return [
        _exact("Testability", what, line, got)
        for what, line, got in zip(says, lesson003.TAP, here, strict=True)
    ]


def lesson_claims(rows: Rows, sizing: Rows, facts: CodeFacts, tests: PoolTestRun) -> list[Claim]:
    """Every claim of lesson 003, in the lesson's order."""
    batches = [*rows, *[(label, r) for label, r in sizing if label not in dict(rows)]]
    return [
        *setup_claims(batches),
        *placement_claims(rows),
        *skipped_claims(rows),
        *sizing_claims(sizing),
        *code_claims(facts),
        *testability_claims(tests),
    ]


# --- shown ----------------------------------------------------------------------------------


def claims_table(claims: Iterable[Claim], numbered: bool = False) -> WideFrame:
    """The claims as a table: what lesson 003 says, its value, what this run shows, and the verdict."""
    return _table(claims, "lesson 003", numbered)


def claims_count(claims: Iterable[Claim]) -> str:
    """How many of the claims checked output reproduces, exactly or as invariants, and which cannot be."""
    return _count(claims, "lesson 003", "durations as floors and orders")
