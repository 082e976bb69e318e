"""How fast the seeded model is, against the issue's targets (run it; it prints figures).

    python benchmarks/bench_model.py [--pairs 11]

Figures are medians from one run on this machine; the targets are ratios or budgets:
reproduce <= 0.5x node's wall time (paired runs side by side), one 4,000-round run
<= 5 ms once the stream exists, all 31 splits x both days <= 150 ms, 60,000 rounds
<= 100 ms warm with cost linear in rounds.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bulkhead_lab.model import MODES, Params, arrival_stream, run

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO.parent / "shared" / "seeds" / "code" / "bulkhead-run.mjs"


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def wall_ms(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - t0) * 1000


def line(name: str, value: float, unit: str, goal: str, ok: bool) -> None:
    print(f"{name:<46}{value:>10.2f} {unit:<3} goal {goal:<10} {'ok' if ok else 'MISSED'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=11, help="paired reproduce/node runs")
    args = ap.parse_args()

    node = shutil.which("node")
    if node and SCRIPT.exists():
        py_cmd = [sys.executable, "-m", "bulkhead_lab", "reproduce"]
        js_cmd = [node, str(SCRIPT)]
        wall_ms(py_cmd), wall_ms(js_cmd)  # warm the file cache for both
        pairs = [(wall_ms(py_cmd), wall_ms(js_cmd)) for _ in range(args.pairs)]
        py = statistics.median(p for p, _ in pairs)
        js = statistics.median(j for _, j in pairs)
        ratio = statistics.median(p / j for p, j in pairs)
        print(f"reproduce: python {py:.1f} ms, node {js:.1f} ms (medians of {args.pairs} pairs)")
        line("reproduce / node, median of paired ratios", ratio, "x", "<= 0.5", ratio <= 0.5)
    else:
        print("node or the lesson's script is missing: reproduce-vs-node skipped")

    base = Params()
    t0 = time.perf_counter()
    stream = arrival_stream(base)
    print(f"drawing the 4,000-round arrival stream once: {(time.perf_counter() - t0) * 1000:.1f} ms")
    one = median_ms(lambda: run(base.with_(split=24, mode="slowdown"), stream=stream), 51)
    line("one 4,000-round run (24/8 slowdown)", one, "ms", "<= 5", one <= 5)

    def all_splits() -> None:
        for split in range(1, 32):
            for mode in MODES:
                run(base.with_(split=split, mode=mode), stream=stream)

    sweep = median_ms(all_splits, 9)
    line("31 splits x both days", sweep, "ms", "<= 150", sweep <= 150)

    per_round = {}
    for rounds in (15_000, 30_000, 60_000):
        p = Params(rounds=rounds, start=1000, split=24, mode="slowdown")
        s = arrival_stream(p)
        per_round[rounds] = median_ms(lambda p=p, s=s: run(p, stream=s), 9)
    long = per_round[60_000]
    line("60,000 rounds (10-minute failure), warm", long, "ms", "<= 100", long <= 100)
    slope = [per_round[r] / r * 1e6 for r in per_round]
    spread = max(slope) / min(slope)
    print("ns per round at 15k/30k/60k rounds: " + ", ".join(f"{x:.0f}" for x in slope))
    line("linearity: max/min cost per round", spread, "x", "<= 1.3", spread <= 1.3)


if __name__ == "__main__":
    main()
