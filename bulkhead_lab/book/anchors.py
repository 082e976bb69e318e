"""A heading's anchor in the book is the one JupyterLab gives it, so one link works in both.

JupyterLab names a rendered heading by its text with each space turned into a hyphen, case and
punctuation kept (``createHeaderId`` in ``@jupyterlab/rendermime``: ``## 7. Try it`` is ``#7.-Try-it``,
``### Little's Law`` is ``#Little's-Law``). MyST's own slugs are lower-cased and stripped of punctuation,
so ``[...](00_start_here.md#Little's-Law)`` would open the right place in the lab and be a missing
reference in the book. ``book/_config.yml`` names :func:`jupyterlab_id` as MyST's ``heading_slug_func``.
"""

from __future__ import annotations


def jupyterlab_id(title: str) -> str:
    """The anchor JupyterLab gives a heading whose text is ``title``."""
    return title.replace(" ", "-")
