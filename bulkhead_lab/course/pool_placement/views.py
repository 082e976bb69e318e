"""What notebook 03 shows, as numbers: lesson 003's batches, its two tables and their facts.

Every number comes from a live batch (:func:`~bulkhead_lab.live.placement.run_placement`)
run in this kernel by :func:`run`. Tables are pandas frames shaped like the lesson's;
``*_facts`` functions print only what does not depend on timing (peaks, ``catalogBefore``,
which side won) so nbval can check it. The figures are in :mod:`.figures`, the slider
panel and the progress bars in :mod:`.panels`.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence

import pandas as pd

from ...live import pools as pools_module
from ...live.placement import (
    CALLS,
    CATALOG_LATENCY,
    NOTIFICATION_LATENCY,
    PlacementResult,
    rounded,
    run_placement,
)
from ...live.server import Progress
from ..live import run_sync

#: The first table's rows, as measure.mjs runs them: (label, placement, notif, cat, skip).
PLACEMENT_ROWS: tuple[tuple[str, str, int, int, int], ...] = (
    ("single shared pool", "single", 4, 4, 0),
    ("pool per dependency", "separate", 4, 4, 0),
    ("pool per dependency + 8 skipped", "separate", 4, 4, 8),
)
#: The second table's slot counts under pool per dependency: (notification slots, catalog slots).
SIZING_ROWS: tuple[tuple[int, int], ...] = ((1, 4), (4, 4), (40, 4), (4, 1))

Row = tuple[str, str, int, int, int]  # (label, placement, notif, cat, skip)
Rows = list[tuple[str, PlacementResult]]
ForRun = Callable[[int], Progress]  # the i-th batch of a table -> its on_progress


def run(*args: object, **kwargs: object) -> PlacementResult:
    """:func:`~bulkhead_lab.live.placement.run_placement` from plain (or notebook) code.

    An interrupted cell cancels the live batch and waits until its services are closed
    (``run_sync`` does that), so nothing is left listening.
    """
    return run_sync(run_placement(*args, **kwargs))  # type: ignore[arg-type]


# --- running the lesson's rows -------------------------------------------------------------


def run_rows(todo: Sequence[Row], for_run: ForRun | None = None) -> Rows:
    """One live batch per row at the lesson's numbers; ``for_run(i)`` reports batch ``i``'s progress."""
    rows: Rows = []
    for i, (label, placement, notif, cat, skip) in enumerate(todo):
        on_progress = None if for_run is None else for_run(i)
        rows.append((label, run(placement, notif, cat, skip, on_progress=on_progress)))
    return rows


def placement_rows(for_run: ForRun | None = None) -> Rows:
    """Run the first table's three batches at the lesson's numbers (40 calls, 300 ms / 5 ms)."""
    return run_rows([(label, p, n, c, s) for label, p, n, c, s in PLACEMENT_ROWS], for_run)


def sizing_todo(reuse: PlacementResult | None = None) -> list[Row]:
    """The second table's rows that still need a batch (``reuse``: a 4 / 4 batch already run)."""
    return [row for row in _sizing_rows() if not _reusable(reuse, row)]


def sizing_rows(reuse: PlacementResult | None = None, for_run: ForRun | None = None) -> Rows:
    """Run the second table's batches; ``reuse`` a 4 / 4 pool-per-dependency batch already run."""
    fresh = dict(run_rows(sizing_todo(reuse), for_run))
    return [
        (row[0], reuse if reuse is not None and _reusable(reuse, row) else fresh[row[0]])
        for row in _sizing_rows()
    ]


def _sizing_rows() -> list[Row]:
    return [(f"{notif} / {cat}", "separate", notif, cat, 0) for notif, cat in SIZING_ROWS]


def _reusable(result: PlacementResult | None, row: Row) -> bool:
    if result is None:
        return False
    _, placement, notif, cat, skip = row
    same = (result.placement, result.notif, result.cat, result.skip, result.n)
    lesson = (result.notification_latency, result.catalog_latency)
    return same == (placement, notif, cat, skip, CALLS) and lesson == (NOTIFICATION_LATENCY, CATALOG_LATENCY)


# --- the lesson's two tables ---------------------------------------------------------------


def placement_table(rows: Rows) -> pd.DataFrame:
    """The lesson's first table: catalog done before, both peaks, duration (rounded to 500 ms)."""
    return pd.DataFrame(
        [
            {
                "placement": label,
                "catalog done before": f"{r.catalog_before} / {r.n}",
                "notification peak": r.notification,
                "catalog peak": r.catalog,
                "duration ms": rounded(r.duration_ms),
                "ideal ms": round(r.ideal_ms()),
            }
            for label, r in rows
        ]
    ).set_index("placement")


def sizing_table(rows: Rows) -> pd.DataFrame:
    """The lesson's second table: slots per pool against each dependency's peak and the duration."""
    return pd.DataFrame(
        [
            {
                "notification slots / catalog slots": label,
                "notification peak": r.notification,
                "catalog peak": r.catalog,
                "duration ms": rounded(r.duration_ms),
                "ideal ms": round(r.ideal_ms()),
            }
            for label, r in rows
        ]
    ).set_index("notification slots / catalog slots")


def placement_facts(rows: Rows) -> str:
    """What the first table says that does not depend on timing, one line per fact."""
    r = dict(rows)
    single, separate, skipped = (r[label] for label, *_ in PLACEMENT_ROWS)
    saved = separate.catalog_before == separate.n and single.catalog_before == 0
    lines = [
        f"single shared pool: catalog done before {single.catalog_before} / {single.n}, "
        f"notification peak {single.notification} of {single.notif + single.cat} slots",
        f"pool per dependency: catalog done before {separate.catalog_before} / {separate.n}, "
        f"peaks {separate.notification} / {separate.catalog}",
        f"pool per dependency + {skipped.skip} skipped: notification peak {skipped.notification} "
        f"= pool {skipped.notif} + skipped {skipped.skip}; catalog done before "
        f"{skipped.catalog_before} / {skipped.n}",
        "the neighbouring stream was saved by: " + ("pool per dependency" if saved else "neither"),
        "pool per dependency took longer than the shared pool: "
        + str(separate.duration_ms > single.duration_ms),
    ]
    return "\n".join(lines)


def sizing_facts(rows: Rows) -> str:
    """What the second table says that does not depend on timing."""
    lines = [f"{label}: notification peak {r.notification}, catalog peak {r.catalog}" for label, r in rows]
    by_label = dict(rows)
    longest = max(rows, key=lambda row: row[1].duration_ms)[0]
    shortest = min(rows, key=lambda row: row[1].duration_ms)[0]
    lines.append(f"slowest row: {longest} (one slot runs forty calls back to back)")
    lines.append(f"fastest row: {shortest} (forty slots bind nothing)")
    lines.append(
        "catalog peak stayed 4 whatever the notification pool: "
        + str(all(by_label[f"{n} / 4"].catalog == 4 for n in (1, 4, 40)))
    )
    return "\n".join(lines)


def cost_sentence(rows: Rows) -> str:
    """The bulkhead's price in this run's numbers (timing: print it in an ignored cell)."""
    r = dict(rows)
    single, separate = r[PLACEMENT_ROWS[0][0]], r[PLACEMENT_ROWS[1][0]]
    return (
        f"shared pool: {single.duration_ms:.0f} ms (ideal {single.ideal_ms():.0f}); pool per dependency: "
        f"{separate.duration_ms:.0f} ms (ideal {separate.ideal_ms():.0f}); notification concurrency "
        f"{single.notification} -> {separate.notification}"
    )


def pool_definition_source() -> str:
    """The marked pool-definition block of :mod:`~bulkhead_lab.live.pools`, as the package runs it."""
    source = inspect.getsource(pools_module)
    match = re.search(r"(    # >>> pool definition.*?# <<<)", source, re.S)
    if match is None:
        raise RuntimeError("pools.py has lost its '# >>> pool definition' marker")
    return inspect.cleandoc(match.group(1))


# --- one batch ------------------------------------------------------------------------------


def describe(result: PlacementResult) -> str:
    """A batch's settings in words, e.g. ``pool per dependency 4 / 4, 8 skipped, notification 300 ms``."""
    where = "single shared pool" if result.placement == "single" else "pool per dependency"
    skipped = f", {result.skip} skipped" if result.skip else ""
    return (
        f"{where} {result.notif} / {result.cat}{skipped}, notification "
        f"{result.notification_latency * 1000:.0f} ms, catalog {result.catalog_latency * 1000:.0f} ms"
    )


def batch_table(result: PlacementResult) -> pd.DataFrame:
    """One batch as a row of the lesson's columns, plus the ideal and the median latencies."""
    return pd.DataFrame(
        [
            {
                "placement": result.placement,
                "slots (notification / catalog)": f"{result.notif} / {result.cat}",
                "skipped": result.skip,
                "catalog done before": f"{result.catalog_before} / {result.n}",
                "notification peak": result.notification,
                "catalog peak": result.catalog,
                "duration ms": round(result.duration_ms),
                "ideal ms": round(result.ideal_ms()),
                "catalog median ms": round(pd.Series(result.latencies_ms["catalog"]).median(), 1),
            }
        ]
    ).set_index("placement")


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
