"""Every seeded slider is labelled and moves what its panel shows: one step each way from the value a
notebook opens it at changes the figure, the table or the status line (issue 31: a slider that redraws
nothing reads as broken). The live panels (03's placement, 04's orders, 05's live run) run seconds per
move and are pinned by their own tests; here every seeded panel a notebook builds, at its values.

A move sets the control's value as a learner's drag does (no event loop here, so the panel redraws at
once) and compares the output area's bundles (PNG bytes, table HTML, text) before and after.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import ipywidgets as w
import pytest

from bulkhead_lab.adaptive.pool import ALGORITHMS
from bulkhead_lab.course.adaptive_limits import panels as p05
from bulkhead_lab.course.choosing_compartments import panels as p08
from bulkhead_lab.course.littles_law_sizing import panels as p01
from bulkhead_lab.course.retries_and_budgets import panels as p06
from bulkhead_lab.course.sharing_compartments import panels as p09
from bulkhead_lab.course.single_pool_vs_bulkhead import panels as p02
from bulkhead_lab.course.timeouts_and_queues import panels as p07
from bulkhead_lab.course.ui.panel import SliderView

# Each seeded panel as its notebook builds it (every notebook calls these with no arguments); 05's
# explore panel once per algorithm, since only the chosen algorithm's setting is shown.
PANELS: dict[str, Callable[[], SliderView]] = {
    "01 littles_law": p01.littles_law_panel,
    "02 tradeoff": p02.tradeoff_panel,
    "02 step_through": p02.step_through,
    **{f"05 explore {a}": (lambda a=a: p05.explore_panel(algorithm=a)) for a in ALGORITHMS},
    "05 drift": p05.drift_panel,
    "05 slow_start": p05.slow_start_panel,
    "06 retry": p06.retry_panel,
    "06 storm": p06.storm_panel,
    "07 storm": p07.storm_panel,
    "08 cost": p08.cost_panel,
    "08 shard": p08.shard_panel,
    "08 breaker": p08.breaker_panel,
    "09 soft": p09.soft_panel,
    "09 shed": p09.shed_panel,
}


def _steps(control: w.ValueWidget) -> Iterator[tuple[str, Any]]:
    """The values one step down and one step up from the control's own (those within its range)."""
    if isinstance(control, (w.SelectionSlider, w.ToggleButtons)):
        values = [value for _, value in control._options_full]  # (label, value) pairs, in order
        at = control.index
        if at > 0:
            yield f"{control.description} one step down", values[at - 1]
        if at + 1 < len(values):
            yield f"{control.description} one step up", values[at + 1]
    else:  # IntSlider, FloatSlider
        down, up = control.value - control.step, control.value + control.step
        if down >= control.min:
            yield f"{control.description} one step down", down
        if up <= control.max:
            yield f"{control.description} one step up", up


def _shown(panel: SliderView) -> tuple[Any, ...]:
    return tuple(tuple(sorted((k, repr(v)) for k, v in bundle.items())) for bundle in panel.output.outputs)


@pytest.mark.parametrize("name", PANELS)
def test_every_seeded_slider_is_labelled_and_moves_what_its_panel_shows_one_step_each_way(
    name: str,
) -> None:
    panel = PANELS[name]()
    if not panel.output.outputs:
        panel.redraw()
    visible = {k: c for k, c in panel.controls.items() if c.layout.display != "none"}
    assert [k for k, c in visible.items() if not c.description] == [], f"{name}: a slider with no label"
    still: list[str] = []
    moves = 0
    for key, control in visible.items():
        start = control.value
        for move, value in _steps(control):
            panel.redraw()  # from the control's own value each time
            before = _shown(panel)
            control.value = value
            moves += 1
            if _shown(panel) == before:
                still.append(f"{key}: {move} ({start!r} -> {value!r})")
            control.value = start
    assert moves >= len(visible), f"{name}: a control with no step either way"
    assert still == [], f"{name}: these moves changed nothing shown"
