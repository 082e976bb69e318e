"""Lesson 003's batches, run live: the rows of its two tables and its three pool tests, side by side.

The rows are typed (:class:`Row`: label, placement, slots, skipped call sites), as ``measure.mjs``
runs them; :func:`run_lesson` runs every batch the two tables and the pool tests need, each once,
and the rules of the lesson's first table (:func:`expected_notification_peak`,
:func:`expected_catalog_before`) give what a batch should count. :data:`SIZING_ROWS` and
:data:`NO_POOL` (the wrong sizes) are written in notebook 03 (section 5), exported from its ``# @save`` cell.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from bulkhead_lab.live.net.lag import watch_lag
from bulkhead_lab.live.net.server import Progress
from bulkhead_lab.live.net.side_by_side import Experiment, in_turn, settling
from bulkhead_lab.live.placement.batch import (
    CALLS,
    CATALOG_LATENCY,
    NOTIFICATION_LATENCY,
    PlacementResult,
    ideal_ms,
    run_placement,
)
from bulkhead_lab.live.placement.pools import Placement
from bulkhead_lab.live.placement.pooltests import PoolTestRun, judge, pool_test_sends


class Row(NamedTuple):
    """One batch of the lesson's tables: its label there and its settings."""

    label: str
    placement: Placement
    notif: int
    cat: int
    skip: int


Rows = list[tuple[str, PlacementResult]]
ForRun = Callable[[int], Progress]  # the i-th batch -> its on_progress

SHARED, SEPARATE = "single shared pool", "pool per dependency"  # the lesson's words for the placements

#: The first table's rows, as measure.mjs runs them.
PLACEMENT_ROWS: tuple[Row, ...] = (
    Row(SHARED, "single", 4, 4, 0),
    Row(SEPARATE, "separate", 4, 4, 0),
    Row(f"{SEPARATE} + 8 skipped", "separate", 4, 4, 8),
)
# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/03_pool_placement.ipynb, section 5. Wrong sizing
#: The second table's slot counts under pool per dependency: (notification slots, catalog slots):
#: one slot (a bottleneck), the lesson's four, forty (as many as the batch's calls: it binds nothing),
#: and a catalog pool of one (a ceiling on the fast stream too).
SIZING_ROWS: tuple[tuple[int, int], ...] = ((1, 4), (4, 4), (40, 4), (4, 1))
#: One row the lesson does not run: every notification call site skips the pool. Forty slots
#: "bind nothing"; this is what nothing looks like.
NO_POOL = Row("no pool: all 40 call sites skip it", "separate", 4, 4, CALLS)


# <<< saved cells
#: The batches whose catalogBefore the notebook checks at 40 / 40 (forty 5-ms calls done before the
#: first 300-ms answer: a race against the clock), as (placement, notif, cat, skip): each runs alone
#: until that first answer (:func:`~bulkhead_lab.live.net.side_by_side.in_turn`), the others together.
TIMED = frozenset({("separate", 4, 4, 0), ("separate", 4, 4, 8), ("separate", 1, 4, 0)})


def sizing_row_list() -> list[Row]:
    """The second table's rows (pool per dependency at the lesson's slot counts), then :data:`NO_POOL`."""
    return [Row(f"{notif} / {cat}", "separate", notif, cat, 0) for notif, cat in SIZING_ROWS] + [NO_POOL]


@dataclass
class LessonRun:
    """Every live batch of notebook 03's sections 3 to 6: both tables' rows and the three pool tests."""

    rows: Rows
    sizing: Rows
    tests: PoolTestRun


def lesson_todo() -> list[Row]:
    """The batches both tables need, each once (the second table's 4 / 4 is the first's second row)."""
    shared = PLACEMENT_ROWS[1][1:]
    return [*PLACEMENT_ROWS, *(row for row in sizing_row_list() if row[1:] != shared)]


async def run_lesson(for_run: ForRun | None = None) -> LessonRun:
    """Run :func:`lesson_todo`'s batches and the pool tests' seven ``/run`` batches side by side.

    ``for_run(i)`` reports batch ``i``'s progress (``i = len(lesson_todo())``: the pool tests', over
    their seven). Each starts services of its own, so it measures what it measures alone; the
    :data:`TIMED` ones (and the pool tests') run alone first, each until its first notification
    answer, then the others (:func:`~bulkhead_lab.live.net.side_by_side.in_turn`): about as long as the
    longest, a one-slot batch (twelve seconds). Cancelled, every batch stops and closes its services.
    """
    todo = lesson_todo()
    sends = pool_test_sends(None if for_run is None else for_run(len(todo)))
    experiments: list[Experiment[Any]] = [*_experiments(todo, for_run), *sends]
    async with watch_lag() as lag:  # the pool tests' batches' loop lag; each row's batch has its own
        results = await in_turn(experiments)
    done = [(row.label, result) for row, result in zip(todo, results[: len(todo)], strict=True)]
    tests = await judge(results[len(todo) :])
    tests.lag = lag
    rows, fresh = done[: len(PLACEMENT_ROWS)], dict(done[len(PLACEMENT_ROWS) :])
    reuse = rows[1][1]
    sizing = [(row.label, reuse if ran_at(reuse, row) else fresh[row.label]) for row in sizing_row_list()]
    return LessonRun(rows, sizing, tests)


def _experiments(todo: Sequence[Row], for_run: ForRun | None) -> list[Experiment[PlacementResult]]:
    """Each row's batch planned at its ideal; a :data:`TIMED` one alone until more than its forty
    catalog answers could be in (so notification has answered)."""
    experiments = []
    for i, (_, p, n, c, k) in enumerate(todo):
        progress = None if for_run is None else for_run(i)
        settled = asyncio.Event() if (p, n, c, k) in TIMED else None
        if settled is not None:
            progress = settling(settled, CALLS, progress)
        batch = run_placement(p, n, c, k, on_progress=progress)
        experiments.append(Experiment(batch, ideal_ms(p, n, c, k) / 1000, settled is not None, settled))
    return experiments


def ran_at(result: PlacementResult, row: Row) -> bool:
    """The batch ran at the row's settings, the lesson's forty calls and its latencies."""
    same = (result.placement, result.notif, result.cat, result.skip, result.n)
    lesson = (result.notification_latency, result.catalog_latency)
    return same == (*row[1:], CALLS) and lesson == (NOTIFICATION_LATENCY, CATALOG_LATENCY)


# --- what the rules predict (notebook 03's exercises' answers) ------------------------------


def waves(calls: int, slots: int) -> int:
    """Calls through ``slots`` slots go in ``ceil(calls / slots)`` waves."""
    return math.ceil(calls / slots) if calls else 0


def expected_notification_peak(
    placement: Placement, notif: int, cat: int, skip: int = 0, calls: int = CALLS
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
    free = max(0, notif + cat - (calls - skip)) if placement == "single" else cat
    if free == 0:
        return 0
    fits = waves(calls, free) * CATALOG_LATENCY < NOTIFICATION_LATENCY
    return calls if fits else min(calls, math.floor(NOTIFICATION_LATENCY / CATALOG_LATENCY) * free)
