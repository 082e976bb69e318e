"""Slider panels for notebooks 01 and 02: sliders in, one redrawn figure and table out.

Every panel is a :class:`SliderView`: named controls, one output area, and a redraw
that calls a pure view from :mod:`bulkhead_lab.views`, draws it with
:mod:`bulkhead_lab.plots` and shows the numbers behind it as a pandas table. Its
:meth:`SliderView.set` moves several sliders at once and redraws once, which is how a
checked notebook cell drives a panel and prints the numbers nbval compares.

CSS classes for the browser test: each slider ``bl-slider-<name>``, each output area
``bl-view-<panel>``, each whole panel ``bl-panel-<panel>`` (a notebook may hold two
panels with a split slider each; scope by the panel class).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import ipywidgets as w
import pandas as pd
from IPython.display import display
from ipywidgets.widgets.widget_link import Link
from matplotlib.figure import Figure

from . import plots, views
from .model import HOLD_EVENT, HOLD_TRACKING, LESSON_SPLIT, ROUNDS, SLOW, START, TOTAL

SINGLE_POOL = 0  # the split slider's value for "one shared pool"
SLIDER_STYLE = {"description_width": "13em"}
SLIDER_LAYOUT = w.Layout(width="38em")

Drawing = Figure | plots.TradeoffFigure  # a figure drawn afresh, or one a panel keeps and redraws in place
Render = Callable[..., tuple[object, list[Drawing], list[pd.DataFrame]]]


class SliderView:
    """A panel of sliders redrawing one output area from a pure view.

    ``render(**values)`` returns ``(result, figures, tables)``; the latest ``result``
    is kept in :attr:`result` so a notebook cell can print the numbers it showed.
    """

    def __init__(
        self,
        name: str,
        controls: dict[str, w.ValueWidget],
        render: Render,
        extra: tuple[w.Widget, ...] = (),
        *,
        draw: bool = True,
    ) -> None:
        self.name = name
        self.controls = controls
        self._render = render
        self._quiet = False
        self.result: Any = None
        self.play: w.Play | None = None
        self.link: Link | None = None
        self.output = w.Output()
        self.output.add_class(f"bl-view-{name}")
        for control in controls.values():
            control.observe(self._changed, names="value")
        self.widget = w.VBox([*extra, *controls.values(), self.output])
        self.widget.add_class(f"bl-panel-{name}")
        if draw:  # draw=False: a panel that draws on its first slider move or set()
            self.redraw()

    def values(self) -> dict[str, Any]:
        """The sliders' current values, by parameter name."""
        return {key: control.value for key, control in self.controls.items()}

    def _changed(self, _change: dict) -> None:
        if not self._quiet:
            self.redraw()

    def redraw(self) -> None:
        """Recompute the view from the sliders and replace the output area's figure and table.

        The output area's contents are set as widget state, not printed: a cell that moves
        a slider then shows only what it prints itself, in JupyterLab, under nbconvert and
        under nbval alike.
        """
        try:
            self.result, figures, tables = self._render(**self.values())
        except ValueError as err:  # a learner sees one line, never a traceback
            self.output.outputs = (_stream(f"cannot draw this view: {err}\n"),)
            return
        self.output.outputs = output_bundles(figures, tables)

    def set(self, **values: Any) -> Any:
        """Move several sliders at once, redraw once, and return the view's result."""
        unknown = sorted(set(values) - set(self.controls))
        if unknown:
            raise ValueError(f"slider must be one of {', '.join(self.controls)} (got {unknown[0]!r})")
        self._quiet = True
        try:
            for key, value in values.items():
                self.controls[key].value = value
        finally:
            self._quiet = False
        self.redraw()
        return self.result

    def _ipython_display_(self) -> None:
        display(self.widget)


def _stream(text: str) -> dict[str, Any]:
    return {"output_type": "stream", "name": "stdout", "text": text}


def output_bundles(figures: list[Drawing], tables: list[pd.DataFrame]) -> tuple[dict[str, Any], ...]:
    """Figures as PNG (drawn once) and tables as pandas HTML, as an output area's outputs."""
    bundles: list[dict[str, Any]] = []
    for drawing in figures:
        if isinstance(drawing, Figure):
            fig, raw = drawing, plots.to_png(drawing)
        else:
            fig, raw = drawing.figure, drawing.png()
        png = base64.b64encode(raw).decode("ascii")
        width, height = fig.get_size_inches()
        text = f"<Figure size {width * fig.dpi:g}x{height * fig.dpi:g} with {len(fig.axes)} Axes>"
        bundles.append(
            {"output_type": "display_data", "data": {"image/png": png, "text/plain": text}, "metadata": {}}
        )
    for table in tables:
        data = {"text/html": table._repr_html_(), "text/plain": table.to_string()}
        bundles.append({"output_type": "display_data", "data": data, "metadata": {}})
    return tuple(bundles)


# --- sliders -------------------------------------------------------------------------


def slider(cls: Any, name: str, description: str, **kwargs: Any) -> Any:
    """A slider (``cls``: IntSlider, FloatSlider, SelectionSlider ...) that redraws on release,
    labelled ``description`` and classed ``bl-slider-<name>`` for the browser tests."""
    widget = cls(
        description=description, style=SLIDER_STYLE, layout=SLIDER_LAYOUT, continuous_update=False, **kwargs
    )
    widget.add_class(f"bl-slider-{name}")
    return widget


class LiveProgress:
    """A progress bar and a status line for a live run that takes seconds.

    ``on_progress(done, total)`` is handed to the live run; :meth:`running`,
    :meth:`done` and :meth:`failed` frame it. Classed ``bl-progress-<name>`` and
    ``bl-status-<name>``.
    """

    def __init__(self, name: str, unit: str = "answered", total: int = 1) -> None:
        self.unit = unit
        self.bar = w.IntProgress(value=0, min=0, max=total, description="live run", style=SLIDER_STYLE)
        self.bar.add_class(f"bl-progress-{name}")
        self.status = w.Label("")
        self.status.add_class(f"bl-status-{name}")
        self.widget = w.HBox([self.bar, self.status])

    def running(self, text: str = "running live on 127.0.0.1 ...") -> None:
        self.bar.value = 0
        self.bar.bar_style = "info"
        self.status.value = text

    def on_progress(self, done: int, total: int) -> None:
        self.bar.max = total
        self.bar.value = done
        self.status.value = f"{done}/{total} {self.unit}"

    def done(self, text: str) -> None:
        self.bar.bar_style = "success"
        self.status.value = text

    def failed(self, text: str) -> None:
        self.bar.bar_style = "danger"
        self.status.value = text


def split_slider(value: int | None = LESSON_SPLIT) -> w.SelectionSlider:
    """The split: "single pool", then 1/31 .. 31/1 (tracking slots / event slots)."""
    options = [("single pool", SINGLE_POOL)] + [(views.split_label(s), s) for s in range(1, TOTAL)]
    return slider(
        w.SelectionSlider, "split", "split (tracking/event)", options=options, value=_to_slider(value)
    )


def _to_slider(split: int | None) -> int:
    return SINGLE_POOL if split is None else split


def _from_slider(value: int) -> int | None:
    return None if value == SINGLE_POOL else value


def hold_sliders(
    hold_tracking: int = HOLD_TRACKING, hold_event: int = HOLD_EVENT, slow: int = SLOW, start: int = START
) -> dict[str, w.ValueWidget]:
    """Tracking hold, event hold, slowdown hold (rounds) and the failure round."""
    return {
        "hold_tracking": slider(
            w.IntSlider, "tracking-hold", "tracking hold (rounds)", min=1, max=20, value=hold_tracking
        ),
        "hold_event": slider(
            w.IntSlider, "event-hold", "event hold (rounds)", min=1, max=20, value=hold_event
        ),
        "slow": slider(w.IntSlider, "slowdown-hold", "slowdown hold (rounds)", min=1, max=60, value=slow),
        "start": slider(
            w.IntSlider, "failure-round", "failure round", min=0, max=ROUNDS - 100, step=50, value=start
        ),
    }


def _model_args(values: dict[str, Any]) -> dict[str, Any]:
    args = dict(values)
    if "split" in args:
        args["split"] = _from_slider(args["split"])
    return args


# --- notebook 02's panels ------------------------------------------------------------


def layout_panel(split: int | None = LESSON_SPLIT, **holds: int) -> SliderView:
    """Single pool against one split on both days: drops per flow and rejections beside idle slots."""

    def render(**values: Any):
        args = _model_args(values)
        layout = views.layout_view(**args)
        idle = views.idle_view(**args)
        return layout, [plots.layout_figure(layout, idle)], [layout.frame]

    return SliderView("layout", {"split": split_slider(split), **hold_sliders(**holds)}, render)


def tradeoff_panel(split: int | None = LESSON_SPLIT, **holds: int) -> SliderView:
    """Drops per flow against every split on both days, the chosen split marked.

    The panel keeps one :class:`plots.TradeoffFigure` and redraws it in place.
    """
    figure = plots.TradeoffFigure()

    def render(**values: Any):
        view = views.tradeoff_view(**_model_args(values))
        return view, [figure.update(view)], [view.table()]

    return SliderView("tradeoff", {"split": split_slider(split), **hold_sliders(**holds)}, render)


def occupancy_panel(split: int | None = LESSON_SPLIT, **holds: int) -> SliderView:
    """Busy slots per pool around the failure, single pool above, the split's two pools below."""

    def render(**values: Any):
        view = views.occupancy_view(**_model_args(values))
        return view, [plots.occupancy_figure(view)], [view.summary()]

    return SliderView("occupancy", {"split": split_slider(split), **hold_sliders(**holds)}, render)


def step_through(
    split: int | None = LESSON_SPLIT,
    first: int = START - 50,
    last: int = START + 250,
    interval_ms: int = 200,
    **holds: int,
) -> SliderView:
    """A Play control walking the rounds around the failure, each pool drawn as a compartment.

    The Play button is linked to the round slider in the browser (``jslink``), so each
    tick moves the slider and the slider's change redraws the compartments.
    """
    round_slider = slider(w.IntSlider, "round", "round", min=first, max=last, value=first)
    play = w.Play(min=first, max=last, step=1, interval=interval_ms, value=first, description="play")
    play.add_class("bl-play-round")
    link = w.jslink((play, "value"), (round_slider, "value"))

    def render(**values: Any):
        args = _model_args(values)
        view = views.compartment_view(**args, **holds)
        return view, [plots.compartment_figure(view)], [view.frame]

    controls = {"round": round_slider, "split": split_slider(split)}
    panel = SliderView("step-through", controls, render, extra=(w.HBox([play]),))
    panel.play, panel.link = play, link  # kept so the link lives as long as the panel
    return panel


# --- notebook 01's panel -------------------------------------------------------------


def littles_law_panel(
    arrival_rate: float = 97.22, hold: float = 0.06, slots: int = 8, factor: float = 2.5
) -> SliderView:
    """Arrival rate, hold, pool size and headroom factor: Little's Law, Erlang-B and the model."""
    controls = {
        "arrival_rate": slider(
            w.FloatSlider,
            "arrival-rate",
            "arrival rate (calls/s)",
            min=1,
            max=300,
            step=0.01,
            value=arrival_rate,
        ),
        "hold": slider(w.FloatSlider, "hold", "hold (s)", min=0.01, max=0.5, step=0.01, value=hold),
        "slots": slider(w.IntSlider, "pool-size", "pool size (slots)", min=1, max=40, value=slots),
        "factor": slider(w.FloatSlider, "headroom", "headroom factor", min=1, max=5, step=0.5, value=factor),
    }

    def render(**values: Any):
        view = views.littles_law_view(**values)
        return view, [plots.blocking_figure(view)], [view.table()]

    return SliderView("littles-law", controls, render)
