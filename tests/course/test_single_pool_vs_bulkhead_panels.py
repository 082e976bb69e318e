"""Notebook 02's panels as a learner sees them in Chromium: the step-through's caption and round slider
move together while Play plays, and the trade-off figure's split labels are legible and apart."""

from __future__ import annotations

from typing import Any

import ipywidgets as w
import pytest

from bulkhead_lab.course.single_pool_vs_bulkhead import figures, panels, views
from bulkhead_lab.pool.params import Params


def _tick(play: w.Play, value: int) -> None:
    """One tick of Play as the browser sends it: an update message from the front-end."""
    data = {"method": "update", "state": {"value": value}, "buffer_paths": []}
    play._handle_msg({"content": {"data": data}, "buffers": []})


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, tuple[str, ...]]]:
    """Every state update the kernel sends to the browser, in order: (widget, the keys it updates)."""
    seen: list[tuple[Any, tuple[str, ...]]] = []

    def record(self: w.Widget, msg: dict[str, Any], buffers: Any = None) -> None:
        if msg.get("method") == "update":
            seen.append((self, tuple(sorted(msg["state"]))))

    monkeypatch.setattr(w.Widget, "_send", record)
    return seen


def test_while_play_plays_the_caption_moves_with_the_round_slider_not_after_it(sent) -> None:
    """Issue 37: a link in the browser moved the slider at once and the figure a redraw later, so the
    caption read one round behind the slider all the while Play played. Each tick is now drawn first and
    the slider moved after it: its update leaves the kernel after the redrawn figure's."""
    panel = panels.step_through()
    slider = panel.controls["round"]
    for round_ in (951, 952, 1000, 1001):
        sent.clear()
        _tick(panel.play, round_)
        assert slider.value == panel.result.round == round_  # the caption is drawn from the result's round
        assert panel.result.frame.equals(views.compartment_view(round_, Params(split=24)).frame)
        order = [widget for widget, keys in sent if widget is panel.output or keys == ("value",)]
        assert order.index(panel.output) < order.index(slider), "the slider moved before the figure"


def test_a_moved_round_slider_moves_play_so_it_goes_on_from_there() -> None:
    panel = panels.step_through()
    panel.controls["round"].value = 1100  # a drag, released
    assert panel.play.value == 1100 and panel.result.round == 1100
    _tick(panel.play, 1101)
    assert panel.controls["round"].value == panel.result.round == 1101


def test_the_lessons_splits_are_named_at_the_tick_labels_size_and_never_touch() -> None:
    """Issue 37: in Chromium the split labels were about 7 px high, and "27/5" and "28/4" touched."""
    kept = figures.TradeoffFigure().update(views.tradeoff_view())
    kept.png()
    renderer = kept.figure.canvas.get_renderer()
    names = {f"{s}/{32 - s}" for s in (*views.LESSON_SPLITS, views.SENSITIVITY_SPLIT)}
    for ax in kept.figure.axes:
        labels = [t for t in ax.texts if t.get_text() in names]
        assert len(labels) == len(names)
        tick = ax.get_xticklabels()[0].get_fontsize()
        assert all(t.get_fontsize() >= tick for t in labels)
        boxes = sorted((t.get_window_extent(renderer) for t in labels), key=lambda b: b.x0)
        for left, right in zip(boxes, boxes[1:], strict=False):
            assert right.x0 - left.x1 >= 4, "two split labels touch"
