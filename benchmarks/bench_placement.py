"""How close each of lesson 003's live batches comes to its ideal duration (run it; it prints figures).

    python benchmarks/bench_placement.py [--repeat 1]

For each placement row of the lesson (the first table's three batches and the second
table's slot counts, 4 / 4 once) it runs a live batch on 127.0.0.1 at the lesson's
numbers (40 calls per stream, notification 300 ms, catalog 5 ms) and prints the measured
duration against the ideal ``ceil(calls / slots) x latency`` (under one shared pool both
streams' waves share the slots). The goal is measured / ideal <= 1.10 for every row;
with ``--repeat N`` the median of N batches is used. Exit status 1 if a row misses it.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys

from bench import Verdicts, load_line

from bulkhead_lab.live.placement.batch import run_placement
from bulkhead_lab.live.placement.pools import Placement

GOAL = 1.10
ROWS: tuple[tuple[str, Placement, int, int, int], ...] = (
    ("single shared pool", "single", 4, 4, 0),
    ("pool per dependency", "separate", 4, 4, 0),
    ("pool per dependency + 8 skipped", "separate", 4, 4, 8),
    ("1 / 4", "separate", 1, 4, 0),
    ("40 / 4", "separate", 40, 4, 0),
    ("4 / 1", "separate", 4, 1, 0),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="batches per row; the median counts")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")
    print(load_line())
    verdicts = Verdicts()
    print(f"{'row':<34}{'measured ms':>12}{'ideal ms':>10}{'ratio':>8}  goal <= {GOAL:.2f}")
    worst = 0.0
    repeat = args.repeat
    for label, placement, notif, cat, skip in ROWS:
        results = [asyncio.run(run_placement(placement, notif, cat, skip)) for _ in range(repeat)]
        measured = statistics.median(r.duration_ms for r in results)
        ideal = results[0].ideal_ms()
        ratio = measured / ideal
        worst = max(worst, ratio)
        verdict = "ok" if ratio <= GOAL else "MISSED"
        print(f"{label:<34}{measured:>12.0f}{ideal:>10.0f}{ratio:>8.3f}  {verdict}")
        if ratio > GOAL:
            verdicts.missed.append(label)
    print(f"worst ratio {worst:.3f} (goal <= {GOAL:.2f})")
    return verdicts.status()


if __name__ == "__main__":
    sys.exit(main())
