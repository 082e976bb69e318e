"""What notebook 03 shows: lesson 003's two tables, its plots, and a live slider panel.

Every number comes from a live round (:func:`~.placement.run_placement`) in this
kernel. Tables are pandas frames shaped like the lesson's; figures are plain
:class:`~matplotlib.figure.Figure` objects; ``*_facts`` functions print only what does
not depend on timing (peaks, ``catalogBefore``, which side won) so nbval can check it.

:class:`PlacementPanel` is the "try it" panel: sliders over placement, pool sizes,
skipped call sites and the slowdown latency, a progress bar that moves as calls
finish, and an output area redrawn with a figure and a table after every run.
CSS classes for the browser test: ``bl-slider-<name>``, ``bl-progress-placement``,
``bl-view-placement``, ``bl-panel-placement``.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import ipywidgets as w
import pandas as pd
from IPython.display import display
from matplotlib.figure import Figure

from ..widgets import LiveProgress, SliderView, slider
from . import pools as pools_module
from .placement import (
    CALLS,
    CATALOG_LATENCY,
    NOTIFICATION_LATENCY,
    PlacementResult,
    Progress,
    rounded,
    run_placement_sync,
)

NOTIFICATION_COLOR = "tab:orange"
CATALOG_COLOR = "tab:blue"

#: The first table's rows, as measure.mjs runs them: (label, placement, notif, cat, skip).
PLACEMENT_ROWS: tuple[tuple[str, str, int, int, int], ...] = (
    ("single shared pool", "single", 4, 4, 0),
    ("pool per dependency", "separate", 4, 4, 0),
    ("pool per dependency + 8 skipped", "separate", 4, 4, 8),
)
#: The second table's slot counts under pool per dependency: (notification slots, catalog slots).
SIZING_ROWS: tuple[tuple[int, int], ...] = ((1, 4), (4, 4), (40, 4), (4, 1))

Rows = list[tuple[str, PlacementResult]]


# --- running the lesson's rows -------------------------------------------------------------


@contextmanager
def live_progress(total_runs: int, label: str = "live rounds") -> Iterator[Callable[[int], Progress]]:
    """Show a progress bar for ``total_runs`` rounds; yields ``for_run(i)`` -> an ``on_progress``."""
    bar = w.IntProgress(
        min=0,
        max=max(1, total_runs),
        description=label,
        bar_style="info",
        style={"description_width": "initial"},
    )
    bar.add_class("bl-progress-rows")
    note = w.Label("")
    display(w.HBox([bar, note]))

    def for_run(index: int) -> Progress:
        def update(done: int, total: int) -> None:
            bar.value = index + (1 if done == total else 0)
            note.value = f"round {index + 1} of {total_runs}: {done}/{total} calls answered"

        return update

    try:
        yield for_run
    finally:
        bar.bar_style = "success"
        note.value = "done"


def placement_rows(show_progress: bool = True) -> Rows:
    """Run the first table's three rounds at the lesson's numbers (40 calls, 300 ms / 5 ms)."""
    return _run_rows([(label, p, n, c, s) for label, p, n, c, s in PLACEMENT_ROWS], show_progress)


def sizing_rows(reuse: PlacementResult | None = None, show_progress: bool = True) -> Rows:
    """Run the second table's rounds; ``reuse`` a 4 / 4 pool-per-dependency round already run."""
    todo = [(f"{notif} / {cat}", "separate", notif, cat, 0) for notif, cat in SIZING_ROWS]
    fresh = dict(_run_rows([row for row in todo if not _reusable(reuse, row)], show_progress))
    return [(row[0], reuse if reuse is not None and _reusable(reuse, row) else fresh[row[0]]) for row in todo]


def _reusable(result: PlacementResult | None, row: tuple[str, str, int, int, int]) -> bool:
    if result is None:
        return False
    _, placement, notif, cat, skip = row
    same = (result.placement, result.notif, result.cat, result.skip, result.n)
    lesson = (result.notification_latency, result.catalog_latency)
    return same == (placement, notif, cat, skip, CALLS) and lesson == (NOTIFICATION_LATENCY, CATALOG_LATENCY)


def _run_rows(todo: Sequence[tuple[str, str, int, int, int]], show_progress: bool) -> Rows:
    rows: Rows = []
    if not show_progress:
        for label, placement, notif, cat, skip in todo:
            rows.append((label, run_placement_sync(placement, notif, cat, skip)))
        return rows
    with live_progress(len(todo)) as for_run:
        for i, (label, placement, notif, cat, skip) in enumerate(todo):
            rows.append((label, run_placement_sync(placement, notif, cat, skip, on_progress=for_run(i))))
    return rows


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
    """The marked pool-definition block of :mod:`~.pools`, as the package runs it."""
    source = inspect.getsource(pools_module)
    match = re.search(r"(    # >>> pool definition.*?# <<<)", source, re.S)
    if match is None:
        raise RuntimeError("pools.py has lost its '# >>> pool definition' marker")
    return inspect.cleandoc(match.group(1))


# --- figures --------------------------------------------------------------------------------


def latency_axes(ax: Any, result: PlacementResult) -> None:
    """Each request's time from the round's start to its answer, by stream."""
    n = result.n
    notif = result.latencies_ms["notification"]
    ax.scatter(range(n), result.latencies_ms["catalog"], s=12, color=CATALOG_COLOR, label="catalog")
    pooled = [j for j in range(n) if j >= result.skip]
    ax.scatter(pooled, [notif[j] for j in pooled], s=12, color=NOTIFICATION_COLOR, label="notification")
    if result.skip:
        skipped = list(range(result.skip))
        ax.scatter(
            skipped, [notif[j] for j in skipped], s=28, marker="x", color="tab:red", label="skipped call site"
        )
    first = min(notif) if notif else 0.0
    ax.axhline(first, color="gray", lw=0.8, ls=":", label="first notification answer")
    ax.set_xlabel("request")
    ax.set_ylabel("latency, ms")
    ax.set_title("each request's latency")
    ax.legend(fontsize=7, loc="upper left")


def concurrency_axes(ax: Any, result: PlacementResult) -> None:
    """Open requests each dependency saw over time, with the pool limits as dashed lines."""
    for stream, color in (("notification", NOTIFICATION_COLOR), ("catalog", CATALOG_COLOR)):
        points = result.timelines.get(stream) or [(0.0, 0)]
        ax.step(
            [t * 1000 for t, _ in points], [o for _, o in points], where="post", color=color, label=stream
        )
    if result.placement == "single":
        ax.axhline(result.notif + result.cat, color="gray", ls="--", lw=0.9, label="shared pool limit")
    else:
        ax.axhline(result.notif, color=NOTIFICATION_COLOR, ls="--", lw=0.9, label="notification pool")
        ax.axhline(result.cat, color=CATALOG_COLOR, ls="--", lw=0.9, label="catalog pool")
    ax.set_xlabel("time since the round started, ms")
    ax.set_ylabel("open requests")
    ax.set_title("concurrency each dependency saw")
    ax.legend(fontsize=7, loc="center right")


def placement_figure(result: PlacementResult, title: str | None = None) -> Figure:
    """Latency by stream (left) and the concurrency each dependency saw (right) for one round."""
    fig = Figure(figsize=(10, 3.4))
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.15, top=0.85, wspace=0.25)
    left, right = fig.subplots(1, 2)
    latency_axes(left, result)
    concurrency_axes(right, result)
    fig.suptitle(title or describe(result), fontsize=10)
    return fig


def describe(result: PlacementResult) -> str:
    """A round's settings in words, e.g. ``pool per dependency 4 / 4, 8 skipped, notification 300 ms``."""
    where = "single shared pool" if result.placement == "single" else "pool per dependency"
    skipped = f", {result.skip} skipped" if result.skip else ""
    return (
        f"{where} {result.notif} / {result.cat}{skipped}, notification "
        f"{result.notification_latency * 1000:.0f} ms, catalog {result.catalog_latency * 1000:.0f} ms"
    )


def round_table(result: PlacementResult) -> pd.DataFrame:
    """One round as a row of the lesson's columns, plus the ideal and the median latencies."""
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


def round_facts(result: PlacementResult) -> str:
    """A round's timing-free facts: peaks against pool limits and catalogBefore.

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


# --- the slider panel -----------------------------------------------------------------------


def placement_sliders(
    placement: str = "separate",
    notif: int = 4,
    cat: int = 4,
    skip: int = 0,
    latency_ms: int = round(NOTIFICATION_LATENCY * 1000),
) -> dict[str, Any]:
    """Placement, both pool sizes, skipped call sites and the notification (slowdown) latency."""
    return {
        "placement": slider(
            w.SelectionSlider,
            "placement",
            "placement",
            options=[("single shared pool", "single"), ("pool per dependency", "separate")],
            value=placement,
        ),
        "notif": slider(w.IntSlider, "notification-slots", "notification slots", min=1, max=40, value=notif),
        "cat": slider(w.IntSlider, "catalog-slots", "catalog slots", min=1, max=40, value=cat),
        "skip": slider(w.IntSlider, "skipped", "skipped call sites", min=0, max=CALLS, value=skip),
        "latency_ms": slider(
            w.IntSlider,
            "slowdown-latency",
            "notification latency (ms)",
            min=50,
            max=1000,
            step=50,
            value=latency_ms,
        ),
    }


def placement_panel(*, draw: bool = True, **values: Any) -> SliderView:
    """The "try it" panel of notebook 03: each slider move runs one live round at the
    sliders' values (a progress bar counts the answers) and redraws its figure and table.

    ``draw=False`` builds it without a first round. ``panel.set(...)`` moves several
    sliders, runs once and returns the :class:`~.placement.PlacementResult`.
    """
    controls = placement_sliders(**values)
    progress = LiveProgress("placement", unit="calls answered", total=2 * CALLS)

    def render(placement: str, notif: int, cat: int, skip: int, latency_ms: int):
        progress.running("running a live round on 127.0.0.1 ...")
        try:
            result = run_placement_sync(
                placement,
                notif,
                cat,
                skip,
                notification_latency=latency_ms / 1000,
                on_progress=progress.on_progress,
            )
        except ValueError as err:  # the panel shows the one line too
            progress.failed(f"cannot run this round: {err}")
            raise
        progress.done(f"done in {result.duration_ms:.0f} ms")
        return result, [placement_figure(result)], [round_table(result)]

    panel = SliderView("placement", controls, render, extra=(progress.widget,), draw=draw)
    panel.progress = progress
    return panel
