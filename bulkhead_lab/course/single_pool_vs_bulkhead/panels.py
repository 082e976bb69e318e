"""Notebook 02's slider panels: the trade-off against every split, and a step through the rounds.

Each is a :class:`~bulkhead_lab.course.ui.controls.SplitPanel` over :mod:`bulkhead_lab.course.ui.controls`'s
sliders, whose values reach the views as a :class:`~bulkhead_lab.pool.params.Params` (so
``panel.set(split=None)`` is the single pool). Panels replay the package's memoised runs, so a move is
instant; the notebook's own cells run the notebook's definitions.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from bulkhead_lab.course.single_pool_vs_bulkhead import figures, views
from bulkhead_lab.course.ui import controls
from bulkhead_lab.course.ui.panel import SliderView, slider
from bulkhead_lab.pool.params import LESSON_SPLIT, START, Params


def tradeoff_panel(split: int | None = LESSON_SPLIT) -> SliderView:
    """Drops per flow against every split on both days, the chosen split marked (one kept figure)."""
    figure = figures.TradeoffFigure()

    def render(**values: Any) -> Any:
        view = views.tradeoff_view(Params(**values))
        return view, [figure.update(view)], [view.table()]

    return controls.SplitPanel(
        "tradeoff", {"split": controls.split_slider(split), **controls.hold_sliders()}, render
    )


def step_through(split: int | None = LESSON_SPLIT) -> SliderView:
    """A Play control walking the rounds around the failure, each pool drawn as a compartment.

    Each tick of Play reaches the kernel, which draws that round and only then moves the round slider to
    it, so the slider's readout and the figure's caption change together. (A link in the browser moved
    the slider at once and the caption a redraw later: one round behind while playing.) Moving the slider
    moves Play too, so Play goes on from there.
    """
    first, last = START - 50, START + 250
    round_slider = slider(w.IntSlider, "round", "round", min=first, max=last, value=first)
    play = w.Play(min=first, max=last, step=1, interval=200, value=first, description="play")
    play.add_class("bl-play-round")
    figure = figures.CompartmentFigure()  # kept, and recoloured in place on every round

    def render(round: int, split: int | None) -> Any:
        view = views.compartment_view(round, Params(split=split))
        return view, [figure.update(view)], [view.frame]

    controls_ = {"round": round_slider, "split": controls.split_slider(split)}
    panel = controls.SplitPanel("step-through", controls_, render, extra=(w.HBox([play]),))

    def tick(change: dict[str, Any]) -> None:
        if change["new"] != round_slider.value:
            with round_slider.hold_sync():  # the slider's new value leaves after the redrawn figure
                panel.set(round=change["new"])

    def moved(change: dict[str, Any]) -> None:
        play.value = change["new"]

    play.observe(tick, names="value")
    round_slider.observe(moved, names="value")
    panel.play = play
    return panel
