"""What every notebook's panels share: sliders, the redraw, exercises, the palette, running a live run
from a cell.
"""
