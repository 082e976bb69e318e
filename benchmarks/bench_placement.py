"""How close each of lesson 003's live rounds comes to its ideal duration (run it; it prints figures).

    python benchmarks/bench_placement.py [--repeat 1]

For each placement row of the lesson (the first table's three rounds and the second
table's slot counts, 4 / 4 once) it runs a live round on 127.0.0.1 at the lesson's
numbers (40 calls per stream, notification 300 ms, catalog 5 ms) and prints the measured
duration against the ideal ``ceil(calls / slots) x latency`` (under one shared pool both
streams' waves share the slots). The goal is measured / ideal <= 1.10 for every row;
with ``--repeat N`` the median of N rounds is used. Exit status 1 if a row misses it.
"""

from __future__ import annotations

import argparse
import statistics
import sys

from bulkhead_lab.live.placement import run_placement_sync

GOAL = 1.10
ROWS = (
    ("single shared pool", "single", 4, 4, 0),
    ("pool per dependency", "separate", 4, 4, 0),
    ("pool per dependency + 8 skipped", "separate", 4, 4, 8),
    ("1 / 4", "separate", 1, 4, 0),
    ("40 / 4", "separate", 40, 4, 0),
    ("4 / 1", "separate", 4, 1, 0),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="rounds per row; the median counts")
    args = parser.parse_args(argv)
    print(f"{'row':<34}{'measured ms':>12}{'ideal ms':>10}{'ratio':>8}  goal <= {GOAL:.2f}")
    worst = 0.0
    for label, placement, notif, cat, skip in ROWS:
        results = [run_placement_sync(placement, notif, cat, skip) for _ in range(max(1, args.repeat))]
        measured = statistics.median(r.duration_ms for r in results)
        ideal = results[0].ideal_ms()
        ratio = measured / ideal
        worst = max(worst, ratio)
        verdict = "ok" if ratio <= GOAL else "MISSED"
        print(f"{label:<34}{measured:>12.0f}{ideal:>10.0f}{ratio:>8.3f}  {verdict}")
    print(f"worst ratio {worst:.3f} (goal <= {GOAL:.2f})")
    return 0 if worst <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
