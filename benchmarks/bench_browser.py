"""Slider move to redrawn figure, measured in the browser: real JupyterLab, Debian Chromium, arrow keys.

For each seeded notebook (01, 02, 05, 06 where they exist): open it, Run All, then find every slider
of every panel that has no live progress bar, and press an arrow key ``--moves`` times on it
(alternating right and left, so it stays at the values the notebook leaves it at), timing in the
page's own clock from the key's ``keydown`` to the moment the panel's ``<img src>`` changes (a
MutationObserver). Each move waits for the redraw to settle before the next key press. After the
moves (an even number) the slider is back where it started, so its figure must be the first one
again, byte for byte: otherwise a move was lost.

It also measures the *floor*: the same round trip for a slider whose callback only swaps a trivial
image of the same size (the cost of the comm message and the paint alone), in a scratch notebook.
Each panel's time reads as floor + its own redraw.

Targets (issue 12): on a quiet machine, over all moves of all seeded sliders, median <= 100 ms and
p90 <= 150 ms; with ``--busy`` (two CPU-bound processes beside the browser and kernel for the whole
run), p90 <= 300 ms; in both, no move lost.

A live panel (one with a progress bar: 03, 04, 05) runs a real HTTP experiment per move, which takes
seconds by design. ``--live`` also runs the live notebooks 03 and 04 and measures every live panel's
sliders with fewer moves, reported apart. Their goal (issue 23): each move's first figure within the
experiment's own duration plus 0.5 s. The duration is the one the panel's status line gives when the
figure lands (``done: 30 answered in 2.35 s``); a move back to a setting whose run the panel already
holds is drawn without running, and is reported, not judged.

Usage: .venv/bin/python benchmarks/bench_browser.py [--moves 20] [--busy] [--live] [--live-moves 3]
Exit status: see ``bench.py`` (0 targets met, 1 one missed, 2 bad argument).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import REPO, Verdicts, load_line

from bulkhead_lab.course.ui.panel import LIVE_REST_S

sys.path.insert(0, str(REPO / "tests" / "e2e"))

import lab_driver as ld  # noqa: E402 - the shared JupyterLab/Chromium driver lives with the e2e tests

MEDIAN_MS, P90_MS, BUSY_P90_MS = 100.0, 150.0, 300.0
LIVE_OVER_MS = 500.0  # a live move's first figure: at most this after its experiment's own duration
_RUN_TOOK = re.compile(r"(\d+(?:\.\d+)?) (ms|s)\b")  # the first duration in a live panel's status
SEEDED = ("01_", "02_", "05_", "06_", "07_", "08_", "09_")  # notebooks whose Run All takes seconds
LIVE = ("03_", "04_")
FLOOR_NOTEBOOK = "00_floor.ipynb"

# A panel whose redraw is as cheap as a redraw can be: the same machinery, a trivial image.
FLOOR_SOURCE = """
import ipywidgets as w
from bulkhead_lab.course.ui.blit import KeptFigure
from bulkhead_lab.course.ui.panel import SliderView, slider

class Floor(KeptFigure):
    def __init__(self):
        super().__init__(10, 4.4)
        self.text = self.figure.text(0.5, 0.5, "", ha="center")
    def update(self, n):
        self.text.set_text(str(n))
        return self
    def moving(self):
        return [self.text]

kept = Floor()
floor = SliderView("floor", {"n": slider(w.IntSlider, "floor", "n", min=0, max=100, value=50)},
                   lambda n: (n, [kept.update(n)], []))
floor
"""


@dataclass(frozen=True)
class Target:
    """One slider to move and the panel it redraws."""

    notebook: str
    panel: str
    slider: str
    live: bool = False

    @property
    def name(self) -> str:
        return f"{self.notebook[:2]} {self.panel}/{self.slider}"


_INSTALL_JS = """
(name) => {
  const el = document.querySelector(`.bl-view-${name}`);
  const src = () => { const i = el.querySelector('img'); return i ? i.getAttribute('src') : null; };
  window.__blLat = {t0: null, t1: null, src0: null};
  window.__blSrc = src;
  if (window.__blKeyListener) document.removeEventListener('keydown', window.__blKeyListener, true);
  window.__blKeyListener = () => { window.__blLat = {t0: performance.now(), t1: null, src0: src()}; };
  document.addEventListener('keydown', window.__blKeyListener, true);
  if (window.__blObserver) window.__blObserver.disconnect();
  window.__blObserver = new MutationObserver(() => {
    const L = window.__blLat;
    if (L.t0 === null || L.t1 !== null) return;
    const s = src();
    if (s && s !== L.src0) {
      L.t1 = performance.now();
      const status = document.querySelector(`.bl-panel-${name} [class*="bl-status-"]`);
      L.status = status ? status.textContent : null;  // a live panel's: what its run took
    }
  });
  window.__blObserver.observe(el, {subtree: true, childList: true, attributes: true,
                                   attributeFilter: ['src']});
}
"""

_DISCOVER_JS = """
() => [...document.querySelectorAll('[class*="bl-panel-"]')].flatMap((panel) => {
  const name = [...panel.classList].find((c) => c.startsWith('bl-panel-')).slice(9);
  const live = !!panel.querySelector('[class*="bl-progress-"]');
  const sliders = [...panel.querySelectorAll('[class*="bl-slider-"]')]
    .map((s) => [...s.classList].find((c) => c.startsWith('bl-slider-')).slice(10))
    .filter((s) => { const h = panel.querySelector(`.bl-slider-${s} .noUi-handle`);
                     return h && h.offsetParent !== null; });  // shown now: a panel hides what does not apply
  return [...new Set(sliders)].map((s) => [name, s, live]);
})
"""


@dataclass
class Moves:
    """One slider's moves: ms from key down to a changed image, the panel's status line at that moment
    (live panels), and whether every move landed (the slider's first figure again at the end)."""

    times: list[float]
    statuses: list[str | None]
    kept: bool = True

    def over(self) -> list[float]:
        """A live panel's moves: ms from key down to figure beyond the run's own duration (its status
        line's); a move drawn from a run the panel already held is left out."""
        found = []
        for took, status in zip(self.times, self.statuses, strict=True):
            match = _RUN_TOOK.search(status or "")
            if match is None or "not run again" in (status or ""):
                continue
            run_ms = float(match.group(1)) * (1.0 if match.group(2) == "ms" else 1000.0)
            found.append(took - run_ms)
        return found


def measure(page: Any, target: Target, moves: int) -> Moves:
    """``moves`` key presses on one slider: ms from key down to a changed image; and no move lost.

    The first press goes right, or left for a slider already at its right end; a slider whose
    move changes no figure (a setting the picture does not show) is reported with no times.
    """
    ld.wait_until_settled(page, target.panel, None, quiet_ms=300, complete=_image_only)
    page.evaluate(_INSTALL_JS, target.panel)
    first = page.evaluate("() => window.__blSrc()")
    found = Moves([], [])
    timeout = 180_000 if target.live else 30_000
    keys = ("ArrowRight", "ArrowLeft")
    start = ld.slider_value(page, target.slider, target.panel)
    ld.press_slider(page, target.slider, keys[0], 1, target.panel)
    # The readout moves in the page at once; the probe and its way back must come within a live
    # panel's rest, or the probe starts a run of its own.
    page.wait_for_timeout(LIVE_REST_S * 1000 / 3)
    if ld.slider_value(page, target.slider, target.panel) == start:  # at its right end: go left first
        keys = keys[::-1]
    else:  # the first move is measured below from here on
        ld.press_slider(page, target.slider, keys[1], 1, target.panel)
        ld.wait_until_settled(
            page, target.panel, None, timeout_ms=timeout, quiet_ms=300, complete=_image_only
        )
        page.evaluate(_INSTALL_JS, target.panel)
    for i in range(moves):
        ld.press_slider(page, target.slider, keys[i % 2], 1, target.panel)
        try:
            wait = timeout if found.times else 10_000
            page.wait_for_function("() => window.__blLat.t1 !== null", timeout=wait)
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: this slider changes no figure
            return Moves([], [])
        lat = page.evaluate("() => window.__blLat")
        found.times.append(lat["t1"] - lat["t0"])
        found.statuses.append(lat.get("status"))
        ld.wait_until_settled(
            page, target.panel, None, timeout_ms=timeout, quiet_ms=300, complete=_image_only
        )
    last = page.evaluate("() => window.__blSrc()")
    found.kept = moves % 2 == 1 or last == first
    return found


def _image_only(view: ld.View) -> bool:
    """A figure shows and no redraw is due: a live panel's trailing run (its moves rested, it runs
    from a timer, so the kernel's indicator stays idle) has drawn its figure too."""
    return not view.pending and bool(view.images) and all(view.images)


def p90(values: list[float]) -> float:
    """Nearest-rank 90th percentile (never above the max, also for a handful of live moves)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]


@contextmanager
def cpu_hogs(count: int):
    """``count`` CPU-bound processes for the length of the block (other work on both cores)."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def _floor_notebook(folder: Path) -> None:
    cell: dict[str, Any] = {
        "cell_type": "code",
        "execution_count": None,
        "id": "floor",
        "metadata": {},
        "outputs": [],
        "source": FLOOR_SOURCE.strip().splitlines(keepends=True),
    }
    nb = {
        "cells": [cell],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (folder / FLOOR_NOTEBOOK).write_text(json.dumps(nb))


def _kept(target: Target, moves: Moves) -> str:
    """Whether every move landed: a seeded figure is the first one again; a live run's differs by design."""
    if target.live:
        return "- (live: see below)"
    return "yes" if moves.kept else "NO"


def _report_live(results: list[tuple[Target, Moves]], verdicts: Verdicts) -> None:
    """Each live slider's moves beyond their runs' own durations, and the worst against the goal."""
    if not results:
        return
    print("\nlive moves: key down -> first figure, beyond the run's own duration (its status line), ms")
    print(f"{'slider':<36}{'runs':>5}{'median':>9}{'max':>9}  drawn without a run")
    over_all = []
    for target, m in results:
        over = m.over()
        over_all += over
        if over:
            print(f"{target.name:<36}{len(over):>5}{statistics.median(over):>9.0f}{max(over):>9.0f}", end="")
        else:
            print(f"{target.name:<36}{0:>5}{'-':>9}{'-':>9}", end="")
        print(f"  {len(m.times) - len(over)}")
    if over_all:
        worst = max(over_all)
        goal = f"<= {LIVE_OVER_MS:.0f}"
        verdicts.check("live move: figure beyond its run, worst", worst, "ms", goal, worst <= LIVE_OVER_MS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--moves", type=int, default=20, help="key presses per seeded slider (default 20, even)"
    )
    parser.add_argument("--busy", action="store_true", help="two CPU-bound processes beside the whole run")
    parser.add_argument("--live", action="store_true", help="also measure the live notebooks 03 and 04")
    parser.add_argument("--live-moves", type=int, default=2, help="key presses per live slider (default 2)")
    args = parser.parse_args(argv)
    if args.moves < 2 or args.moves % 2 or args.live_moves < 1:
        parser.error("--moves must be an even number >= 2 and --live-moves at least 1")

    kinds = SEEDED + (LIVE if args.live else ())
    notebooks = sorted(p.name for p in (REPO / "notebooks").glob("*.ipynb") if p.name.startswith(kinds))
    results: list[tuple[Target, Moves]] = []
    floor: list[float] = []
    started = time.monotonic()
    print(f"{'busy: two CPU hogs' if args.busy else 'quiet'}; {load_line()}", flush=True)
    try:
        with tempfile.TemporaryDirectory(prefix="bench-browser-") as work, ld.launch_chromium() as browser:
            root = Path(work) / "notebooks"
            root.mkdir()
            for nb in notebooks:
                shutil.copy(REPO / "notebooks" / nb, root / nb)
            _floor_notebook(root)
            with ld.running_lab(root, Path(work) / "lab") as lab, cpu_hogs(2 if args.busy else 0):
                for nb in [FLOOR_NOTEBOOK, *notebooks]:
                    context = browser.new_context(viewport=ld.VIEWPORT)
                    try:
                        page = context.new_page()
                        ld.open_notebook(page, lab, nb)
                        ld.run_all(page)
                        errors = ld.error_outputs(page)
                        if errors:
                            print(f"{nb}: cells show errors, not measured: {errors}")
                            continue
                        for panel, slider_name, live in page.evaluate(_DISCOVER_JS):
                            target = Target(nb, panel, slider_name, live)
                            if live and not args.live:
                                continue
                            n = args.live_moves if live else args.moves
                            moves = measure(page, target, n)
                            times = moves.times
                            if not times:
                                print(
                                    f"  {target.name}: its moves change no figure; not measured", flush=True
                                )
                                continue
                            if nb == FLOOR_NOTEBOOK:
                                floor += times
                            else:
                                results.append((target, moves))
                            print(
                                f"  {target.name}: {n} moves, median {statistics.median(times):.0f} ms",
                                flush=True,
                            )
                    finally:
                        lab.shutdown_kernels()
                        context.close()
    except ld.BrowserUnavailable as exc:
        print(f"browser benchmark not measured here: {exc}")
        return 0

    verdicts = Verdicts()
    print("\nslider move -> changed figure in Chromium (key down -> new <img src>), ms")
    print(f"{'slider':<36}{'n':>4}{'median':>9}{'p90':>9}{'max':>9}  no move lost")
    if floor:
        print(
            f"{'floor (trivial image)':<36}{len(floor):>4}{statistics.median(floor):>9.0f}"
            f"{p90(floor):>9.0f}{max(floor):>9.0f}"
        )
    for target, m in results:
        print(
            f"{target.name:<36}{len(m.times):>4}{statistics.median(m.times):>9.0f}{p90(m.times):>9.0f}"
            f"{max(m.times):>9.0f}  {_kept(target, m)}"
        )
    seeded = [t for target, m in results if not target.live for t in m.times]
    if seeded:
        med, high = statistics.median(seeded), p90(seeded)
        print(
            f"\nall seeded moves: n {len(seeded)}, median {med:.0f} ms, p90 {high:.0f} ms, "
            f"max {max(seeded):.0f} ms"
        )
        if args.busy:
            verdicts.check(
                "p90 of all seeded moves, busy", high, "ms", f"<= {BUSY_P90_MS:.0f}", high <= BUSY_P90_MS
            )
        else:
            verdicts.check(
                "median of all seeded moves, quiet", med, "ms", f"<= {MEDIAN_MS:.0f}", med <= MEDIAN_MS
            )
            verdicts.check("p90 of all seeded moves, quiet", high, "ms", f"<= {P90_MS:.0f}", high <= P90_MS)
        lost = [target.name for target, m in results if not m.kept and not target.live]
        verdicts.check("sliders with a lost move", len(lost), "", "0", not lost)
    _report_live([(target, m) for target, m in results if target.live], verdicts)
    print(f"wall time: {time.monotonic() - started:.0f} s; {load_line()}")
    return verdicts.status()


if __name__ == "__main__":
    raise SystemExit(main())
