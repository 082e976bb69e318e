"""What the notebooks show: one package per notebook, on shared presentation helpers.

Notebook ``notebooks/NN_name.ipynb`` reaches everything it shows through
``bulkhead_lab.course.name``: its ``views`` (numbers, tables and fact lines), ``figures``
(matplotlib), ``panels`` (ipywidgets) and ``exercises``. They build on :mod:`.ui`: the slider
panel and its redraw, live progress, exercises, the palette, a lesson beside a run.
"""
