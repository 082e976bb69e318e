"""One palette and one figure style for every notebook, and the PNG encoding panels send.

The palette is Okabe and Ito's (2008), chosen to stay distinct under the common colour-
vision deficiencies; each colour has one meaning in every notebook:

=====================  =========  ==================================================
role                   colour     used for
=====================  =========  ==================================================
:data:`TRACKING`       blue       the busy, healthy neighbour (tracking; catalog; Inventory)
:data:`EVENT`          orange     the flow whose dependency slows (events; notification; Payment)
:data:`REFUSED`        vermillion refusals and drops, and the moment a failure starts
:data:`IDLE`           sky blue   idle or free slots, waiting calls
:data:`THEORY`         purple     a formula's prediction (Erlang-B, an ideal duration)
:data:`LIMIT`          black      limits, pool sizes, the measured model points
:data:`NEUTRAL`        grey       the single shared pool as a whole, guides
:data:`EXTRA`          green, yellow  further series (an algorithm, a policy), in this order
=====================  =========  ==================================================

Figures are built on :class:`matplotlib.figure.Figure` directly, never through pyplot's
global list, so a slider callback leaks nothing and the notebook's inline backend shows
exactly the figure it is handed. Importing this module sets the text sizes every figure
uses (matplotlib reads them when a figure draws): at :data:`DPI`, 10-point tick labels
are 12.5 px, readable at the size a notebook shows them.
"""

from __future__ import annotations

import io
from typing import Any, cast

import matplotlib
from cycler import cycler
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

TRACKING = "#0072B2"  # Okabe-Ito blue
EVENT = "#E69F00"  # orange
REFUSED = "#D55E00"  # vermillion
IDLE = "#56B4E9"  # sky blue
THEORY = "#CC79A7"  # reddish purple
LIMIT = "#000000"  # black
NEUTRAL = "#999999"  # grey
EXTRA = ("#009E73", "#F0E442", "#56B4E9", "#CC79A7")  # bluish green, yellow, then reused roles
FAILURE = REFUSED  # the failure's start is marked in the refusals' colour: it is what causes them

DPI = 90  # the PNG's pixels per inch; a 10-inch figure is 900 px, the width of a notebook cell
TEXT_PT = 10  # tick labels and legends; titles one step larger

STYLE: dict[str, Any] = {
    "font.size": TEXT_PT,
    "axes.titlesize": TEXT_PT + 1,
    "axes.labelsize": TEXT_PT,
    "xtick.labelsize": TEXT_PT,
    "ytick.labelsize": TEXT_PT,
    "legend.fontsize": TEXT_PT - 1,
    "figure.titlesize": TEXT_PT + 2,
    "axes.prop_cycle": cycler(color=[TRACKING, EVENT, EXTRA[0], THEORY, IDLE, REFUSED]),
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.frameon": False,
}
cast(Any, matplotlib.rcParams).update(STYLE)  # typed per key; these keys are all valid


def figure(width: float, height: float, **margins: float) -> Figure:
    """A figure of ``width`` x ``height`` inches with fixed margins (``left=``, ``right=`` ...).

    Fixed margins instead of a layout engine: a layout pass costs as much as a draw,
    and a slider redraw has little time in all.
    """
    fig = Figure(figsize=(width, height), dpi=DPI)
    fig.subplots_adjust(**margins)
    return fig


def to_png(fig: Figure) -> bytes:
    """The figure as PNG bytes, drawn once (no tight-bbox second pass) and lightly compressed."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, pil_kwargs={"compress_level": 1})
    return buffer.getvalue()


def canvas_png(canvas: FigureCanvasAgg) -> bytes:
    """What an Agg canvas holds now, as PNG bytes (for figures redrawn in place)."""
    width, height = canvas.get_width_height(physical=True)
    image = Image.frombuffer("RGBA", (width, height), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="png", compress_level=1)
    return buffer.getvalue()
