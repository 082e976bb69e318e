"""Is ipympl's canvas faster than the panels' kept-figure PNG? The same figure, the same slider, both ways.

Issue 12 asked to measure, before adopting it, whether ipympl (matplotlib's widget backend) redraws a
slider's figure faster in the browser than the course's way: a kept figure repainted in place and sent
as one PNG into an Output widget. This benchmark builds one figure of the course's kind (notebook 01's
blocking figure: three curves, three marks and a title over a kept frame) twice in a scratch notebook:

- ``png``: a :class:`~bulkhead_lab.course.ui.blit.KeptFigure` in a
  :class:`~bulkhead_lab.course.ui.panel.SliderView`, as every seeded panel does; timed from the key's
  ``keydown`` to the new ``<img>``'s ``load`` (decoded);
- ``ipympl``: the same artists in an ipympl figure (``%matplotlib widget``), updated in place and
  ``canvas.draw_idle()``; timed from ``keydown`` to the canvas' next ``drawImage`` (ipympl draws each
  image it receives onto its ``<canvas>`` once decoded).

It needs ipympl, which the project does not install (pip install ipympl into the environment you run
it with); without it it says so and exits 0. Prints median and p90 per way over ``--moves`` moves.
Exit status: see ``bench.py`` (the comparison has no target; it always exits 0 when it measured).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench import REPO, load_line

sys.path.insert(0, str(REPO / "tests" / "e2e"))

import lab_driver as ld  # noqa: E402

NOTEBOOK = "ipympl_vs_png.ipynb"

SETUP = """
%matplotlib widget
import ipywidgets as w
import matplotlib.pyplot as plt
from bulkhead_lab.course.littles_law_sizing import figures, views
from bulkhead_lab.course.ui.panel import SliderView, slider

def view(slots):
    return views.littles_law_view(97.22, 0.06, slots)

# The course's way: a kept figure, one PNG per move.
kept = figures.BlockingFigure()
png = SliderView("png", {"slots": slider(w.IntSlider, "png", "slots", min=1, max=40, value=8)},
                 lambda slots: (slots, [kept.update(view(slots))], []))
png
"""


def _cells() -> list[str]:
    # The ipympl figure: BlockingFigure's own artists on a pyplot figure (ipympl draws pyplot figures).
    ipympl = """
plt.ioff()
fig = plt.figure(figsize=(10, 4.4), dpi=90)
fig.subplots_adjust(left=0.07, right=0.68, top=0.86, bottom=0.13)
shadow = figures.BlockingFigure()
ax = fig.add_subplot()
lines = [ax.plot([], [], color=l.get_color(), linestyle=l.get_linestyle(), marker=l.get_marker())[0]
         for l in shadow._ax.get_lines()]
ax.set_ylim(0, 1)
title = fig.suptitle("")
def draw(slots):
    v = view(slots)
    shadow.update(v)
    for mine, theirs in zip(lines, shadow._ax.get_lines()):
        mine.set_data(theirs.get_xdata(), theirs.get_ydata())
    ax.set_xlim(shadow._ax.get_xlim())
    title.set_text(shadow._title.get_text())
    fig.canvas.draw_idle()
draw(8)
s = slider(w.IntSlider, "ipympl", "slots", min=1, max=40, value=8)
s.observe(lambda change: draw(change["new"]), names="value")
box = w.VBox([s, fig.canvas])
box.add_class("bl-panel-ipympl")
box
"""
    return [SETUP.strip(), ipympl.strip()]


_HOOKS_JS = """
() => {
  window.__blT = {t0: null, png: null, canvas: null};
  document.addEventListener('keydown', () => {
    window.__blT = {t0: performance.now(), png: null, canvas: null};
  }, true);
  document.addEventListener('load', (e) => {
    if (e.target.tagName === 'IMG' && e.target.closest('.bl-view-png') && window.__blT.t0 !== null)
      window.__blT.png = performance.now();
  }, true);
  const draw = CanvasRenderingContext2D.prototype.drawImage;
  CanvasRenderingContext2D.prototype.drawImage = function (...args) {
    if (this.canvas.closest && this.canvas.closest('.bl-panel-ipympl') && window.__blT.t0 !== null)
      window.__blT.canvas = performance.now();
    return draw.apply(this, args);
  };
}
"""


def measure(page: Any, slider_name: str, key: str, moves: int) -> list[float]:
    times = []
    for i in range(moves):
        ld.press_slider(page, slider_name, "ArrowRight" if i % 2 == 0 else "ArrowLeft")
        page.wait_for_function(f"() => window.__blT.{key} !== null", timeout=30_000)
        times.append(page.evaluate(f"() => window.__blT.{key} - window.__blT.t0"))
        page.wait_for_timeout(400)  # let the kernel go idle before the next key
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=20, help="key presses per way (default 20)")
    args = parser.parse_args(argv)
    try:
        import ipympl  # type: ignore[import-not-found]  # noqa: F401  # optional: measured only where installed
    except ImportError:
        print("ipympl is not installed here (the project does not need it): pip install ipympl to measure")
        return 0
    print(load_line())
    cells: list[dict[str, Any]] = [
        {
            "cell_type": "code",
            "execution_count": None,
            "id": f"c{i}",
            "metadata": {},
            "outputs": [],
            "source": s,
        }
        for i, s in enumerate(_cells())
    ]
    nb = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    with tempfile.TemporaryDirectory(prefix="bench-ipympl-") as work, ld.launch_chromium() as browser:
        root = Path(work) / "nb"
        root.mkdir()
        (root / NOTEBOOK).write_text(json.dumps(nb))
        with ld.running_lab(root, Path(work) / "lab") as lab:
            page = browser.new_context(viewport=ld.VIEWPORT).new_page()
            page.add_init_script(f"({_HOOKS_JS})()")
            ld.open_notebook(page, lab, NOTEBOOK)
            ld.run_all(page)
            page.wait_for_timeout(2000)
            results = {
                "png (kept figure, <img> loaded)": measure(page, "png", "png", args.moves),
                "ipympl (canvas drawn)": measure(page, "ipympl", "canvas", args.moves),
            }
            lab.shutdown_kernels()
    print(f"{'way':<34}{'n':>4}{'median':>9}{'p90':>9}{'max':>9}   ms, key down -> figure on screen")
    for name, times in results.items():
        ordered = sorted(times)
        p90 = ordered[max(0, -(-9 * len(ordered) // 10) - 1)]
        print(f"{name:<34}{len(times):>4}{statistics.median(times):>9.0f}{p90:>9.0f}{max(times):>9.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
