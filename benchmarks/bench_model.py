"""How fast the seeded model is (run it; it prints figures and one verdict per target).

    python benchmarks/bench_model.py [--pairs 11]

Targets (medians on this machine):
- ``bulkhead-lab reproduce`` <= 0.5x the wall time of the lesson's own ``node bulkhead-run.mjs``
  (paired runs side by side; the lesson's script is read from $BULKHEAD_LAB_SEEDS);
- one 4,000-round run <= 5 ms once the stream exists;
- all 31 splits x both days <= 150 ms;
- 60,000 rounds <= 100 ms warm, with the cost per round linear (max/min <= 1.3x).

Exit status: see ``bench.py`` (0 all met, 1 one missed, 2 bad argument).
"""

from __future__ import annotations

import argparse
import functools
import shutil
import statistics
import subprocess
import sys
import time

from bench import Verdicts, load_line, median_ms, seeds_dir

from bulkhead_lab.pool.arrivals import arrival_stream
from bulkhead_lab.pool.params import MODES, Params
from bulkhead_lab.pool.rounds import run


def wall_ms(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - t0) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=11, help="paired reproduce/node runs")
    args = ap.parse_args()
    if args.pairs < 1:
        ap.error("--pairs must be >= 1")
    print(load_line())
    verdicts = Verdicts()
    line = verdicts.check
    script = seeds_dir() / "code" / "bulkhead-run.mjs"
    node = shutil.which("node")
    if node and script.exists():
        py_cmd = [sys.executable, "-m", "bulkhead_lab", "reproduce"]
        js_cmd = [node, str(script)]
        wall_ms(py_cmd), wall_ms(js_cmd)  # warm the file cache for both
        pairs = [(wall_ms(py_cmd), wall_ms(js_cmd)) for _ in range(args.pairs)]
        py = statistics.median(p for p, _ in pairs)
        js = statistics.median(j for _, j in pairs)
        ratio = statistics.median(p / j for p, j in pairs)
        print(f"reproduce: python {py:.1f} ms, node {js:.1f} ms (medians of {args.pairs} pairs)")
        line("reproduce / node, median of paired ratios", ratio, "x", "<= 0.5", ratio <= 0.5)
    else:
        print(f"node or the lesson's script ({script}) is missing: reproduce-vs-node not measured here")

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
        per_round[rounds] = median_ms(functools.partial(run, p, stream=s), 9)
    long = per_round[60_000]
    line("60,000 rounds (10-minute failure), warm", long, "ms", "<= 100", long <= 100)
    slope = [per_round[r] / r * 1e6 for r in per_round]
    spread = max(slope) / min(slope)
    print("ns per round at 15k/30k/60k rounds: " + ", ".join(f"{x:.0f}" for x in slope))
    line("linearity: max/min cost per round", spread, "x", "<= 1.3", spread <= 1.3)
    return verdicts.status()


if __name__ == "__main__":
    raise SystemExit(main())
