"""Notebook 01's panel as Chromium shows it: every slider's label whole within the label column."""

from __future__ import annotations

import matplotlib.font_manager as fm
import pytest
from PIL import ImageFont

from bulkhead_lab.course.littles_law_sizing import panels
from bulkhead_lab.course.ui.panel import SLIDER_STYLE

FONT_PX = 13  # JupyterLab's widget font size; Debian's Chromium draws it in DejaVu Sans, as measured here
EM = FONT_PX  # the label column's width is given in em of that font


@pytest.mark.parametrize("name", list(panels.littles_law_panel().controls))
def test_each_slider_label_fits_its_column_with_room_to_spare(name: str) -> None:
    """Issue 37: Chromium cut "target headroom (x in flight)" to "target headroom (x in fl...": 185 px of
    text in a 169 px column. Each label keeps a tenth of the column spare, for a wider system font."""
    font = ImageFont.truetype(fm.findfont("DejaVu Sans"), FONT_PX)
    column = float(SLIDER_STYLE["description_width"].removesuffix("em")) * EM
    label = panels.littles_law_panel().controls[name].description
    assert font.getlength(label) <= 0.9 * column, (
        f"{label!r} is {font.getlength(label):.0f} px of {column:.0f}"
    )
