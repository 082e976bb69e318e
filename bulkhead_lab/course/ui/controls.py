"""The seeded model's sliders, shared by every notebook that moves lesson 000's knobs.

The split slider shows "single pool" and 1/31 .. 31/1; a SelectionSlider cannot hold
``None``, so inside the slider the single pool is :data:`_SINGLE`. A :class:`SplitPanel`
translates at the panel's edge, so everything outside the slider sees the model's one
spelling of the single pool: ``split=None``.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from bulkhead_lab.course.ui.panel import SliderView, choice, slider
from bulkhead_lab.pool.params import (
    HOLD_EVENT,
    HOLD_TRACKING,
    LESSON_SPLIT,
    ROUNDS,
    SINGLE_POOL_LABEL,
    SLOW,
    START,
    TOTAL,
)
from bulkhead_lab.pool.params import split_label as layout_label

_SINGLE = 0  # the split slider's private value for the single pool (never seen outside)


def split_slider(value: int | None = LESSON_SPLIT) -> w.SelectionSlider:
    """The split: "single pool", then 1/31 .. 31/1 (tracking slots / event slots)."""
    options = [(SINGLE_POOL_LABEL, _SINGLE)] + [(layout_label(s), s) for s in range(1, TOTAL)]
    return choice("split", "split (tracking/event)", options, _SINGLE if value is None else value)


def hold_sliders(slow: int = SLOW) -> dict[str, w.ValueWidget]:
    """Tracking hold, event hold, slowdown hold (rounds) and the failure round, at the lesson's values."""
    return {
        "hold_tracking": slider(
            w.IntSlider, "tracking-hold", "tracking hold (rounds)", min=1, max=20, value=HOLD_TRACKING
        ),
        "hold_event": slider(
            w.IntSlider, "event-hold", "event hold (rounds)", min=1, max=20, value=HOLD_EVENT
        ),
        "slow": slider(w.IntSlider, "slowdown-hold", "slowdown hold (rounds)", min=1, max=60, value=slow),
        "start": slider(
            w.IntSlider, "failure-round", "failure round", min=0, max=ROUNDS - 100, step=50, value=START
        ),
    }


class SplitPanel(SliderView):
    """A panel with the split slider: its single pool is ``split=None`` to the view and to :meth:`set`."""

    def values(self) -> dict[str, Any]:
        values = super().values()
        return {**values, "split": None} if values.get("split", 1) == _SINGLE else values

    def set(self, **values: Any) -> Any:
        if "split" in values and values["split"] is None:
            values["split"] = _SINGLE
        return super().set(**values)
