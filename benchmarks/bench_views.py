"""Kernel time of one slider move per panel: recompute the view, draw the figure, render it, tabulate.

Run: ``.venv/bin/python benchmarks/bench_views.py [--repeat N]``

For every panel of notebooks 01 and 02 at the lesson's defaults it prints the median of
``--repeat`` timings of what a slider move costs in the kernel: the pure view, the
matplotlib figure, and the panel's output bundles exactly as a panel builds them
(``course.panel.output_bundles``: PNG drawn once with Agg, base64, pandas HTML table). Two cases:

- *replayed*: the memoised runs (and the trade-off's memoised compartments) are cleared
  first, so every run is replayed from the cached arrival stream: worse than any one
  slider move, which leaves part of the memo valid;
- *memoised*: the runs are already cached (a move of a slider that only marks a
  split, or a move back to a value seen before).

The trade-off panel keeps one figure and repaints only what moved over its kept frame
(``figures.TradeoffFigure``), as the panel does; its first draw, when the panel is built,
is timed once and printed apart. Then each trade-off slider is moved alone to values not
seen before, which times what a learner's move really replays (only the compartments
that read that slider).

Target: <= 150 ms per move (replayed). Exit status: see ``bench.py`` (0 all met, 1 one missed).
"""

from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Callable
from typing import Any

import matplotlib

matplotlib.use("Agg")

from bench import Verdicts, load_line, median_ms  # noqa: E402

from bulkhead_lab import cache  # noqa: E402
from bulkhead_lab.course.littles_law_sizing import figures as figures01  # noqa: E402
from bulkhead_lab.course.littles_law_sizing import views as views01  # noqa: E402
from bulkhead_lab.course.panel import output_bundles  # noqa: E402
from bulkhead_lab.course.single_pool_vs_bulkhead import figures, views  # noqa: E402
from bulkhead_lab.model import Params  # noqa: E402

GOAL_MS = 150.0


def _clear_runs() -> None:
    # Forget the runs, sweeps and compartments but keep the stream and its order, which a
    # kernel draws once before any slider exists.
    cache.clear()
    cache.stream(Params())
    cache.stream_order(Params())


def _redraw(view_fn: Callable[[], object], fig_fn, table_fn) -> None:
    view = view_fn()
    output_bundles(fig_fn(view), table_fn(view))


TRADEOFF_FIGURE = figures.TradeoffFigure()

PANELS: dict[str, tuple[Callable[[], Any], Callable[[Any], list], Callable[[Any], list]]] = {
    "littles-law (01)": (
        views01.littles_law_view,
        lambda v: [figures01.blocking_figure(v)],
        lambda v: [v.table()],
    ),
    "layout (02)": (
        views.layout_view,
        lambda v: [figures.layout_figure(v, views.idle_view(views.LESSON))],
        lambda v: [v.frame],
    ),
    "tradeoff (02)": (
        views.tradeoff_view,
        lambda v: [TRADEOFF_FIGURE.update(v)],  # the panel keeps its figure and redraws it in place
        lambda v: [v.table()],
    ),
    "occupancy (02)": (
        views.occupancy_view,
        lambda v: [figures.occupancy_figure(v)],
        lambda v: [v.summary()],
    ),
    "step-through (02)": (
        views.compartment_view,
        lambda v: [figures.compartment_figure(v)],
        lambda v: [v.frame],
    ),
}


_time = median_ms


def _tradeoff_moves(repeat: int, verdicts: Verdicts) -> None:
    """Each trade-off slider moved to values not seen before: only what it touches is rerun."""
    print("trade-off panel, one slider moved to a new value (median ms; other sliders at defaults):")
    moves = {
        "tracking hold": ("hold_tracking", [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]),
        "event hold": ("hold_event", [7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]),
        "slowdown hold": ("slow", list(range(23, 60))),
        "failure round": ("start", list(range(1050, 3900, 50))),
        "split": ("split", list(range(1, 32))),
    }
    for name, (slider, values) in moves.items():
        _clear_runs()
        _redraw(views.tradeoff_view, *PANELS["tradeoff (02)"][1:])  # the defaults, as the panel opens
        fresh = iter(values[:repeat])

        def move(slider: str = slider, fresh: Any = fresh) -> None:
            value = next(fresh)
            _redraw(lambda: views.tradeoff_view(Params(**{slider: value})), *PANELS["tradeoff (02)"][1:])

        ms = _time(move, min(repeat, len(values)))
        verdicts.check(f"  trade-off, {name} moved", ms, "ms", f"<= {GOAL_MS:.0f}", ms <= GOAL_MS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timings per case (median reported)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")
    cache.clear()
    t0 = time.perf_counter()
    cache.stream(Params())  # drawn once per kernel, before any slider exists
    print(f"arrival stream drawn once: {1000 * (time.perf_counter() - t0):.1f} ms")
    t0 = time.perf_counter()
    cache.stream_order(Params())  # the shuffled order's per-round sums the split sweep reads, once
    print(f"round order tabulated once: {1000 * (time.perf_counter() - t0):.1f} ms")
    t0 = time.perf_counter()
    TRADEOFF_FIGURE.update(views.tradeoff_view()).png()  # the frame is rendered when the panel is built
    print(f"trade-off panel's first draw (frame kept): {1000 * (time.perf_counter() - t0):.1f} ms")
    print(f"median of {args.repeat} per case; {load_line()}")
    print(f"{'panel':<20}{'replayed ms':>14}{'memoised ms':>14}{'goal ms':>10}  verdict")
    verdicts = Verdicts()
    worst = 0.0
    for name, (view_fn, fig_fn, table_fn) in PANELS.items():
        move = functools.partial(_redraw, view_fn, fig_fn, table_fn)

        replayed = _time(move, args.repeat, before=_clear_runs)
        move()  # fill the memo
        memoised = _time(move, args.repeat)
        worst = max(worst, replayed)
        verdict = "ok" if replayed <= GOAL_MS else "over goal when runs are replayed"
        print(f"{name:<20}{replayed:>14.1f}{memoised:>14.1f}{GOAL_MS:>10.0f}  {verdict}")
        if replayed > GOAL_MS:
            verdicts.missed.append(name)
    print(f"worst replayed move: {worst:.1f} ms ({worst / GOAL_MS:.2f} x the goal)")
    _tradeoff_moves(args.repeat, verdicts)
    return verdicts.status()


if __name__ == "__main__":
    raise SystemExit(main())
