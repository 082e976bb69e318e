"""A Sphinx extension for the book: each inline ``<script>`` once per page, as Sphinx 8.2.3 does.

Sphinx 7.4 (the series Jupyter Book 1 needs, ``sphinx~=7.0``) adds an inline script registered after
the builder started twice: ``Sphinx.add_js_file(None, body=...)`` hands the builder a file named
``None``, and ``StandaloneHTMLBuilder.prepare_writing`` adds the registry's copy again under ``''``,
which its duplicate check does not match. sphinx-togglebutton's ``togglebuttonSelector`` and (before
the book dropped the extension) sphinx-thebe's ``const THEBE_JS_URL`` were each on every page twice,
the second a script error (``Identifier 'THEBE_JS_URL' has already been declared``). Upstream fixed it
in sphinx-doc/sphinx#13402 (``sphinx/application.py``: ``None`` becomes ``''`` before the builder
sees it); this is that change, applied to the builder, so the book needs no newer Sphinx.
"""

from __future__ import annotations

from typing import Any


def _filename_for_builder(app: Any) -> None:
    builder = app.builder
    if not hasattr(builder, "add_js_file"):
        return
    add = builder.add_js_file

    def add_js_file(filename: str | None, **kwargs: Any) -> None:
        add(filename or "", **kwargs)  # as prepare_writing names it, so its duplicate check matches

    builder.add_js_file = add_js_file


def setup(app: Any) -> dict[str, Any]:
    # Before the other extensions' builder-inited handlers (priority 500), which add inline scripts.
    app.connect("builder-inited", _filename_for_builder, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
