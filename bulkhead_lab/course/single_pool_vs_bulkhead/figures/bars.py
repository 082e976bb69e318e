"""The layout figure (drops per flow, beside lost sharing) and the idle-slots figure: bar charts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.artist import Artist
from matplotlib.figure import Figure

from bulkhead_lab.course.single_pool_vs_bulkhead.views import IdleView, LayoutView
from bulkhead_lab.course.ui.blit import KeptFigure, nice_ceiling, spines
from bulkhead_lab.course.ui.style import EVENT, IDLE, TRACKING
from bulkhead_lab.course.ui.style import figure as _figure
from bulkhead_lab.pool.params import TOTAL

DAYS = ("healthy", "slowdown")


def _bar_row(ax: Any, x: Sequence[float], color: str, label: str | None = None) -> list[Any]:
    return list(ax.bar(x, [0] * len(x), 0.4 if label else 0.6, color=color, label=label))


class LayoutFigure(KeptFigure):
    """Drops per flow for the single pool and a split on both days; beside it, the idle slots the
    other pool held at each rejection (lost sharing). Kept by the layout panel.

    The bars' heights, their numbers and the title move; the y scales move in steps (the
    frame is drawn again only then). Choosing the single pool instead of a split (or back)
    lays the figure out anew.
    """

    def __init__(self) -> None:
        super().__init__(10, 4.2, left=0.07, right=0.99, top=0.85, bottom=0.16, wspace=0.22)
        self._groups: int | None = None

    def _layout(self, groups: int) -> None:
        fig = self.rebuild()
        self._groups = groups
        drops, idle = fig.subplots(1, 2, width_ratios=[3, 2])
        days = [f"{layout}\n{day}" for layout in ("single pool", "bulkhead")[: groups // 2] for day in DAYS]
        x = list(range(groups))
        self._tracking = _bar_row(drops, [i - 0.2 for i in x], TRACKING, "tracking dropped")
        self._event = _bar_row(drops, [i + 0.2 for i in x], EVENT, "event dropped")
        self._idle = _bar_row(idle, x, IDLE)
        self._numbers = [drops.text(b.get_x() + 0.2, 0, "", ha="center", va="bottom") for b in self._tracking]
        self._numbers += [drops.text(b.get_x() + 0.2, 0, "", ha="center", va="bottom") for b in self._event]
        self._numbers += [idle.text(i, 0, "", ha="center", va="bottom") for i in x]
        drops.set_xticks(x, days)
        drops.set_ylabel("dropped requests in the 40 s run")
        drops.set_title("dropped requests per flow")
        drops.legend(loc="upper left", ncol=2)
        idle.set_xticks(x, days)
        idle.set_ylabel("idle slots next door per rejection")
        idle.set_title("lost sharing: idle slots at each rejection")
        for ax in (drops, idle):
            ax.grid(axis="x", visible=False)
        self._axes = (drops, idle)
        self._title = fig.suptitle("")

    def update(self, view: LayoutView, idle: IdleView) -> LayoutFigure:
        """Show ``view`` and ``idle`` (the same layout's idle slots per rejection)."""
        frame = view.frame
        if self._groups != len(frame):
            self._layout(len(frame))
        tracking, event = list(frame["tracking dropped"]), list(frame["event dropped"])
        per = list(idle.frame["idle slots per rejection"])
        for bar, v in zip(
            [*self._tracking, *self._event, *self._idle], [*tracking, *event, *per], strict=True
        ):
            bar.set_height(v)
        labels = [str(v) for v in (*tracking, *event)] + [f"{v:.2f}" for v in per]
        for text, bar, label in zip(
            self._numbers, [*self._tracking, *self._event, *self._idle], labels, strict=True
        ):
            text.set_y(bar.get_height())
            text.set_text(label)
        drops, idle_ax = self._axes
        drops.set_ylim(0, nice_ceiling(1.3 * max(tracking + event)))
        idle_ax.set_ylim(0, nice_ceiling(1.2 * max(per)))
        title = (
            f"Single pool ({TOTAL})"
            if view.split is None
            else f"Single pool ({TOTAL}) against bulkhead {view.label}"
        )
        self._title.set_text(title)
        return self

    def frame_key(self) -> object:
        return tuple(ax.get_ylim() for ax in self._axes)

    def moving(self) -> list[Artist]:
        bars = [*self._tracking, *self._event, *self._idle]
        return [*bars, *spines(*self._axes), *self._numbers, self._title]


def layout_figure(view: LayoutView, idle: IdleView) -> Figure:
    """Drops per flow for the single pool and the chosen layout on both days, beside the idle
    slots the other pool held at each rejection (a :class:`LayoutFigure` drawn once)."""
    return LayoutFigure().update(view, idle).figure


def idle_figure(view: IdleView) -> Figure:
    """At each rejection, how many slots sat idle in the other pool (zero in one pool by definition)."""
    fig = _figure(6, 4, left=0.12, right=0.98, top=0.9, bottom=0.16)
    ax = fig.subplots()
    frame = view.frame
    labels = [f"{layout.split(' (')[0]}\n{day}" for layout, day in frame.index]
    per = list(frame["idle slots per rejection"])
    x = list(range(len(labels)))
    ax.bar(x, per, 0.6, color=IDLE)
    for i, v in enumerate(per):
        ax.text(i, v, f"{v:.2f}", ha="center", va="bottom")
    ax.set_xticks(x, labels)
    ax.set_ylim(0, 1.2 * max(1.0, *per))
    ax.set_ylabel("idle slots next door per rejection")
    ax.set_title("lost sharing: idle slots at each rejection")
    ax.grid(axis="x", visible=False)
    return fig
