"""The course as a static book: every notebook from its stored outputs, readable offline.

``python -m bulkhead_lab.book`` (what ``bash scripts/book.sh`` runs) writes the book's source tree
(:mod:`.source`: the start page and a copy of each notebook, its slider panels as the figures they last
drew, :mod:`.widgets`, with alt text, :mod:`.alt`) and builds it with Jupyter Book 1 (Sphinx), which
needs nothing from outside the machine. Not the model side: it reads and writes files.
"""
