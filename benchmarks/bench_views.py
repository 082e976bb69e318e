"""Kernel time of one slider move, per slider of the seeded notebooks, measured on the panels themselves.

Run: ``.venv/bin/python benchmarks/bench_views.py [--repeat N]``

Each seeded panel (notebook 01's Little's Law panel, notebook 02's trade-off and
step-through panels, and those of notebooks 05, 06, 07, 08 and 09) is built as its notebook
builds it, then each of its sliders is moved with ``panel.set(slider=value)``: the panel
recomputes its view, redraws its kept figure in place, encodes one PNG and tabulates,
exactly what a move in the browser costs the kernel (the comm message aside). Per slider it
prints the median and the worst of ``--repeat`` moves, two ways:

- *memoised*: the slider moves back and forth between two values, as a learner does,
  so the runs are in the cache and the figure is what costs;
- *new values*: each move goes to a value not seen before (with the runs' cache as the
  move leaves it), so the model's runs for that value are computed too.

Targets (issue 12): kernel time per move <= 40 ms for the memoised median of every slider;
the new-value medians are printed beside them. Exit status: see ``bench.py``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import matplotlib

matplotlib.use("Agg")

from bench import Verdicts, load_line  # noqa: E402

from bulkhead_lab import memo  # noqa: E402
from bulkhead_lab.course.adaptive_limits import panels as panels05  # noqa: E402
from bulkhead_lab.course.choosing_compartments import panels as panels08  # noqa: E402
from bulkhead_lab.course.littles_law_sizing import panels as panels01  # noqa: E402
from bulkhead_lab.course.retries_and_budgets import panels as panels06  # noqa: E402
from bulkhead_lab.course.sharing_compartments import panels as panels09  # noqa: E402
from bulkhead_lab.course.single_pool_vs_bulkhead import panels as panels02  # noqa: E402
from bulkhead_lab.course.timeouts_and_queues import panels as panels07  # noqa: E402
from bulkhead_lab.course.ui.panel import SliderView  # noqa: E402

GOAL_MS = 40.0

# Per panel: how to build it, and per slider two values to move between and fresh values to move to.
Moves = dict[str, tuple[tuple[Any, Any], list[Any]]]
HOLDS: Moves = {
    "split": ((24, 25), [20, 21, 22, 23, 26, 27, 28, 18, 19, 17, 16]),
    "hold_tracking": ((4, 5), [3, 6, 7, 8, 9, 10, 11, 12, 2, 13, 14]),
    "hold_event": ((6, 7), [5, 8, 9, 10, 11, 12, 4, 13, 14, 3, 15]),
    "slow": ((22, 23), [24, 25, 26, 27, 28, 29, 30, 21, 20, 19, 31]),
    "start": ((1000, 1050), [1100, 1150, 1200, 950, 900, 850, 1250, 1300, 800, 1350, 1400]),
}
PANELS: dict[str, tuple[Callable[[], SliderView], Moves]] = {
    "01 littles-law": (
        panels01.littles_law_panel,
        {
            "slots": ((8, 9), [10, 11, 12, 7, 6, 5, 13, 14, 4, 15, 16]),
            "hold": ((0.06, 0.07), [0.08, 0.09, 0.05, 0.04, 0.1, 0.11, 0.12, 0.03, 0.13, 0.14, 0.15]),
            "arrival_rate": (
                (97.22, 98.0),
                [99.0, 100.0, 96.0, 95.0, 101.0, 102.0, 94.0, 93.0, 103.0, 104.0, 92.0],
            ),
            "target_headroom": ((2.5, 3.0), [3.5, 4.0, 2.0, 1.5, 4.5, 5.0, 1.0, 2.5, 3.0, 3.5, 4.0]),
        },
    ),
    "02 trade-off": (panels02.tradeoff_panel, HOLDS),
    "02 step-through": (
        panels02.step_through,
        {
            "round": ((1000, 1001), list(range(1002, 1013))),
            "split": ((24, 25), [20, 21, 22, 23, 26, 27, 28, 18, 19, 17, 16]),
        },
    ),
    "05 explore": (
        panels05.explore_panel,
        {
            "algorithm": (("AIMD", "Vegas"), ["Gradient2", "Envoy"]),
            "slow": ((22, 23), [24, 25, 26, 27, 28, 29, 30, 21, 20, 19, 31]),
            "length": ((3000, 2950), [2900, 2850, 2800, 2750, 2700, 2650, 2600, 2550, 2500, 2450, 2400]),
            "aimd_timeout": ((500, 21), [20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10]),
        },
    ),
    "05 explore Vegas": (
        lambda: panels05.explore_panel(algorithm="Vegas"),
        {"vegas_smoothing": ((1.0, 0.95), [0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5, 0.45, 0.4])},
    ),
    "05 explore Gradient2": (
        lambda: panels05.explore_panel(algorithm="Gradient2"),
        {"gradient2_tolerance": ((1.5, 1.6), [1.7, 1.8, 1.9, 2.0, 2.1, 2.2, 1.4, 1.3, 1.2, 1.1, 1.0])},
    ),
    "05 explore Envoy": (
        lambda: panels05.explore_panel(algorithm="Envoy"),
        {"envoy_request_count": ((50, 75), [100, 150, 200, 300, 400, 40, 30, 20, 10])},
    ),
    "05 drift": (
        panels05.drift_panel,
        {
            "length": ((3000, 2980), [2960, 2940, 2920, 2900, 2880, 2860, 2840, 2820, 2800, 2780, 2760]),
            "tolerance": ((1.5, 1.6), [1.7, 1.8, 1.9, 2.0, 2.1, 2.2, 1.4, 1.3, 1.2, 1.1, 1.0]),
        },
    ),
    # "slow_start" and "windowed" have two values only: their "new value" is one already seen.
    "05 slow-start": (
        panels05.slow_start_panel,
        {
            "initial": ((1, 2), [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]),
            "slow_start": ((True, False), [True]),
            "windowed": ((False, True), [False]),
        },
    ),
    # Notebook 06: few choices per slider, so fewer new values; "budget-scope" has two values only,
    # so its "new value" is one already seen (memoised).
    "06 retries": (
        lambda: panels06.retry_panel(budget="10% (SRE)"),
        {
            "split": ((24, 25), [20, 21, 22, 23, 26, 27, 28, 18, 19, 17, 16]),
            "attempts": ((3, 4), [2, 5, 6, 1]),
            "jitter": (("full", "equal"), ["none", "decorrelated", "at once"]),
            "base": ((10, 20), [5, 50, 2, 1]),
            "budget": (("10% (SRE)", "5%"), ["20%", "30%", "50%", "AWS quota", "none"]),
            "scope": (("each flow", "both flows"), ["each flow"]),
        },
    ),
    "06 storm": (
        panels06.storm_panel,
        {
            "split": ((24, 25), [20, 21, 22, 23, 26, 27, 28, 18, 19, 17, 16]),
            "attempts": ((3, 4), [2, 5, 6, 1]),
            "jitter": (("full", "equal"), ["none", "decorrelated", "at once"]),
            "budget": (("none", "5%"), ["10% (SRE)", "20%", "30%", "50%", "AWS quota"]),
            "stop": ((2000, 2100), [2200, 2300, 2400, 1900, 1800, 1700, 2500, 2600, 1600, 2700, 1500]),
        },
    ),
    # Notebook 07: the storm's panel, each slider over a few of its values (the fix's six in all).
    "07 storm": (
        panels07.storm_panel,
        {
            "rate": ((97.22, 110.0), [120.0, 130.0, 80.0, 60.0]),
            "timeout": ((30, 35), [40, 45, 50, 25, 20, 15, 55, 60, 10]),
            "bound": (("no bound", "20"), ["32", "40", "10", "5", "80"]),
            "attempts": ((3, 4), [2, 5, 1]),
            "budget": (("none", "10% (SRE)"), ["5%", "20%"]),
            "fix": (
                ("no fix", "CoDel-like timeout"),
                ["drop expired", "deadline drop", "adaptive LIFO", "bulkhead"],
            ),
        },
    ),
    # Notebook 08: the target has seven stops, the fleet a few dozen; the breaker replays the adaptive pool.
    "08 cost": (
        panels08.cost_panel,
        {"target": ((0.01, 0.02), [0.005, 0.05, 0.002, 0.1, 0.001])},
    ),
    "08 shards": (
        panels08.shard_panel,
        {
            "workers": ((8, 9), [10, 11, 12, 13, 14, 15, 16, 7, 6, 5, 4]),
            "size": ((2, 3), [4, 1]),
        },
    ),
    "08 breaker": (
        panels08.breaker_panel,
        {
            "ratio": ((0.5, 0.6), [0.7, 0.8, 0.9, 1.0, 0.4, 0.3, 0.2, 0.1]),
            "window": ((10, 11), [12, 13, 14, 15, 9, 8, 7, 6, 5, 16, 17]),
            "slow_call": ((10, 11), [12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22]),
            "slow": ((22, 23), [24, 25, 26, 27, 28, 29, 30, 21, 20, 19, 31]),
        },
    ),
    # Notebook 09: each panel's curves are drawn once; a move moves the mark and tabulates one stop.
    "09 soft": (panels09.soft_panel, {"share": ((0.875, 0.75), [0.625, 0.5, 0.375, 0.25, 0.125, 0.0, 1.0])}),
    "09 shed": (panels09.shed_panel, {"keep": ((8, 9), [10, 11, 12, 7, 6, 5, 4, 3, 13, 14, 15])}),
}


def _move_ms(panel: SliderView, slider: str, value: Any) -> float:
    t0 = time.perf_counter()
    panel.set(**{slider: value})
    return (time.perf_counter() - t0) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="moves per slider and case (default 10)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")
    print(load_line())
    verdicts = Verdicts()
    print(f"{'panel':<18}{'slider':<17}{'memoised median':>16}{'max':>8}{'new-value median':>18}{'max':>8}")
    memoised_all: list[float] = []
    for name, (build, moves) in PANELS.items():
        memo.clear()
        panel = build()  # drawn once, as the notebook's cell draws it
        for slider, ((a, b), fresh) in moves.items():
            panel.set(**{slider: a})
            panel.set(**{slider: b})  # both values seen: the back-and-forth below is memoised
            back_and_forth = [_move_ms(panel, slider, a if i % 2 == 0 else b) for i in range(args.repeat)]
            new = [_move_ms(panel, slider, v) for v in fresh[: args.repeat]]
            panel.set(**{slider: a})
            memoised_all += back_and_forth
            med = statistics.median(back_and_forth)
            print(
                f"{name:<18}{slider:<17}{med:>16.1f}{max(back_and_forth):>8.1f}"
                f"{statistics.median(new):>18.1f}{max(new):>8.1f}"
            )
            if med > GOAL_MS:
                verdicts.missed.append(f"{name}/{slider}")
    overall = statistics.median(memoised_all)
    print(
        f"all seeded sliders, memoised moves: median {overall:.1f} ms (goal <= {GOAL_MS:.0f} ms per slider)"
    )
    return verdicts.status()


if __name__ == "__main__":
    raise SystemExit(main())
