"""Notebook 03's widgets: progress bars while the lesson's batches run, and the "try it" panel.

:func:`placement_rows` and :func:`sizing_rows` run the lesson's two tables with a progress
bar that moves as calls finish. :func:`placement_panel` has sliders over placement, pool
sizes, skipped call sites and the slowdown latency, a progress bar, and an output area
redrawn with a figure and a table after every live batch. CSS classes for the browser
test: ``bl-slider-<name>``, ``bl-progress-placement``, ``bl-view-placement``,
``bl-panel-placement`` (and ``bl-progress-rows`` for the tables' bar).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import ipywidgets as w
from IPython.display import display

from ...live.placement import CALLS, NOTIFICATION_LATENCY, PlacementResult
from ...live.server import Progress
from ..live import Interrupted
from ..panel import LiveProgress, SliderView, slider
from . import figures, views

# --- running the lesson's rows -------------------------------------------------------------


@contextmanager
def live_progress(total_runs: int, label: str = "live batches") -> Iterator[views.ForRun]:
    """Show a progress bar for ``total_runs`` batches; yields ``for_run(i)`` -> an ``on_progress``."""
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
            note.value = f"batch {index + 1} of {total_runs}: {done}/{total} calls answered"

        return update

    try:
        yield for_run
    except Interrupted as stop:
        bar.bar_style = "danger"
        note.value = str(stop)
        raise
    bar.bar_style = "success"
    note.value = "done"


def placement_rows(show_progress: bool = True) -> views.Rows:
    """Run the first table's three batches (:func:`.views.placement_rows`) under a progress bar."""
    if not show_progress:
        return views.placement_rows()
    with live_progress(len(views.PLACEMENT_ROWS)) as for_run:
        return views.placement_rows(for_run)


def sizing_rows(reuse: PlacementResult | None = None, show_progress: bool = True) -> views.Rows:
    """Run the second table's batches (:func:`.views.sizing_rows`) under a progress bar."""
    if not show_progress:
        return views.sizing_rows(reuse)
    with live_progress(len(views.sizing_todo(reuse))) as for_run:
        return views.sizing_rows(reuse, for_run)


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
    """The "try it" panel of notebook 03: each slider move runs one live batch at the
    sliders' values (a progress bar counts the answers) and redraws its figure and table.

    ``draw=False`` builds it without a first batch. ``panel.set(...)`` moves several
    sliders, runs once and returns the :class:`~bulkhead_lab.live.placement.PlacementResult`.
    """
    controls = placement_sliders(**values)
    progress = LiveProgress("placement", unit="calls answered", total=2 * CALLS)

    def render(placement: str, notif: int, cat: int, skip: int, latency_ms: int):
        progress.running("running a live batch on 127.0.0.1 ...")
        try:
            result = views.run(
                placement,
                notif,
                cat,
                skip,
                notification_latency=latency_ms / 1000,
                on_progress=progress.on_progress,
            )
        except ValueError as err:  # the panel shows the one line too
            progress.failed(f"cannot run this batch: {err}")
            raise
        except Interrupted as stop:  # Kernel > Interrupt: the status says so, the cell shows one line
            progress.failed(str(stop))
            raise
        progress.done(f"done in {result.duration_ms:.0f} ms")
        return result, [figures.placement_figure(result)], [views.batch_table(result)]

    panel = SliderView("placement", controls, render, extra=(progress.widget,), draw=draw)
    panel.progress = progress
    return panel
