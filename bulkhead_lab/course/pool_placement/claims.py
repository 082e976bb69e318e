"""Lesson 003's claims beside what this run shows without timing (:mod:`bulkhead_lab.course.ui.claim_table`).

A claim is a number or fact the lesson prints or states: its two tables, its code-cost line, its three
tests, and the sentences that add a fact to them (one the summary repeats counts once). Durations are
shown as floors (at least the batch's ideal) or orders (the slowest row). The two that Node's hand-off
of a freed socket makes, and aiohttp's cannot, are explained in the notebook's appendix, after the claims.
"""

from __future__ import annotations

from functools import partial

from bulkhead_lab.course.pool_placement import lesson003 as L
from bulkhead_lab.course.pool_placement import views
from bulkhead_lab.course.ui.claim_table import Claim, count, exact, fact, not_here, starved, table
from bulkhead_lab.live.placement.batch import PlacementResult
from bulkhead_lab.live.placement.code import CodeFacts
from bulkhead_lab.live.placement.lesson import NO_POOL, Rows
from bulkhead_lab.live.placement.pooltests import PoolTestRun

LESSON = "lesson 003"
TOLERANCE_MS = 1.0  # a sleep may end a clock tick early; no batch comes near its floor by less
HANDOFF = "aiohttp gives a freed connection to a random waiting host, Node's Agent to the same host first"


def at_least_ideal(r: PlacementResult) -> bool:
    """The batch took at least its ideal duration (a floor no timing can break)."""
    return r.duration_ms >= r.ideal_ms() - TOLERANCE_MS


def _floor(where: str, name: str, r: PlacementResult, lesson_ms: int) -> Claim:
    ideal = round(r.ideal_ms())
    return fact(where, f"{name}: duration", f"{lesson_ms} ms", at_least_ideal(r),
                f"at least {ideal} ms, its ideal", f"shorter than its ideal {ideal} ms")  # fmt: skip


def _row(where: str, name: str, r: PlacementResult, lesson: L.LessonRow) -> list[Claim]:
    """One row of the lesson's tables: catalog done before (where it has one), both peaks, the duration."""
    before = [] if lesson.catalog_before is None else [
        exact(where, f"{name}: catalog done before", f"{lesson.catalog_before} / {L.CALLS}",
              f"{r.catalog_before} / {r.n}")
    ]  # fmt: skip
    return [
        *before,
        exact(where, f"{name}: notification peak", lesson.notification, r.notification),
        exact(where, f"{name}: catalog peak", lesson.catalog, r.catalog),
        _floor(where, name, r, lesson.duration_ms),
    ]


def setup_claims(batches: Rows) -> list[Claim]:
    """Mechanism: 40 calls a stream, 300 ms and 5 ms, the same 8 slots, durations of ceil(40/slots) waves."""
    s, results, by_label = "Mechanism", [r for _, r in batches], dict(batches)
    single, separate = by_label["single shared pool"], by_label["pool per dependency"]
    calls = {r.n for r in results}
    takes = [fact(s, f"{stream} takes {ms} ms", f"{ms} ms",
                  min(min(r.latencies_ms[stream]) for r in results) >= ms - TOLERANCE_MS,
                  f"every {stream} answer took at least {ms} ms", f"a {stream} answer came sooner")
             for stream, ms in (("notification", L.NOTIFICATION_MS), ("catalog", L.CATALOG_MS))]  # fmt: skip
    return [
        exact(s, "concurrent calls per stream", L.CALLS, calls.pop() if len(calls) == 1 else calls),
        *takes,
        exact(s, "the same slots under both placements: one pool, or four plus four",
              f"{L.TOTAL_SLOTS} = 4 + 4", f"{single.notif + single.cat} = {separate.notif} + {separate.cat}"),
        fact(s, "a batch takes ceil(40 / slots) x 300 ms", "expected value",
             all(map(at_least_ideal, results)), "every batch took at least its ideal",
             "a batch was shorter than its ideal"),
    ]  # fmt: skip


def placement_claims(rows: Rows) -> list[Claim]:
    """Two placements, the same eight slots: the first table's first two rows and what the text adds."""
    s, r = "Two placements", dict(rows)
    single, separate = r["single shared pool"], r["pool per dependency"]
    lesson = L.PLACEMENT["single shared pool"]
    return [
        exact(s, "shared pool: catalog done before", "0 / 40", f"{single.catalog_before} / {single.n}"),
        exact(s, "shared pool: notification peak (holds all eight slots)", lesson.notification,
              single.notification),
        not_here(s, "shared pool: catalog peak (finds at most one)", lesson.catalog, "varies from run to run",
                 f"{HANDOFF} (the note below)"),
        not_here(s, "shared pool: duration", f"{lesson.duration_ms} ms",
                 f"near its ideal, {round(single.ideal_ms())} ms",
                 "the same hand-off: catalog's calls fill the gaps between notification's waves"),
        *_row(s, "pool per dependency", separate, L.PLACEMENT["pool per dependency"]),
        exact(s, "notification concurrency drops from eight to four", "8 -> 4",
              f"{single.notification} -> {separate.notification}"),
        fact(s, "the bulkhead's cost: the batch takes longer (2000 -> 3000 ms)", "longer",
             separate.duration_ms > single.duration_ms, "longer", "not longer"),
    ]  # fmt: skip


def skipped_claims(rows: Rows) -> list[Claim]:
    """The skipped path: the first table's third row and the excess it shows."""
    label = "pool per dependency + 8 skipped"
    r, lesson = dict(rows)[label], L.PLACEMENT[label]
    return [
        *_row("The skipped path", "8 skipped", r, lesson),
        exact("The skipped path", "the excess is exactly the skipped call sites",
              f"{lesson.notification} - 4 = 8", f"{r.notification} - {r.notif} = {r.notification - r.notif}"),
    ]  # fmt: skip


def sizing_claims(rows: Rows) -> list[Claim]:
    """Wrong sizing: the second table, both ends, and every pool a ceiling on its own stream."""
    s, r = "Wrong sizing", dict(rows)
    fastest, *_, slowest = sorted(L.SIZING, key=lambda label: r[label].duration_ms)
    claims: list[Claim] = []
    for label, lesson in L.SIZING.items():
        *peaks, duration = _row(s, label, r[label], lesson)
        if label == "40 / 4":  # one wave: the lesson's 500 ms is its fastest row
            duration = fact(s, f"{label}: duration", f"{lesson.duration_ms} ms",
                            at_least_ideal(r[label]) and fastest == label,
                            "one wave: at least 300 ms, the fastest of the four",
                            "not the fastest, or under one wave")  # fmt: skip
        claims += [*peaks, duration]
    peak, none = r["40 / 4"].notification, r[NO_POOL.label].notification
    forty = f"{peak}, as with no pool" if peak == none else f"{peak}, no pool {none}"
    one = r["1 / 4"]
    return [
        *claims,
        exact(s, "one slot: the neighbouring stream comes out fine", "40 / 40",
              f"{one.catalog_before} / {one.n}"),
        fact(s, "one slot: the protected stream becomes the slowest part", "slowest", slowest == "1 / 4",
             "1 / 4 is the slowest of the four", f"{slowest} is the slowest"),
        exact(s, "forty slots bind nothing, as if there were no pool", "40, as with no pool", forty),
        exact(s, "every pool is a ceiling on its own stream", "yes",
              "yes" if all(_within(x) for _, x in rows if not x.skip) else "no"),
    ]  # fmt: skip


def _within(r: PlacementResult) -> bool:
    if r.placement == "single":
        return r.notification <= r.notif + r.cat
    return r.notification <= r.notif and r.catalog <= r.cat


def code_claims(facts: CodeFacts) -> list[Claim]:
    """Where the pool sits: measure.mjs's last line, counted from the package's source (the appendix)."""
    return [
        exact("Where the pool sits", what, lesson, here) for what, here, lesson in views.code_cost_rows(facts)
    ]


def testability_claims(run: PoolTestRun) -> list[Claim]:
    """Testability: pool.test.mjs's TAP lines, one claim each."""
    here = [line for line in run.tap().splitlines() if not line.startswith("#   ")]  # not a failure's detail
    says = [f"pool.test.mjs, test {i}" for i in (1, 2, 3)] + ["tests run", "tests passed", "tests failed"]
    return [exact("Testability", what, line, got) for what, line, got in zip(says, L.TAP, here, strict=True)]


def lesson_claims(rows: Rows, sizing: Rows, facts: CodeFacts, tests: PoolTestRun) -> list[Claim]:
    """Every claim of lesson 003, in the lesson's order."""
    batches = [*rows, *[(label, r) for label, r in sizing if label not in dict(rows)]]
    claims = [
        *setup_claims(batches),
        *placement_claims(rows),
        *skipped_claims(rows),
        *sizing_claims(sizing),
        *code_claims(facts),
        *testability_claims(tests),
    ]
    return starved(claims, rows, sizing, tests)  # a NO on a starved machine says so


claims_table = partial(table, lesson=LESSON, appendix=True)  # the appendix: numbered, where, reproduced
claims_count = partial(count, lesson=LESSON, invariants="durations as floors and orders")
