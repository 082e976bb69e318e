"""Notebook 03's widgets: progress bars while the lesson's batches run, and the "try it" panel.

:func:`lesson_runs` runs the lesson's two tables and its three tests under one bar counting calls
answered (:class:`CallsProgress`). In :func:`placement_panel` every move runs one live batch and
redraws a figure and a table; while it runs, and after Kernel > Interrupt, the status line says the
figure shown is the previous run's.

CSS classes for the browser test: ``bl-slider-<name>`` on each control (the toggle too),
``bl-progress-placement``, ``bl-status-placement``, ``bl-view-placement``,
``bl-panel-placement``; the tables' bar ``bl-progress-rows`` and its text ``bl-status-rows``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import ipywidgets as w

from bulkhead_lab.course.pool_placement import figures, views
from bulkhead_lab.course.ui.panel import (
    LiveProgress,
    SliderView,
    show_only,
    slider,
    toggle,
)
from bulkhead_lab.live.net.server import Progress
from bulkhead_lab.live.net.side_by_side import SummedProgress
from bulkhead_lab.live.placement.batch import CALLS, CATALOG_LATENCY, NOTIFICATION_LATENCY, PlacementResult
from bulkhead_lab.live.placement.lesson import SEPARATE, SHARED, LessonRun, lesson_todo, run_lesson
from bulkhead_lab.live.placement.pooltests import RUNS
from bulkhead_lab.live.sync import run_sync

PER_BATCH = 2 * CALLS  # calls answered in one batch: forty to each dependency

# --- running the lesson's rows: one unit, calls answered ------------------------------------


class CallsProgress(LiveProgress):
    """One bar for several live batches running together: calls answered summed over all of them
    (:class:`~bulkhead_lab.live.net.side_by_side.SummedProgress`), and how many have finished."""

    def __init__(self, totals: Sequence[int], what: str = "batch") -> None:
        super().__init__("rows", unit="calls answered", total=sum(totals))
        self.bar.description = "live batches"
        self.what, self._sum = what, SummedProgress(totals)

    def for_run(self, index: int) -> Progress:
        """Batch ``index``'s ``on_progress``."""
        report = self._sum.for_run(index)

        def update(done: int, total: int) -> None:
            report(done, total)
            self.on_progress(self._sum.value, max(self.bar.max, self._sum.total))
            plural = self.what + ("es" if self.what.endswith("h") else "s")
            self.status.value += (
                f" ({self._sum.finished} of {len(self._sum.totals)} {plural} done, all running together)"
            )

        return update


@contextmanager
def calls_progress(totals: Sequence[int], what: str = "batch") -> Iterator[CallsProgress]:
    """Show a :class:`CallsProgress` under the cell; say 'done' or 'interrupted at ...' at the end."""
    progress = CallsProgress(totals, what)
    with progress.shown(
        "Run this cell to run its live batches (a bar counts the calls answered).",
        f"0/{progress.bar.max} calls answered",
    ):
        yield progress
    progress.done(f"done: {progress.bar.value}/{progress.bar.max} calls answered")


def lesson_runs() -> LessonRun:
    """Every live batch of sections 3 to 6 at once (:func:`~bulkhead_lab.live.placement.lesson.run_lesson`)
    under one bar counting every call answered."""
    totals = [PER_BATCH] * len(lesson_todo()) + [RUNS * PER_BATCH]
    with calls_progress(totals, "run") as progress:
        return run_sync(run_lesson(progress.for_run))


# --- the "try it" panel ---------------------------------------------------------------------

PLACEMENT_OPTIONS = ((SHARED, "single"), (SEPARATE, "separate"))
SIZES = {"single": ("shared",), "separate": ("notif", "cat")}  # the pool sizes each placement has
SLIDERS = {  # each slider: its CSS name, its label, its range and step
    "shared": ("shared-slots", "shared pool slots", 2, 2 * CALLS, 1),
    "notif": ("notification-slots", "notification slots", 1, CALLS, 1),
    "cat": ("catalog-slots", "catalog slots", 1, CALLS, 1),
    "skip": ("skipped", "skipped call sites", 0, CALLS, 1),
    "latency_ms": ("slowdown-latency", "notification latency (ms)", 50, 1000, 50),
}


def placement_controls(
    placement: str = "separate",
    notif: int = 4,
    cat: int = 4,
    shared: int = 8,
    skip: int = 0,
    latency_ms: int = round(NOTIFICATION_LATENCY * 1000),
) -> dict[str, Any]:
    """The toggle, one shared-pool size, a size per dependency's pool, skipped call sites, the latency."""
    values = {"shared": shared, "notif": notif, "cat": cat, "skip": skip, "latency_ms": latency_ms}
    controls = {"placement": toggle("placement", "placement", PLACEMENT_OPTIONS, placement)}
    for name, (css, label, least, most, step) in SLIDERS.items():
        controls[name] = slider(w.IntSlider, css, label, min=least, max=most, step=step, value=values[name])
    show_only(controls, "placement", SIZES)  # one shared size, or one each
    return controls


def batch_settings(placement: str, shared: int, notif: int, cat: int) -> tuple[int, int]:
    """The ``(notif, cat)`` a batch runs with: a pool each, or one shared pool of ``shared`` slots
    (which the live run takes as ``notif + cat``; how it is split does not matter to one pool)."""
    if placement == "single":
        return shared - shared // 2, shared // 2
    return notif, cat


def placement_panel(
    *, draw: bool = True, ran: Sequence[PlacementResult] = (), name: str = "placement", **values: Any
) -> SliderView:
    """The "try it" panel of notebook 03: each control move runs one live batch at the controls'
    values (the bar counts calls answered) and redraws its figure and table.

    ``draw=False`` builds it without a first batch. ``ran``: batches already run in this kernel
    (section 3's); the first time the controls come to one's settings it is drawn instead of being
    run again; every other move runs its own. ``panel.set(...)`` moves several controls, runs once
    and returns the :class:`~bulkhead_lab.live.placement.batch.PlacementResult`. ``name`` goes into
    its CSS classes (``bl-panel-<name>`` ...): a second panel on the page, one a cell drives from code,
    takes another, so the learner's panel stays the only ``bl-panel-placement``.
    """
    controls = placement_controls(**values)
    progress = LiveProgress(name, unit="calls answered", total=PER_BATCH)
    unseen = list(ran)

    def render(placement: str, shared: int, notif: int, cat: int, skip: int, latency_ms: int):
        n, c = batch_settings(placement, shared, notif, cat)
        settings = (placement, n, c, skip, latency_ms / 1000, CALLS)
        again = next((r for r in unseen if _settings(r) == settings), None)
        if again is not None:
            unseen.remove(again)
            progress.on_progress(2 * again.n, 2 * again.n)
            progress.done(
                f"section 3's batch, not run again ({again.duration_ms:.0f} ms); moves run new ones"
            )
            return again, [figures.placement_figure(again)], [views.batch_table(again)]
        with progress.redrawing("batch", "running a live batch on 127.0.0.1 ..."):
            result = views.run(
                placement,
                n,
                c,
                skip,
                notification_latency=latency_ms / 1000,
                on_progress=progress.on_progress,
            )
        progress.done(f"done in {result.duration_ms:.0f} ms")
        return result, [figures.placement_figure(result)], [views.batch_table(result)]

    return SliderView(name, controls, render, draw=draw, progress=progress)


def _settings(result: PlacementResult) -> tuple[str, int, int, int, float, int]:
    """A batch's settings as the panel's controls give them (catalog at the lesson's latency)."""
    if result.catalog_latency != CATALOG_LATENCY:
        return (result.placement, -1, -1, -1, -1.0, -1)  # no panel setting runs this batch
    return (result.placement, result.notif, result.cat, result.skip, result.notification_latency, result.n)
