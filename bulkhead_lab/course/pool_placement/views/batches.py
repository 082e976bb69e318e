"""What notebook 03 shows, as numbers: lesson 003's batches, its two tables beside the lesson's, their facts.

Every number comes from a live batch (:func:`~bulkhead_lab.live.placement.batch.run_placement`)
run in this kernel by :func:`run`. The tables put each measured number beside the
lesson's (:mod:`.lesson003`) and the ideal duration (:func:`ideal_worked` says how it is
computed); they hold timing, so the notebook ignores their output; their timing-free facts
are lesson 003's claims (:mod:`.claims`), checked in the notebook's appendix. The code's
side (the pool definition, the call sites, the code cost) is in :mod:`.code`, the figures
in :mod:`.figures`, the sliders and progress bars in :mod:`.panels`.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from bulkhead_lab.course.pool_placement.views import lesson003
from bulkhead_lab.course.pool_placement.views.claims import (  # noqa: F401  (the notebook reads the claims through views)
    Claim,
    WideFrame,
    claims_count,
    claims_table,
    code_claims,
    lesson_claims,
    placement_claims,
    sizing_claims,
    skipped_claims,
    testability_claims,
)
from bulkhead_lab.course.pool_placement.views.code import (  # noqa: F401
    call_sites_source,
    code_cost,
    code_cost_table,
    pool_definition_source,
)
from bulkhead_lab.course.ui.runner import run_sync
from bulkhead_lab.live.net.server import Progress
from bulkhead_lab.live.net.together import Experiment, in_turn, settling
from bulkhead_lab.live.placement.batch import (
    CALLS,
    CATALOG_LATENCY,
    NOTIFICATION_LATENCY,
    PlacementResult,
    ideal_ms,
    run_placement,
)
from bulkhead_lab.live.placement.pools import Placement
from bulkhead_lab.live.placement.pooltests import (
    PoolTestRun,
    judge,
    pool_test_sends,
    run_pool_tests,
)

Row = tuple[str, Placement, int, int, int]  # (label, placement, notif, cat, skip)
Rows = list[tuple[str, PlacementResult]]
ForRun = Callable[[int], Progress]  # the i-th batch of a table -> its on_progress

SHARED, SEPARATE = "single shared pool", "pool per dependency"  # the lesson's words for the placements
WORDS = {"single": SHARED, "separate": SEPARATE}

#: The first table's rows, as measure.mjs runs them: (label, placement, notif, cat, skip).
PLACEMENT_ROWS: tuple[Row, ...] = (
    (SHARED, "single", 4, 4, 0),
    (SEPARATE, "separate", 4, 4, 0),
    (f"{SEPARATE} + 8 skipped", "separate", 4, 4, 8),
)
#: The second table's slot counts under pool per dependency: (notification slots, catalog slots).
SIZING_ROWS: tuple[tuple[int, int], ...] = ((1, 4), (4, 4), (40, 4), (4, 1))
#: One row the lesson does not run: every notification call site skips the pool. Forty slots
#: "bind nothing"; this is what nothing looks like.
NO_POOL: Row = ("no pool: all 40 call sites skip it", "separate", 4, 4, CALLS)
#: The batches whose catalogBefore the notebook checks at 40 / 40 (forty 5-ms calls done before the
#: first 300-ms answer: a race against the clock), as (placement, notif, cat, skip): each runs alone
#: until that first answer (:func:`~bulkhead_lab.live.net.together.in_turn`), the others together.
TIMED = frozenset({("separate", 4, 4, 0), ("separate", 4, 4, 8), ("separate", 1, 4, 0)})


def run(*args: object, **kwargs: object) -> PlacementResult:
    """:func:`~bulkhead_lab.live.placement.batch.run_placement` from plain (or notebook) code.

    An interrupted cell cancels the live batch and waits until its services are closed
    (``run_sync`` does that), so nothing is left listening.
    """
    return run_sync(run_placement(*args, **kwargs))  # type: ignore[arg-type]


def pool_tests(on_progress: Progress | None = None) -> PoolTestRun:
    """Lesson 003's three pool tests against a live loan service (:mod:`.pooltests`)."""
    return run_sync(run_pool_tests(on_progress))


# --- running the lesson's rows -------------------------------------------------------------


def run_rows(todo: Sequence[Row], for_run: ForRun | None = None) -> Rows:
    """One live batch per row at the lesson's numbers, side by side; ``for_run(i)`` reports
    batch ``i``'s progress.

    Each batch starts its own two dependencies on free ports and reads only their counts, so
    running them side by side changes none of the peaks; the :data:`TIMED` ones run alone first,
    each until its first notification answer, so ``catalogBefore`` has the loop to itself. The
    table takes about as long as its longest batch. Interrupted, every batch is cancelled and its
    services closed (:func:`~bulkhead_lab.live.net.together.in_turn`).
    """
    results = run_sync(in_turn(_experiments(todo, for_run)))
    return [(row[0], result) for row, result in zip(todo, results, strict=True)]


def placement_rows(for_run: ForRun | None = None) -> Rows:
    """Run the first table's three batches at the lesson's numbers (40 calls, 300 ms / 5 ms)."""
    return run_rows(PLACEMENT_ROWS, for_run)


def sizing_row_list() -> list[Row]:
    """The second table's rows (pool per dependency at the lesson's slot counts), then :data:`NO_POOL`."""
    return [(f"{notif} / {cat}", "separate", notif, cat, 0) for notif, cat in SIZING_ROWS] + [NO_POOL]


def sizing_todo(reuse: PlacementResult | None = None) -> list[Row]:
    """The second table's rows that still need a batch (``reuse``: a 4 / 4 batch already run)."""
    return [row for row in sizing_row_list() if not _reusable(reuse, row)]


def sizing_rows(reuse: PlacementResult | None = None, for_run: ForRun | None = None) -> Rows:
    """Run the second table's batches; ``reuse`` a 4 / 4 pool-per-dependency batch already run."""
    fresh = dict(run_rows(sizing_todo(reuse), for_run))
    return [
        (row[0], reuse if reuse is not None and _reusable(reuse, row) else fresh[row[0]])
        for row in sizing_row_list()
    ]


@dataclass
class LessonRun:
    """Every live batch of sections 3 to 6, run at once: the first table's rows, the second
    table's, and lesson 003's three pool tests."""

    rows: Rows
    sizing: Rows
    tests: PoolTestRun


def lesson_todo() -> list[Row]:
    """The batches both tables need, each once: the first table's, then the second's but its 4 / 4
    row, which is the first table's pool-per-dependency batch."""
    shared = PLACEMENT_ROWS[1][1:]
    return [*PLACEMENT_ROWS, *(row for row in sizing_row_list() if row[1:] != shared)]


async def run_lesson_async(for_run: ForRun | None = None) -> LessonRun:
    """Run :func:`lesson_todo`'s batches and the seven ``/run`` batches of the pool tests side by side.

    ``for_run(i)`` reports batch ``i``'s progress (``i = len(lesson_todo())``: the pool tests', over
    their seven batches). Every batch starts services of its own, so each measures what it
    measures alone; those whose ``catalogBefore`` is checked run alone first, each until its first
    notification answer, then the others side by side (:func:`~bulkhead_lab.live.net.together.in_turn`),
    and all take about as long as the longest, a one-slot batch (twelve seconds). Cancelled, every
    batch stops and closes its services.
    """
    todo = lesson_todo()
    batches = _experiments(todo, for_run)
    sends = pool_test_sends(None if for_run is None else for_run(len(todo)))
    experiments: list[Experiment[Any]] = [*batches, *sends]
    results = await in_turn(experiments)
    done = [(row[0], result) for row, result in zip(todo, results[: len(todo)], strict=True)]
    tests = await judge(results[len(todo) :])
    rows, fresh = done[: len(PLACEMENT_ROWS)], dict(done[len(PLACEMENT_ROWS) :])
    reuse = rows[1][1]
    sizing = [(row[0], reuse if _reusable(reuse, row) else fresh[row[0]]) for row in sizing_row_list()]
    return LessonRun(rows, sizing, tests)


def _experiments(todo: Sequence[Row], for_run: ForRun | None) -> list[Experiment[PlacementResult]]:
    """Each row's batch as an :class:`~bulkhead_lab.live.net.together.Experiment` planned at its
    ideal; a :data:`TIMED` one alone until more than its forty catalog answers could be in."""
    experiments = []
    for i, (_, p, n, c, k) in enumerate(todo):
        progress = None if for_run is None else for_run(i)
        settled = asyncio.Event() if (p, n, c, k) in TIMED else None
        if settled is not None:
            progress = settling(settled, CALLS, progress)
        batch = run_placement(p, n, c, k, on_progress=progress)
        experiments.append(Experiment(batch, ideal_ms(p, n, c, k) / 1000, settled is not None, settled))
    return experiments


def run_lesson(for_run: ForRun | None = None) -> LessonRun:
    """:func:`run_lesson_async` from plain (or notebook) code; interrupted, every batch's services close."""
    return run_sync(run_lesson_async(for_run))


def _reusable(result: PlacementResult | None, row: Row) -> bool:
    if result is None:
        return False
    _, placement, notif, cat, skip = row
    same = (result.placement, result.notif, result.cat, result.skip, result.n)
    lesson = (result.notification_latency, result.catalog_latency)
    return same == (placement, notif, cat, skip, CALLS) and lesson == (NOTIFICATION_LATENCY, CATALOG_LATENCY)


# --- the lesson's two tables, beside the lesson's numbers ----------------------------------

HERE, LESSON, IDEAL = "here", "lesson 003", "ideal"


def _ms(value: float) -> int:
    return int(round(value))


def placement_table(rows: Rows) -> pd.DataFrame:
    """The lesson's first table: each measured number beside lesson 003's, durations in whole ms.

    ``duration ms / here`` is this run's measured duration (the lesson rounds its own to
    500 ms); ``ideal`` is the shortest the batch can take (:func:`ideal_worked`).
    """
    records = []
    for label, r in rows:
        lesson = lesson003.PLACEMENT.get(label)
        records.append(
            {
                ("catalog done before", HERE): f"{r.catalog_before} / {r.n}",
                ("catalog done before", LESSON): _lesson(lesson, "catalog_before", f" / {lesson003.CALLS}"),
                **_peaks_and_duration(r, lesson),
            }
        )
    return _frame(records, [label for label, _ in rows], "placement")


def sizing_table(rows: Rows) -> pd.DataFrame:
    """The lesson's second table (slots per pool against each dependency's peak) beside lesson 003's."""
    records = []
    for label, r in rows:
        lesson = lesson003.SIZING.get(label)
        records.append(
            {
                **_peaks_and_duration(r, lesson),
            }
        )
    return _frame(records, [label for label, _ in rows], "notification slots / catalog slots")


def _peaks_and_duration(
    r: PlacementResult, lesson: lesson003.LessonRow | None
) -> dict[tuple[str, str], object]:
    """Both tables' common columns: each dependency's peak and the duration, ours beside the lesson's."""
    return {
        ("notification peak", HERE): r.notification,
        ("notification peak", LESSON): _lesson(lesson, "notification"),
        ("catalog peak", HERE): r.catalog,
        ("catalog peak", LESSON): _lesson(lesson, "catalog"),
        ("duration ms", HERE): _ms(r.duration_ms),
        ("duration ms", IDEAL): _ms(r.ideal_ms()),
        ("duration ms", LESSON): _lesson(lesson, "duration_ms"),
    }


def _lesson(row: lesson003.LessonRow | None, name: str, suffix: str = "") -> str:
    value = None if row is None else getattr(row, name)
    return "—" if value is None else f"{value}{suffix}"


def _frame(records: list[dict], index: list[str], name: str) -> pd.DataFrame:
    frame = pd.DataFrame(records, index=pd.Index(index, name=name))
    frame.columns = pd.MultiIndex.from_tuples(frame.columns)
    return frame


# --- the ideal duration, worked --------------------------------------------------------------


def waves(calls: int, slots: int) -> int:
    """Calls through ``slots`` slots go in ``ceil(calls / slots)`` waves."""
    return math.ceil(calls / slots) if calls else 0


def ideal_terms(
    placement: Placement, notif: int, cat: int, skip: int = 0, calls: int = CALLS
) -> dict[str, object]:
    """The terms of :func:`~bulkhead_lab.live.placement.batch.ideal_ms` for one batch, worked in numbers.

    Pooled calls go in waves of as many calls as the pool has slots, one latency each. Under one
    shared pool the catalog's waves use the same slots, so their time adds to notification's;
    under a pool each the streams run alongside and the slower decides. Skipped calls need no
    slot: they are one wave alongside the pooled ones.
    """
    slow, fast = round(NOTIFICATION_LATENCY * 1000), round(CATALOG_LATENCY * 1000)
    pooled = calls - skip
    single = placement == "single"
    n_slots, c_slots = (notif + cat, notif + cat) if single else (notif, cat)
    n, c = waves(pooled, n_slots), waves(calls, c_slots)
    return {
        "notification": f"ceil({pooled}/{n_slots}) = {_waves(n)} x {slow} ms = {n * slow} ms",
        "catalog": f"ceil({calls}/{c_slots}) = {_waves(c)} x {fast} ms = {c * fast} ms, "
        + ("in the same slots: adds" if single else "in its own pool, alongside"),
        "skipped": f"{skip} calls, no slot: one wave, {slow} ms, alongside" if skip else "—",
        "ideal ms": round(ideal_ms(placement, notif, cat, skip, calls)),
    }


def _waves(n: int) -> str:
    return f"{n} wave" if n == 1 else f"{n} waves"


def ideal_worked(placement: Placement, notif: int, cat: int, skip: int = 0, calls: int = CALLS) -> str:
    """:func:`ideal_terms` as one line: ``notification ...; catalog ...: ideal N ms``."""
    terms = ideal_terms(placement, notif, cat, skip, calls)
    skipped = "" if terms["skipped"] == "—" else f"; skipped: {terms['skipped']}"
    return (
        f"notification: {terms['notification']}; catalog: {terms['catalog']}{skipped}; "
        f"ideal {terms['ideal ms']} ms"
    )


def ideal_table() -> WideFrame:
    """The ideal duration of each of the lesson's batches, worked: ``ceil(calls / slots)`` waves each."""
    sizing: list[Row] = [(f"{SEPARATE} {label}", p, n, c, k) for label, p, n, c, k in sizing_row_list()[:-1]]
    records, seen = [], set()
    for label, placement, notif, cat, skip in [*PLACEMENT_ROWS, *sizing]:
        if (placement, notif, cat, skip) not in seen:
            seen.add((placement, notif, cat, skip))
            records.append({"batch": label, **ideal_terms(placement, notif, cat, skip)})
    return WideFrame(pd.DataFrame(records).set_index("batch"))


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


def lesson_row(result: PlacementResult) -> tuple[str, lesson003.LessonRow] | None:
    """The lesson's row for a batch at one of its settings (and its latencies), or None."""
    if (result.n, result.notification_latency, result.catalog_latency) != (
        CALLS,
        NOTIFICATION_LATENCY,
        CATALOG_LATENCY,
    ):
        return None
    key = (result.placement, result.notif, result.cat, result.skip)
    for label, *settings in PLACEMENT_ROWS:
        if tuple(settings) == key:
            return label, lesson003.PLACEMENT[label]
    for label, *settings in sizing_row_list()[:-1]:
        if tuple(settings) == key and label in lesson003.SIZING:
            return label, lesson003.SIZING[label]
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
            "duration ms": _ms(result.duration_ms),
            "ideal ms": _ms(result.ideal_ms()),
            "catalog median ms": round(float(pd.Series(catalog_ms).median()), 1),
        }
    }
    found = lesson_row(result)
    if found is not None:
        _, lesson = found
        rows[LESSON] = {
            **rows["this run"],
            "catalog done before": _lesson(lesson, "catalog_before", f" / {lesson003.CALLS}"),
            "notification peak": lesson.notification,
            "catalog peak": lesson.catalog,
            "duration ms": lesson.duration_ms,
            "ideal ms": "",
            "catalog median ms": "—",
        }
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "run"
    return frame


def batch_facts(result: PlacementResult) -> str:
    """A batch's timing-free facts: peaks against pool limits and catalogBefore.

    Under one shared pool the catalog peak depends on which waiting request the pool
    serves next (aiohttp picks a waiting host at random), so it is left out there.
    """
    single = result.placement == "single"
    limit = result.notif + result.cat if single else result.notif
    skipped = f" + {result.skip} skipped" if result.skip else ""
    catalog = "" if single else f", catalog peak {result.catalog}"
    return (
        f"{describe(result)}: notification peak {result.notification} (pool {limit}{skipped})"
        f"{catalog}, catalog done before {result.catalog_before} / {result.n}"
    )


# --- what the rules predict (the exercises' answers) ----------------------------------------


def expected_notification_peak(
    placement: str, notif: int, cat: int, skip: int = 0, calls: int = CALLS
) -> int:
    """What notification sees at once: its pooled calls up to the pool's slots, plus every skipped one.

    Under one shared pool the notification calls start first and take every slot they can.
    """
    slots = notif + cat if placement == "single" else notif
    return min(slots, calls - skip) + skip


def expected_catalog_before(
    placement: Placement, notif: int, cat: int, skip: int = 0, calls: int = CALLS
) -> int:
    """Catalog calls done before the first notification answer, by the rule of the lesson's first table.

    Under one shared pool the notification calls take the slots first; catalog gets only
    what they leave. With a slot of its own, 5-ms catalog calls all finish long before a
    300-ms notification answer (``ceil(calls / slots) x 5 ms`` < 300 ms).
    """
    if placement == "single":
        free = max(0, notif + cat - (calls - skip))
    else:
        free = cat
    if free == 0:
        return 0
    fits = waves(calls, free) * CATALOG_LATENCY < NOTIFICATION_LATENCY
    return calls if fits else min(calls, math.floor(NOTIFICATION_LATENCY / CATALOG_LATENCY) * free)
