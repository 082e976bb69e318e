"""What every benchmark shares: timing, the lessons' folder, and one rule for verdicts and exit codes.

Each ``bench_*.py`` states its targets in its own docstring, prints its figures (medians,
ratios), one verdict line per target, and exits with :meth:`Verdicts.status`:

- 0: every target met (or a target could not be measured here and says why);
- 1: at least one target missed (the figures are printed all the same);
- 2: a bad command-line argument (argparse's own rule).

Speed targets live here, never in the tests: the machine is shared, and a benchmark
prints what it measured beside the load it measured it under.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def seeds_dir() -> Path:
    """The lessons' folder: $BULKHEAD_LAB_SEEDS, else ../shared/seeds beside the repo (as the tests)."""
    return Path(os.environ.get("BULKHEAD_LAB_SEEDS", REPO.parent / "shared" / "seeds"))


def median_ms(fn: Callable[[], object], repeat: int, before: Callable[[], object] | None = None) -> float:
    """The median of ``repeat`` timings of ``fn()`` in milliseconds (``before()`` untimed, each time)."""
    samples = []
    for _ in range(repeat):
        if before is not None:
            before()
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)


def load_line() -> str:
    """The 1-minute load average and the core count, printed beside every figure set."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"1-minute load average {load:.2f} on {os.cpu_count()} cores"


class Verdicts:
    """Collects each target's verdict and prints one aligned line for it."""

    def __init__(self) -> None:
        self.missed: list[str] = []

    def check(self, name: str, value: float, unit: str, goal: str, ok: bool) -> bool:
        print(f"{name:<50}{value:>10.2f} {unit:<3} goal {goal:<10} {'ok' if ok else 'MISSED'}")
        if not ok:
            self.missed.append(name)
        return ok

    def status(self) -> int:
        if self.missed:
            print(f"missed {len(self.missed)} target(s): {', '.join(self.missed)}")
            return 1
        print("every target met")
        return 0
