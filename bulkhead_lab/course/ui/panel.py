"""Slider panels for every notebook: sliders in, one redrawn figure and table out.

A :class:`SliderView` redraws one output area from a notebook's pure view; :meth:`SliderView.set`
moves several sliders and redraws once, which is how a checked cell drives a panel and prints the
numbers nbval compares. CSS classes for the browser tests: ``bl-slider-<name>`` per slider,
``bl-view-<panel>`` per output area, ``bl-panel-<panel>`` per panel (scope by the panel's class).
"""

from __future__ import annotations

import asyncio
import base64
import signal
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

import ipywidgets as w
import pandas as pd
from IPython.display import display
from matplotlib.figure import Figure

from bulkhead_lab.course.ui.style import to_png
from bulkhead_lab.live.sync import Interrupted

BURST_S = 0.1  # moves closer together than this after a redraw are drawn once, at the burst's end
# A live panel's run starts once the moves have rested this long (a held arrow key repeats every 30 to
# 90 ms; a drag sends one move, at release); it is waited on top of the run (issue 23: 0.5 s in all).
LIVE_REST_S = 0.15
# The output area's class while a burst's trailing redraw is due or running: it runs from a timer, not
# from a kernel message, so the kernel's busy indicator does not show it; this does.
PENDING = "bl-pending"
SLIDER_STYLE = {"description_width": "13em"}
SLIDER_LAYOUT = w.Layout(width="38em")


class KeptFigure(Protocol):
    """A figure a panel keeps and redraws in place: its matplotlib figure and its PNG now."""

    figure: Figure

    def png(self) -> bytes: ...


Drawing = Figure | KeptFigure  # a figure drawn afresh, or one a panel keeps and redraws in place
Render = Callable[..., tuple[object, list[Drawing], Sequence[pd.DataFrame | str]]]


class SliderView:
    """Sliders redrawing one output area: ``render(**values)`` returns ``(result, figures, tables)``,
    and :attr:`result` keeps the latest result, so a cell can print the numbers it showed."""

    def __init__(
        self,
        name: str,
        controls: dict[str, w.ValueWidget],
        render: Render,
        extra: tuple[w.Widget, ...] = (),
        *,
        draw: bool = True,
        progress: LiveProgress | None = None,
    ) -> None:
        self.name = name
        self.controls = controls
        self._render = render
        self._quiet = False
        self._last_redraw = -float("inf")
        self._trailing: asyncio.TimerHandle | None = None
        self.result: Any = None
        self.play: w.Play | None = None
        self.progress = progress  # a live panel's bar, above its controls
        self.output = w.Output()
        self.output.add_class(f"bl-view-{name}")
        for control in controls.values():
            control.observe(self._changed, names="value")
        bar = () if progress is None else (progress.widget,)
        self.widget = w.VBox([*extra, *bar, *controls.values(), self.output])
        self.widget.add_class(f"bl-panel-{name}")
        if draw:  # draw=False: a panel that draws on its first slider move or set()
            self.redraw()

    def values(self) -> dict[str, Any]:
        """The sliders' current values, by parameter name, in the model's terms."""
        return {key: control.value for key, control in self.controls.items()}

    def _changed(self, _change: dict) -> None:
        """A slider moved: redraw now, or, inside a burst of moves, once at the burst's end (the latest
        values, :data:`BURST_S` after the last redraw; a live panel's run :data:`LIVE_REST_S` after the
        last move), the area carrying :data:`PENDING` meanwhile: redrawing each would queue stale ones."""
        if self._quiet:
            return
        loop = _running_loop()
        if self.progress is not None and loop is not None:  # live: one run once the moves rest
            if self._trailing is not None:
                self._trailing.cancel()
            self._trailing = loop.call_later(LIVE_REST_S, self._redraw_trailing)
            self.output.add_class(PENDING)
            return
        if self._trailing is not None:
            return  # a trailing redraw is already due; it will read the latest values
        since = time.monotonic() - self._last_redraw
        if loop is not None and since < BURST_S:
            self._trailing = loop.call_later(BURST_S - since, self._redraw_trailing)
            self.output.add_class(PENDING)
            return
        self._redraw_from_slider()

    def _redraw_trailing(self) -> None:
        self._trailing = None
        try:
            with _interruptible():
                self._redraw_from_slider()
        except KeyboardInterrupt:
            pass  # it landed after the redraw, before the handler was given back: nothing left to stop
        finally:
            self.output.remove_class(PENDING)

    def _redraw_from_slider(self) -> None:
        # A slider's callback has no cell to stop: an interrupted live run ends here, said
        # in the panel (its status and the figure's note), not as an error in the kernel's log.
        try:
            self.redraw()
        except KeyboardInterrupt:
            pass

    def redraw(self) -> None:
        """Recompute the view and replace the output area's figure and table, set as widget state, not
        printed: a cell that moves a slider shows only what it prints (JupyterLab, nbconvert, nbval)."""
        shown = self.output.outputs
        if self.progress is not None:
            # A live run takes seconds: until it ends, say whose figure is showing.
            self.progress.stale = bool(_drawn(shown))
            if self.progress.stale:
                self.output.outputs = (_stream(PREVIOUS_RUN), *_drawn(shown))
        try:
            try:
                self.result, figures, tables = self._render(**self.values())
            except ValueError as err:  # a learner sees one line, never a traceback
                self.output.outputs = (_stream(f"cannot draw this view: {err}\n"),)
                return
            except KeyboardInterrupt:
                note = INTERRUPTED_RUN if _drawn(shown) else "interrupted: no run finished yet\n"
                self.output.outputs = (_stream(note), *_drawn(shown))
                raise
            self.output.outputs = output_bundles(figures, tables)
        finally:
            self._last_redraw = time.monotonic()

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
        display_widget(self.widget, "Run this cell (or Run ▸ Run All Cells) to get these sliders.")


class _interruptible:
    """Kernel ▸ Interrupt reaches the code inside, as it reaches a cell: ipykernel installs Python's
    SIGINT handler only while it handles a message, and a trailing redraw runs from the loop's timer,
    between messages, where a live run could otherwise not be interrupted."""

    def __enter__(self) -> None:
        self._was: Any = None
        if threading.current_thread() is threading.main_thread():
            was = signal.getsignal(signal.SIGINT)
            if was is not None:  # None: a handler not set from Python, left alone
                self._was = signal.signal(signal.SIGINT, signal.default_int_handler)

    def __exit__(self, *exc: object) -> None:
        while self._was is not None:  # an interrupt landing here must not keep Python's handler in place
            try:
                signal.signal(signal.SIGINT, self._was)
                self._was = None
            except KeyboardInterrupt:
                continue


def display_widget(widget: w.Widget, fallback: str) -> None:
    """Display ``widget``, with ``fallback`` as its ``text/plain``: what JupyterLab shows of a saved
    notebook's widget until its cell runs again (by default a raw ``VBox(children=(...`` repr)."""
    bundle = widget._repr_mimebundle_()
    bundle["text/plain"] = fallback
    display(bundle, raw=True)


RUNNING = "running live on 127.0.0.1 ..."  # a live run's status until its first answer
STALE = "the figure below is still the previous run's"  # a live panel's status, while a run is in flight
PREVIOUS_RUN = "a live run is in flight: the figure below is the previous run's, not the sliders' values\n"
INTERRUPTED_RUN = (
    "interrupted: the figure below is the previous run's, not the sliders' values; "
    "move a slider to run again\n"
)


def _drawn(outputs: tuple[dict[str, Any], ...]) -> tuple[dict[str, Any], ...]:
    """The figure and table outputs of an output area, without its one-line notes."""
    return tuple(o for o in outputs if o.get("output_type") != "stream")


def _stream(text: str) -> dict[str, Any]:
    return {"output_type": "stream", "name": "stdout", "text": text}


def output_bundles(
    figures: list[Drawing], tables: Sequence[pd.DataFrame | str]
) -> tuple[dict[str, Any], ...]:
    """Figures as PNG (drawn once) and tables as pandas HTML, as an output area's outputs; a string
    among the tables is a one-line note (why a control's move changes nothing, say), shown as text."""
    bundles: list[dict[str, Any]] = []
    for drawing in figures:
        if isinstance(drawing, Figure):
            fig, raw = drawing, to_png(drawing)
        else:
            fig, raw = drawing.figure, drawing.png()
        png = base64.b64encode(raw).decode("ascii")
        width, height = fig.get_size_inches()
        text = f"<Figure size {width * fig.dpi:g}x{height * fig.dpi:g} with {len(fig.axes)} Axes>"
        bundles.append(
            {"output_type": "display_data", "data": {"image/png": png, "text/plain": text}, "metadata": {}}
        )
    for table in tables:
        if isinstance(table, str):
            bundles.append(_stream(table.rstrip("\n") + "\n"))
            continue
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


def choice(name: str, description: str, options: Any, value: Any) -> w.SelectionSlider:
    """A slider over named ``options`` (labels, or ``(label, value)`` pairs), as :func:`slider` makes."""
    return slider(w.SelectionSlider, name, description, options=options, value=value)


def toggle(
    name: str, description: str, options: Any, value: Any, *, label_width: str | None = None
) -> w.ToggleButtons:
    """Buttons in the learner's words, their label beside them like a slider's
    (``label_width`` wide, a slider's by default), classed ``bl-slider-<name>`` and ``bl-toggle``."""
    style = {**SLIDER_STYLE, "button_width": "auto"}
    if label_width is not None:
        style["description_width"] = label_width
    layout = w.Layout(width="auto")
    buttons = w.ToggleButtons(
        options=list(options), value=value, description=description, style=style, layout=layout
    )
    for cls in (f"bl-slider-{name}", "bl-toggle", "widget-inline-hbox"):
        buttons.add_class(cls)
    return buttons


def show_only(controls: Mapping[str, Any], chooser: str, shown: Mapping[Any, Collection[str]]) -> None:
    """Of the controls ``shown`` names, show only those it names for ``controls[chooser]``'s value, now and
    on every move (each given a layout of its own, so it hides alone): the sizes a variant has, say."""
    among = {name for names in shown.values() for name in names}
    for name in among:
        controls[name].layout = w.Layout(width=controls[name].layout.width)

    def show(choice: Any) -> None:
        for name in among:
            controls[name].layout.display = None if name in shown.get(choice, ()) else "none"

    controls[chooser].observe(lambda change: show(change["new"]), names="value")
    show(controls[chooser].value)


class LiveProgress:
    """A progress bar and status line for a live run that takes seconds (``on_progress`` is handed to
    the run); :attr:`stale`, set by :class:`SliderView`, says a previous run's figure is showing."""

    def __init__(self, name: str, unit: str = "answered", total: int = 1) -> None:
        self.unit = unit
        self.stale = False
        self.bar = w.IntProgress(value=0, min=0, max=total, description="live run", style=SLIDER_STYLE)
        self.bar.add_class(f"bl-progress-{name}")
        self.status = w.Label("")
        self.status.add_class(f"bl-status-{name}")
        self.widget = w.HBox([self.bar, self.status])

    @property
    def _note(self) -> str:
        return f"; {STALE}" if self.stale else ""

    def running(self, text: str = RUNNING) -> None:
        self.bar.value = 0
        self.bar.bar_style = "info"
        self.status.value = text + self._note

    def on_progress(self, done: int, total: int) -> None:
        self.bar.max = total
        self.bar.value = done
        self.status.value = f"{done}/{total} {self.unit}{self._note}"

    def done(self, text: str) -> None:
        self.bar.bar_style = "success"
        self.status.value = text

    def failed(self, text: str) -> None:
        self.bar.bar_style = "danger"
        self.status.value = text

    @contextmanager
    def shown(self, fallback: str, text: str = RUNNING) -> Iterator[LiveProgress]:
        """A cell's live run: show the bar under the cell (``fallback``: what a saved notebook shows of
        it until the cell runs again), say running, run the block; Kernel > Interrupt says where and why."""
        display_widget(self.widget, fallback)
        self.running(text)
        try:
            yield self
        except Interrupted as stop:
            self.interrupted(stop.why)
            raise

    @contextmanager
    def redrawing(self, what: str, text: str = RUNNING) -> Iterator[LiveProgress]:
        """A live panel's run of ``what`` (a batch, a load): say running, run the block; a ``ValueError``
        says ``cannot run this batch: ...``, Kernel > Interrupt whose figure is showing."""
        self.running(text)
        try:
            yield self
        except ValueError as err:  # the panel shows the one line too
            self.failed(f"cannot run this {what}: {err}")
            raise
        except Interrupted:  # the cell shows one line; the status says what the figure is
            self.interrupted()
            raise

    def interrupted(self, why: str | None = None) -> None:
        """``interrupted at 51/80 calls answered``, then why, or, in a panel, whose figure shows."""
        where = f"interrupted at {self.bar.value}/{self.bar.max} {self.unit}"
        if why is not None:
            self.failed(f"{where}: {why}")
        else:
            self.failed(f"{where}; {STALE}" if self.stale else f"{where}; no run finished yet")


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """The kernel's event loop, if this runs inside one (a slider's comm message); else None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
