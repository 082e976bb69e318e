"""One palette and one figure style for every notebook, and the PNG encoding panels send.

Figures are built on :class:`matplotlib.figure.Figure` directly, never through pyplot's
global list, so a slider callback leaks nothing and the notebook's inline backend
shows exactly the figure it is handed.
"""

from __future__ import annotations

import io

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

TRACKING_COLOR = "tab:blue"
EVENT_COLOR = "tab:orange"
SINGLE_COLOR = "tab:gray"
FAILURE_COLOR = "tab:red"


def figure(width: float, height: float, **margins: float) -> Figure:
    """A figure of ``width`` x ``height`` inches with fixed margins (``left=``, ``right=`` ...).

    Fixed margins instead of a layout engine: a layout pass costs as much as a draw,
    and a slider redraw has little time in all.
    """
    fig = Figure(figsize=(width, height))
    fig.subplots_adjust(**margins)
    return fig


def to_png(fig: Figure, dpi: float = 90) -> bytes:
    """The figure as PNG bytes, drawn once (no tight-bbox second pass) and lightly compressed."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, pil_kwargs={"compress_level": 1})
    return buffer.getvalue()


def canvas_png(canvas: FigureCanvasAgg) -> bytes:
    """What an Agg canvas holds now, as PNG bytes (for figures redrawn in place)."""
    width, height = canvas.get_width_height(physical=True)
    image = Image.frombuffer("RGBA", (width, height), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="png", compress_level=1)
    return buffer.getvalue()
