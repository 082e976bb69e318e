"""How long a learner's first Run All takes, per notebook, from a fresh kernel.

    python benchmarks/bench_runall.py [NOTEBOOK ...] [--repeat 1]

Each notebook is run from a fresh kernel by nbclient, as JupyterLab's Run All does, on a copy
(the committed notebook is never rewritten), and every cell is timed. Printed per notebook: Run All
in seconds, the kernel's start apart, and the cells over one second (where the time goes).

Run All is timed from the first cell's start to the last cell's end. The kernel's own start (about
0.5 s here) is printed beside it, not counted: JupyterLab starts the kernel when the notebook opens, so
it is up before a learner presses Run All.

Targets:
- notebooks 03 and 04: Run All <= 20 s each;
- every notebook with a live section: Run All <= 1.5x its slowest cell. The slowest cell stands in
  for the longest single experiment; a cell that runs several experiments one after another counts
  as one here, so this ratio flatters a notebook whose cells are themselves serial.

Exit status: see ``bench.py`` (0 all met, 1 one missed, 2 bad argument).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from bench import REPO, Verdicts, load_line
from nbclient import NotebookClient

NOTEBOOKS = REPO / "notebooks"
CAPPED = {"03_pool_placement.ipynb": 20.0, "04_fail_fast_queue.ipynb": 20.0}  # Run All, seconds
LIVE_MARK = "bulkhead_lab.live"  # what a course package imports when its notebook runs live services


@dataclass
class RunAll:
    """One Run All: the wall time and each code cell's seconds (by cell index)."""

    notebook: str
    seconds: float = 0.0  # the first cell's start to the last cell's end
    kernel: float = 0.0  # the kernel's start, before the first cell
    cells: dict[int, float] = field(default_factory=dict)

    @property
    def slowest(self) -> tuple[int, float]:
        return max(self.cells.items(), key=lambda kv: kv[1], default=(-1, 0.0))


def run_all(path: Path) -> RunAll:
    """Run ``path`` from a fresh kernel, in the notebooks folder, timing each cell."""
    nb = nbformat.read(path, as_version=4)
    result, started, ended = RunAll(path.name), {}, {}

    def on_start(cell: object, cell_index: int) -> None:
        started[cell_index] = time.perf_counter()

    def on_executed(cell: object, cell_index: int, execute_reply: object) -> None:
        ended[cell_index] = time.perf_counter()
        result.cells[cell_index] = ended[cell_index] - started[cell_index]

    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOKS)}},
        on_cell_start=on_start,
        on_cell_executed=on_executed,  # on_cell_complete fires when the request is sent
    )
    t0 = time.perf_counter()
    client.execute()
    if started:
        result.kernel = min(started.values()) - t0
        result.seconds = max(ended.values()) - min(started.values())
    return result


def is_live(path: Path) -> bool:
    """The notebook has a live section: its course package (``NN_name`` -> ``course/name``) uses live/."""
    package = REPO / "bulkhead_lab" / "course" / path.stem[3:]
    return any(LIVE_MARK in f.read_text() for f in package.rglob("*.py"))


def report(runs: list[RunAll], live: bool, verdicts: Verdicts) -> None:
    seconds = statistics.median(r.seconds for r in runs)
    index, slowest = runs[0].slowest
    name = runs[0].notebook
    slow = ", ".join(f"cell {i} {s:.1f} s" for i, s in sorted(runs[0].cells.items()) if s >= 1.0)
    kernel = statistics.median(r.kernel for r in runs)
    print(
        f"{name}: Run All {seconds:.1f} s (median of {len(runs)}; kernel start {kernel:.1f} s apart); "
        f"cells over 1 s: {slow or 'none'}"
    )
    if name in CAPPED:
        cap = CAPPED[name]
        verdicts.check(f"{name[:2]} Run All", seconds, "s", f"<= {cap:g}", seconds <= cap)
    if live and slowest > 0:
        ratio = seconds / slowest
        verdicts.check(f"{name[:2]} Run All / slowest cell ({index})", ratio, "x", "<= 1.5", ratio <= 1.5)


def _notebook(name: str) -> Path:
    """A notebook by its number (``03``), its file name (``03_pool_placement.ipynb``) or a path to it."""
    numbered = sorted(NOTEBOOKS.glob(f"{name.zfill(2)}_*.ipynb")) if name.isdigit() else []
    return numbered[0] if len(numbered) == 1 else NOTEBOOKS / Path(name).name


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="*", help="notebooks by number or file name (default: all)")
    ap.add_argument("--repeat", type=int, default=1, help="Run Alls per notebook (the median is judged)")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be >= 1")
    paths = [_notebook(n) for n in args.notebooks] or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    missing = [p.name for p in paths if not p.is_file()]
    if missing:
        ap.error(f"no such notebook in notebooks/: {', '.join(missing)}")
    print(load_line())
    verdicts = Verdicts()
    for path in paths:
        report([run_all(path) for _ in range(args.repeat)], is_live(path), verdicts)
    print(load_line())
    return verdicts.status()


if __name__ == "__main__":
    sys.exit(main())
