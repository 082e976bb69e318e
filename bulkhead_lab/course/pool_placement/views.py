"""Notebook 03's tables: lesson 003's batches and code cost, each measured number beside the lesson's.

The batches run live (:mod:`bulkhead_lab.live.placement.lesson`); the tables hold timing, so the notebook
ignores their output, and checks their timing-free facts as lesson 003's claims (:mod:`.claims`).
"""

from __future__ import annotations

import pandas as pd

from bulkhead_lab.course.pool_placement import lesson003
from bulkhead_lab.course.ui.claim_table import WideFrame
from bulkhead_lab.live.placement.batch import (
    CALLS,
    CATALOG_LATENCY,
    NOTIFICATION_LATENCY,
    PlacementResult,
    ideal_ms,
    run_placement,
)
from bulkhead_lab.live.placement.code import CodeFacts, code_facts
from bulkhead_lab.live.placement.lesson import (
    PLACEMENT_ROWS,
    SEPARATE,
    SHARED,
    Row,
    Rows,
    expected_catalog_before,
    expected_notification_peak,
    ran_at,
    sizing_row_list,
    waves,
)
from bulkhead_lab.live.placement.pools import Placement
from bulkhead_lab.live.placement.pooltests import TEST_NAMES, PoolTestRun
from bulkhead_lab.live.sync import run_sync

__all__ = ["expected_catalog_before", "expected_notification_peak"]  # the exercises' rules, read here too

WORDS = {"single": SHARED, "separate": SEPARATE}


def run(*args: object, **kwargs: object) -> PlacementResult:
    """One live batch (``run_placement``) from a cell; interrupted, its services close (``run_sync``)."""
    return run_sync(run_placement(*args, **kwargs))  # type: ignore[arg-type]


# --- the lesson's two tables, beside the lesson's numbers ----------------------------------

HERE, LESSON, IDEAL = "here", "lesson 003", "ideal"
OF_CALLS = f" / {lesson003.CALLS}"  # after a lesson's catalog done before


def placement_table(rows: Rows) -> pd.DataFrame:
    """The lesson's first table beside lesson 003's: ``duration ms / here`` is measured (the lesson rounds
    its own to 500 ms), ``ideal`` the shortest the batch can take (:func:`ideal_table`)."""
    return _table(rows, lesson003.PLACEMENT, "placement", before=True)


def sizing_table(rows: Rows) -> pd.DataFrame:
    """The lesson's second table (slots per pool against each dependency's peak) beside lesson 003's."""
    return _table(rows, lesson003.SIZING, "notification slots / catalog slots")


def _table(
    rows: Rows, lessons: dict[str, lesson003.LessonRow], name: str, before: bool = False
) -> pd.DataFrame:
    """Each row's catalog done before (if ``before``), peaks and duration beside its lesson row."""
    records = []
    for label, r in rows:
        lesson = lessons.get(label)
        records.append(
            {
                ("catalog done before", HERE): f"{r.catalog_before} / {r.n}",
                ("catalog done before", LESSON): _lesson(lesson, "catalog_before", OF_CALLS),
                ("notification peak", HERE): r.notification,
                ("notification peak", LESSON): _lesson(lesson, "notification"),
                ("catalog peak", HERE): r.catalog,
                ("catalog peak", LESSON): _lesson(lesson, "catalog"),
                ("duration ms", HERE): round(r.duration_ms),
                ("duration ms", IDEAL): round(r.ideal_ms()),
                ("duration ms", LESSON): _lesson(lesson, "duration_ms"),
            }
        )
    frame = pd.DataFrame(records, index=pd.Index([label for label, _ in rows], name=name))
    frame.columns = pd.MultiIndex.from_tuples(frame.columns)
    return frame if before else frame.drop(columns="catalog done before", level=0)


def _lesson(row: lesson003.LessonRow | None, name: str, suffix: str = "") -> str:
    value = None if row is None else getattr(row, name)
    return "—" if value is None else f"{value}{suffix}"


# --- the ideal duration, worked --------------------------------------------------------------


def ideal_terms(placement: Placement, notif: int, cat: int, skip: int = 0) -> dict[str, object]:
    """The terms of :func:`~bulkhead_lab.live.placement.batch.ideal_ms` for one batch, worked in numbers.

    Pooled calls go in waves of as many calls as the pool has slots, one latency each. Under one shared
    pool catalog's waves use the same slots, so their time adds to notification's; under a pool each the
    streams run alongside and the slower decides. Skipped calls need no slot: one wave, alongside.
    """
    slow, fast, calls = round(NOTIFICATION_LATENCY * 1000), round(CATALOG_LATENCY * 1000), CALLS
    pooled = calls - skip
    single = placement == "single"
    n_slots, c_slots = (notif + cat, notif + cat) if single else (notif, cat)
    n, c = waves(pooled, n_slots), waves(calls, c_slots)
    return {
        "notification": f"ceil({pooled}/{n_slots}) = {_waves(n)} x {slow} ms = {n * slow} ms",
        "catalog": f"ceil({calls}/{c_slots}) = {_waves(c)} x {fast} ms = {c * fast} ms, "
        + ("in the same slots: adds" if single else "in its own pool, alongside"),
        "skipped": f"{skip} calls, no slot: one wave, {slow} ms, alongside" if skip else "—",
        "ideal ms": round(ideal_ms(placement, notif, cat, skip)),
    }


def _waves(n: int) -> str:
    return f"{n} wave" if n == 1 else f"{n} waves"


def ideal_worked(placement: Placement, notif: int, cat: int) -> str:
    """:func:`ideal_terms` as one line: ``notification ...; catalog ...: ideal N ms``."""
    terms = ideal_terms(placement, notif, cat)
    ideal = terms.pop("ideal ms")
    return "; ".join(f"{what}: {how}" for what, how in terms.items() if how != "—") + f"; ideal {ideal} ms"


def ideal_table() -> WideFrame:
    """The ideal duration of each of the lesson's batches, worked: ``ceil(calls / slots)`` waves each."""
    sizing = [Row(f"{SEPARATE} {label}", p, n, c, k) for label, p, n, c, k in sizing_row_list()[:-1]]
    records: dict[tuple, dict[str, object]] = {}  # a batch's settings -> its first row's terms
    for row in [*PLACEMENT_ROWS, *sizing]:
        records.setdefault(row[1:], {"batch": row.label, **ideal_terms(*row[1:])})
    return WideFrame(pd.DataFrame(records.values()).set_index("batch"))


# --- one batch ------------------------------------------------------------------------------


def slots_label(result: PlacementResult) -> str:
    """``8 shared`` under one shared pool, ``4 / 4`` (notification / catalog) under a pool each."""
    if result.placement == "single":
        return f"{result.notif + result.cat} shared"
    return f"{result.notif} / {result.cat}"


def describe(result: PlacementResult) -> str:
    """A batch's settings in words, e.g. ``pool per dependency 4 / 4, 8 skipped, notification 300 ms``."""
    where = WORDS[result.placement]
    slots = f"of {result.notif + result.cat}" if result.placement == "single" else slots_label(result)
    skipped = f", {result.skip} skipped" if result.skip else ""
    return (
        f"{where} {slots}{skipped}, notification {result.notification_latency * 1000:.0f} ms, "
        f"catalog {result.catalog_latency * 1000:.0f} ms"
    )


def lesson_row(result: PlacementResult) -> lesson003.LessonRow | None:
    """The lesson's row for a batch at one of its settings (and its latencies), or None."""
    for row in [*PLACEMENT_ROWS, *sizing_row_list()]:
        lesson = lesson003.PLACEMENT.get(row.label) or lesson003.SIZING.get(row.label)
        if lesson is not None and ran_at(result, row):
            return lesson
    return None


def batch_table(result: PlacementResult) -> pd.DataFrame:
    """One batch as a row of the lesson's columns, plus the ideal and the catalog's median latency;
    a second row with lesson 003's numbers when the batch is at one of the lesson's settings."""
    catalog_ms = result.latencies_ms.get("catalog") or [0.0]
    rows = {
        "this run": {
            "placement": WORDS[result.placement],
            "slots": slots_label(result),
            "skipped": result.skip,
            "catalog done before": f"{result.catalog_before} / {result.n}",
            "notification peak": result.notification,
            "catalog peak": result.catalog,
            "duration ms": round(result.duration_ms),
            "ideal ms": round(result.ideal_ms()),
            "catalog median ms": round(float(pd.Series(catalog_ms).median()), 1),
        }
    }
    lesson = lesson_row(result)
    if lesson is not None:
        rows[LESSON] = {
            **rows["this run"],
            "catalog done before": _lesson(lesson, "catalog_before", OF_CALLS),
            "notification peak": lesson.notification,
            "catalog peak": lesson.catalog,
            "duration ms": lesson.duration_ms,
            "ideal ms": "",
            "catalog median ms": "—",
        }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("run")


def batch_facts(result: PlacementResult) -> str:
    """A batch's timing-free facts: peaks against pool limits and catalogBefore. Under one shared pool the
    catalog peak depends on which waiting host aiohttp picks (at random), so it is left out there."""
    single = result.placement == "single"
    limit = result.notif + result.cat if single else result.notif
    skipped = f" + {result.skip} skipped" if result.skip else ""
    catalog = "" if single else f", catalog peak {result.catalog}"
    return (
        f"{describe(result)}: notification peak {result.notification} (pool {limit}{skipped})"
        f"{catalog}, catalog done before {result.catalog_before} / {result.n}"
    )


def code_cost_rows(facts: CodeFacts) -> list[tuple[str, int, int]]:
    """What the source counts beside measure.mjs's last line, as (what, here, lesson 003)."""
    lesson = lesson003.CODE_COST
    return [
        ("pool definition, lines", facts.cost.block_lines, lesson.block_lines),
        ("places a pool is defined", facts.places, 1),
        ("outbound call sites", facts.cost.call_sites, lesson.call_sites),
        ("call sites that name a placement", int(facts.call_sites_name_a_placement), 0),
        (
            "pool_for(port) expressions (poolFor in the lesson)",
            facts.cost.pool_for_expressions,
            lesson.pool_for_expressions,
        ),
    ]


def code_cost_table() -> pd.DataFrame:
    """The code cost beside lesson 003's: lines, places, call sites and pool-for expressions."""
    frame = pd.DataFrame(code_cost_rows(code_facts()), columns=["counted in the source", HERE, LESSON])
    return frame.set_index("counted in the source")


# --- the lesson's three pool tests -----------------------------------------------------------

#: What each of pool.test.mjs's tests asserts, all of it about what a dependency counted.
TEST_ASSERTS = (
    f"catalog done before: 0 / {CALLS} under one shared pool of 8, {CALLS} / {CALLS} with a pool each",
    "notification peak: 4 with a pool of 4; 12 with that pool and 8 call sites skipped",
    "catalog peak: 4, whether notification's pool is 1, 4 or 40",
)


def pool_tests_table(run: PoolTestRun) -> WideFrame:
    """pool.test.mjs's three tests: what each asserts about the dependencies' counts, and how it did here."""
    rows = [
        {
            "test": f"{i}. {name}",
            "asserts": asserts,
            "here": "passes" if failure is None else f"fails: {failure}",
        }
        for i, (name, asserts, failure) in enumerate(
            zip(TEST_NAMES, TEST_ASSERTS, run.failures, strict=True), 1
        )
    ]
    return WideFrame(pd.DataFrame(rows).set_index("test"))
