"""What the notebooks show: one package per notebook, on shared presentation helpers.

Notebook ``notebooks/NN_name.ipynb`` reaches everything it shows through
``bulkhead_lab.course.name``: its ``views`` (pure numbers, tables and fact lines),
``figures`` (matplotlib), ``panels`` (ipywidgets) and ``exercises``. They build on the
shared helpers here: :mod:`.style` (palette, figure style, PNG), :mod:`.panel`
(slider panels, live progress), :mod:`.controls` (the seeded model's sliders) and
:mod:`.live` (running a live scenario from a cell).
"""
