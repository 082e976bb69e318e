"""Section 5's figures: Gradient2's drift, Vegas from a low start, reaction against stability."""

from __future__ import annotations

import math

from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from bulkhead_lab.course.adaptive_limits.views import DriftView, RampView, ReactionView, Tuned
from bulkhead_lab.course.ui.blit import KeptFigure, moving_title, spines
from bulkhead_lab.course.ui.style import EVENT, EXTRA, FAILURE, LIMIT, NEUTRAL, TRACKING

ALGORITHM = EXTRA[0]  # an algorithm's own estimate (Gradient2's baseline, its layout's drops)
DRIFT_FROM = 800  # the drift figure starts 200 rounds before the failure


def axis_top(value: float) -> float:
    """The least of 1, 1.5, 2, 3, 4, 5, 6, 8 x 10^k at or above ``value``: an axis that rescales in
    steps (its frame is drawn again only when a move crosses one) yet wastes at most a third."""
    value = max(value, 1.0)
    power = 10 ** math.floor(math.log10(value))
    return next(m * power for m in (1, 1.5, 2, 3, 4, 5, 6, 8, 10) if m * power >= value)


class DriftFigure(KeptFigure):
    """Gradient2 on the event flow: its limit, its baseline (long average RTT) and what the tracking
    flow drops, through a slowdown of the chosen length. Kept by the drift panel.

    The round the limit is back where it started is marked across the three axes; the tracking
    axis' scale moves in steps (a new step draws the frame again).
    """

    def __init__(
        self, total: int = 32, rounds: int = 4000, start: int = 1000, slow: int = 22, hold: int = 6
    ) -> None:
        super().__init__(10, 6.8, left=0.1, right=0.72, top=0.92, bottom=0.09, hspace=0.18)
        limit_ax, base_ax, drop_ax = self.figure.subplots(3, 1, sharex=True)
        (self._limit,) = limit_ax.plot(
            [], [], color=LIMIT, linewidth=1.4, drawstyle="steps-post", label="event limit (Gradient2)"
        )
        self._before = limit_ax.axhline(
            0, color=NEUTRAL, linestyle="--", linewidth=1, label="its level when the slowdown starts"
        )
        (self._back,) = limit_ax.plot([], [], "o", color=FAILURE, ms=8, label="back at that level")
        limit_ax.set_ylim(0, total + 2)
        limit_ax.set_ylabel("event limit (slots)")
        (self._baseline,) = base_ax.plot(
            [], [], color=ALGORITHM, linewidth=1.6, label="baseline: Gradient2's long average RTT"
        )
        base_ax.axhline(slow, color=EVENT, linestyle="--", linewidth=1, label=f"a slow call: {slow} rounds")
        base_ax.axhline(hold, color=EVENT, linestyle=":", linewidth=1, label=f"a normal call: {hold} rounds")
        base_ax.set_ylim(0, slow * 1.15)
        base_ax.set_ylabel("round trip (rounds)")
        self._drops = {
            "Gradient2": drop_ax.plot([], [], color=ALGORITHM, linewidth=1.6, label="Gradient2 on events")[0],
            "single pool (32)": drop_ax.plot([], [], color=NEUTRAL, linewidth=1.6, label="single pool (32)")[
                0
            ],
            "24/8": drop_ax.plot([], [], color=LIMIT, linewidth=1.6, linestyle="--", label="24/8")[0],
        }
        drop_ax.set_ylabel("tracking dropped\nsince the failure")
        drop_ax.set_xlabel("round (100 rounds = 1 s), slowdown day")
        self._ends: list[Line2D] = []
        self._backs: list[Line2D] = []
        for ax in (limit_ax, base_ax, drop_ax):
            ax.axvline(start, color=FAILURE, linewidth=1.5, label="slowdown starts")
            self._ends.append(
                ax.axvline(rounds, color=FAILURE, linestyle=":", linewidth=1.5, label="slowdown ends")
            )
            self._backs.append(ax.axvline(rounds, color=FAILURE, linestyle="-", alpha=0.35, linewidth=3))
            ax.set_xlim(DRIFT_FROM, rounds)
            ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
        self._axes = (limit_ax, base_ax, drop_ax)
        self._title = self.figure.suptitle("")

    def update(self, view: DriftView) -> DriftFigure:
        """Show ``view``: the limit, the baseline and the tracking drops, the slowdown's end, the return."""
        rounds = list(range(len(view.event_limit)))
        self._limit.set_data(rounds, list(view.event_limit))
        self._baseline.set_data(rounds, list(view.baseline))
        self._before.set_ydata([view.drift.before] * 2)
        for name, line in self._drops.items():
            line.set_data(rounds, list(view.tracking_since[name]))
        lasts = view.stop >= view.rounds
        for end in self._ends:
            end.set_xdata([view.stop] * 2)
            end.set_visible(not lasts)
        back = view.back_at
        self._back.set_visible(back is not None)
        for line in self._backs:
            line.set_visible(back is not None)
            if back is not None:
                line.set_xdata([back] * 2)
        if back is not None:
            self._back.set_data([back], [view.event_limit[back]])
            when = f"back at {view.drift.before} in round {back} ({back - view.start} rounds in)"
        else:
            when = f"still down when it ends (lowest {view.drift.lowest})"
        top = max(max(series) for series in view.tracking_since.values())
        self._axes[2].set_ylim(0, axis_top(1.1 * top))
        self._title.set_text(
            f"Gradient2, tolerance {view.tolerance:g}, slowdown {view.drift.slowdown_rounds} rounds: "
            f"event limit {when}"
        )
        return self

    def frame_key(self) -> object:
        return self._axes[2].get_ylim()

    def moving(self) -> list[Artist]:
        lines = [self._limit, self._before, self._baseline, *self._drops.values(), *self._ends, *self._backs]
        return [*lines, self._back, *spines(*self._axes), self._title]


def drift_figure(view: DriftView) -> Figure:
    """Gradient2's drift for ``view`` (a :class:`DriftFigure` drawn once)."""
    return DriftFigure().update(view).figure


class RampFigure(KeptFigure):
    """Vegas' tracking limit from a low start on the healthy day, rounds on a log scale: the chosen
    ramp, and the same ramp with slow start the other way (dashed). Kept by the slow-start panel."""

    def __init__(self, rounds: int = 4000, target: int = 24, total: int = 32) -> None:
        super().__init__(10, 4.2, left=0.08, right=0.72, top=0.86, bottom=0.15)
        ax = self.figure.subplots()
        (self._chosen,) = ax.plot(
            [], [], color=LIMIT, linewidth=1.6, drawstyle="steps-post", label="Vegas' limit, as chosen"
        )
        (self._other,) = ax.plot(
            [],
            [],
            color=NEUTRAL,
            linewidth=1.4,
            linestyle="--",
            drawstyle="steps-post",
            label="the same, slow start the other way",
        )
        (self._mark,) = ax.plot([], [], "o", color=TRACKING, ms=8, label=f"reaches {target}")
        ax.axhline(
            target,
            color=TRACKING,
            linestyle=":",
            linewidth=1.2,
            label=f"the lesson's tracking compartment ({target})",
        )
        ax.set_xscale("log")
        ax.set_xlim(1, rounds)
        ax.set_ylim(0, total + 2)
        ax.set_xlabel("round, log scale (100 rounds = 1 s), healthy day")
        ax.set_ylabel("tracking limit (slots)")
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
        self._ax = ax
        self._title = self.figure.suptitle("")
        self._subtitle = moving_title(ax)

    def update(self, view: RampView) -> RampFigure:
        """Show ``view``'s chosen ramp, its slow-start twin, and when each reaches the compartment."""
        chosen, other = view.chosen, view.other
        for line, ramp in ((self._chosen, chosen), (self._other, other)):
            line.set_data(range(1, len(ramp.tracking_limit)), ramp.tracking_limit[1:])
        self._mark.set_visible(chosen.reached_at is not None)
        if chosen.reached_at is not None:
            self._mark.set_data([max(1, chosen.reached_at)], [chosen.tracking_limit[chosen.reached_at]])

        def when(at: int | None) -> str:
            return "never in the run" if at is None else f"round {at} ({at / view.cycle:g} s)"

        updates = "once a second (WindowedLimit)" if view.windowed else "every call"
        on, off = ("on", "off") if view.slow_start else ("off", "on")
        self._title.set_text(f"Vegas from limit {view.initial}, updated {updates}, slow start {on}")
        reached, twin = when(chosen.reached_at), when(other.reached_at)
        self._subtitle.set_text(f"reaches {chosen.target}: {reached}; with slow start {off}: {twin}")
        return self

    def moving(self) -> list[Artist]:
        return [self._other, self._chosen, self._mark, *spines(self._ax), self._title, self._subtitle]


def ramp_figure(view: RampView) -> Figure:
    """Vegas from a low start (a :class:`RampFigure` drawn once)."""
    return RampFigure().update(view).figure


REACTION_WINDOW = (900, 1500)  # the slowdown day's rounds the reaction axes show


class ReactionFigure(KeptFigure):
    """Vegas' smoothing (top) and Gradient2's tolerance (bottom): the event limit on the healthy day
    from the failure round on (how much it moves when nothing happens) and on the slowdown day
    around the failure (how fast it falls), your value in black, the source's default dashed."""

    def __init__(self, total: int = 32, rounds: int = 4000, start: int = 1000) -> None:
        super().__init__(10, 6.0, left=0.08, right=0.98, top=0.84, bottom=0.1, hspace=0.55, wspace=0.12)
        axes = self.figure.subplots(2, 2, sharey=True, width_ratios=[1.6, 1])
        self._lines: list[tuple[Line2D, Line2D, Line2D, Line2D]] = []
        self._titles = []
        for row in axes:
            calm, react = row
            chosen_h = calm.plot(
                [], [], color=LIMIT, linewidth=1.3, drawstyle="steps-post", label="your value"
            )[0]
            default_h = calm.plot(
                [],
                [],
                color=NEUTRAL,
                linewidth=1.3,
                linestyle="--",
                drawstyle="steps-post",
                label="the source's default",
            )[0]
            default_s = react.plot(
                [], [], color=NEUTRAL, linewidth=1.3, linestyle="--", drawstyle="steps-post"
            )[0]
            chosen_s = react.plot([], [], color=LIMIT, linewidth=1.3, drawstyle="steps-post")[0]
            react.axvline(start, color=FAILURE, linewidth=1.5, label="slowdown starts")
            calm.set_xlim(start, rounds)
            react.set_xlim(*REACTION_WINDOW)
            calm.set_ylim(0, total + 2)
            calm.set_ylabel("event limit (slots)")
            self._lines.append((default_h, chosen_h, default_s, chosen_s))
            title = moving_title(calm)
            title.set_horizontalalignment("left")
            title.set_x(0.0)
            self._titles.append(title)
        axes[0][0].set_title("healthy day: calm, nothing to react to", fontsize="medium", loc="left", pad=20)
        axes[0][1].set_title("slowdown day: the reaction", fontsize="medium", pad=20)
        for ax in axes[1]:
            ax.set_xlabel("round (100 rounds = 1 s)")
        handles = [*axes[0][0].get_legend_handles_labels()[0], *axes[0][1].get_legend_handles_labels()[0]]
        labels = [*axes[0][0].get_legend_handles_labels()[1], *axes[0][1].get_legend_handles_labels()[1]]
        self.figure.legend(
            handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.955), ncol=3, fontsize=8
        )
        self.figure.suptitle(
            "Smoothing and tolerance: reaction speed against stability (event flow)", y=0.995
        )
        self._axes = [ax for row in axes for ax in row]

    def update(self, view: ReactionView) -> ReactionFigure:
        """Show ``view``: each algorithm's event limit at your value and at its default, both days."""
        for (default_h, chosen_h, default_s, chosen_s), title, tuned in zip(
            self._lines, self._titles, (view.vegas, view.gradient2), strict=True
        ):
            for line, series in ((chosen_h, tuned.healthy[0]), (default_h, tuned.healthy[1])):
                line.set_data(range(view.start, len(series)), series[view.start :])
            low, high = REACTION_WINDOW
            for line, series in ((chosen_s, tuned.slowdown[0]), (default_s, tuned.slowdown[1])):
                line.set_data(range(low, high), series[low:high])
            title.set_text(_reaction_text(tuned))
        return self

    def moving(self) -> list[Artist]:
        lines = [line for group in self._lines for line in group]
        return [*lines, *spines(*self._axes), *self._titles]


def _reaction_text(tuned: Tuned) -> str:
    # Short: text is the costly part of a redraw, and the table under the figure has the numbers.
    r = tuned.chosen
    fall = "never falls" if r.reaction is None else f"half its fall in {r.reaction} rounds"
    return f"{tuned.algorithm}, {tuned.setting} {tuned.value:g}: {fall}"


def reaction_figure(view: ReactionView) -> Figure:
    """Reaction against stability (a :class:`ReactionFigure` drawn once)."""
    return ReactionFigure().update(view).figure
