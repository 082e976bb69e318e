"""The course as a static book, read in Chromium from a local server: every notebook has a page, each page
shows its figures (loaded, with alt text, a panel's figure with its line naming the lab command), and no
request leaves 127.0.0.1.

The book is built once for the module, by the README's command's own step (``python -m bulkhead_lab.book``)
into a temporary folder, from the notebooks' stored outputs; CI, which has just run ``scripts/book.sh``,
names its build in ``BULKHEAD_LAB_BOOK_HTML`` and the tests read that one instead. Screenshots of each
page go to ``test-artifacts/screenshots/book/``.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import lab_driver as ld
import pytest

from bulkhead_lab.book.source import book_source
from bulkhead_lab.book.widgets import IMAGE, LAB_COMMAND, saved_models

NOTEBOOKS = sorted((ld.REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
BUILD_TIMEOUT_S = 600
SCREENSHOTS = ld.REPO / "test-artifacts" / "screenshots" / "book"

_FIGURES_JS = """
() => [...document.querySelectorAll('article.bd-article img')].map((img) => ({
  src: img.getAttribute('src'), alt: img.getAttribute('alt') || '', complete: img.complete,
  width: img.naturalWidth,
  note: (img.closest('.cell_output') || document.body).innerText.includes('In the lab the controls move'),
}))
"""


def stored_figures(notebook: Path) -> tuple[int, int]:
    """(figures in the cells' outputs, figures inside the saved slider panels), read from the notebook the
    page is built from (its last commit's where the lab saved it without its widget state)."""
    nb = book_source(notebook).notebook
    in_cells = sum(IMAGE in o.get("data", {}) for c in nb["cells"] for o in c.get("outputs", []))
    in_panels = sum(
        IMAGE in o.get("data", {})
        for m in saved_models(nb).values()
        if m["model_name"] == "OutputModel"
        for o in m["state"].get("outputs", [])
    )
    return in_cells, in_panels


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def book_html(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The book, built from the stored outputs into a temporary folder (or CI's build): its html folder."""
    if os.environ.get("BULKHEAD_LAB_BOOK_HTML"):
        built = Path(os.environ["BULKHEAD_LAB_BOOK_HTML"])
        assert (built / "index.html").is_file(), f"BULKHEAD_LAB_BOOK_HTML={built} holds no index.html"
        return built
    out = tmp_path_factory.mktemp("book")
    command = [sys.executable, "-m", "bulkhead_lab.book", "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, cwd=ld.REPO)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    index = Path(done.stdout.strip().splitlines()[-1])
    assert index == out / "_build" / "html" / "index.html" and index.is_file(), done.stdout[-500:]
    return index.parent


@pytest.fixture(scope="module")
def site(book_html: Path) -> Iterator[str]:
    """The built book served on 127.0.0.1 (a free port); its base URL."""
    yield from _served(book_html)


@dataclass
class Opened:
    """What a page did while it loaded (and after)."""

    requests: list[str] = field(default_factory=list)  # every URL it asked for
    failed: list[str] = field(default_factory=list)  # requests that failed or answered 4xx/5xx
    errors: list[str] = field(default_factory=list)  # uncaught script errors and console errors


def _open(page: Any, url: str) -> Opened:
    """Go to ``url`` on ``page`` (a fresh context's), listening to its requests, script and console errors."""
    opened = Opened()
    page.context.on("request", lambda r: opened.requests.append(r.url))
    page.context.on("requestfailed", lambda r: opened.failed.append(f"{r.url} ({r.failure})"))
    page.context.on(
        "response", lambda r: r.status >= 400 and opened.failed.append(f"{r.url} (HTTP {r.status})")
    )
    page.on("pageerror", lambda e: opened.errors.append(f"uncaught: {e}"))
    page.on("console", lambda m: m.type == "error" and opened.errors.append(f"console: {m.text}"))
    page.goto(url, wait_until="networkidle")
    return opened


def _offsite(requests: list[str], base: str) -> list[str]:
    return [u for u in requests if not (u.startswith(base) or u.startswith(("data:", "blob:", "about:")))]


def test_the_start_page_links_a_page_for_every_notebook(page: Any, site: str) -> None:
    opened = _open(page, site)  # index.html, which forwards to the start page
    page.wait_for_url(f"{site}00_start_here.html")
    assert page.locator("article h1").first.inner_text().startswith("00 · Start here")
    links = set(page.eval_on_selector_all("article a[href]", "as => as.map(a => a.getAttribute('href'))"))
    assert {f"{nb.stem}.html" for nb in NOTEBOOKS} <= links
    assert _offsite(opened.requests, site) == [] and opened.failed == []
    assert opened.errors == [], f"00_start_here.html reported script errors: {opened.errors}"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_notebook_page_shows_its_figures_and_loads_nothing_from_outside(
    page: Any, site: str, notebook: Path
) -> None:
    in_cells, in_panels = stored_figures(notebook)
    opened = _open(page, f"{site}{notebook.stem}.html")
    page.wait_for_function(
        "() => [...document.querySelectorAll('article.bd-article img')].every((i) => i.complete)"
    )
    figures = page.evaluate(_FIGURES_JS)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{notebook.stem}.png"), full_page=True)
    assert len(figures) == in_cells + in_panels, figures
    assert [f["src"] for f in figures if f["width"] == 0] == [], "figures that did not load"
    assert [f["src"] for f in figures if len(f["alt"].split()) < 4] == [], "figures without alt text"
    assert sum(f["note"] for f in figures) == in_panels, "a panel's figure without its line under it"
    if in_panels:
        assert LAB_COMMAND in page.locator("article").inner_text()
    assert page.locator("article .jupyter-widgets, article script[type*=widget]").count() == 0
    assert _offsite(opened.requests, site) == [], "requests that left 127.0.0.1"
    assert opened.failed == [], "requests that failed"
    assert opened.errors == [], f"{notebook.stem}.html reported script errors: {opened.errors}"


def _served(folder: Path) -> Iterator[str]:
    """``folder`` served by http.server on 127.0.0.1 (a free port), from a thread; its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_a_page_declaring_a_script_twice_is_caught_with_its_message(page: Any, tmp_path: Path) -> None:
    twice = "<script>const THEBE_JS_URL = 'x';</script>" * 2  # what every page carried before issue 31
    head = '<head><link rel="icon" href="data:,"></head>'  # no favicon request: its 404 is an error too
    (tmp_path / "twice.html").write_text(f"<!doctype html><html>{head}<body>{twice}</body></html>")
    for base in _served(tmp_path):
        opened = _open(page, f"{base}twice.html")
        assert len(opened.errors) == 1 and "THEBE_JS_URL" in opened.errors[0], opened.errors


_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script>", re.S)


@pytest.mark.parametrize("page_name", ["00_start_here", *(nb.stem for nb in NOTEBOOKS)])
def test_no_page_carries_a_script_twice_or_an_outside_url_in_a_script(
    book_html: Path, page_name: str
) -> None:
    html = (book_html / f"{page_name}.html").read_text(encoding="utf-8")
    scripts = [attrs.strip() + body.strip() for attrs, body in _SCRIPT.findall(html)]
    assert scripts, f"{page_name}.html has no script at all: the scan read the wrong file"
    twice = sorted({s[:80] for s in scripts if scripts.count(s) > 1})
    assert twice == [], f"{page_name}.html carries these scripts twice"
    outside = sorted({u for s in scripts for u in re.findall(r"https?://[^\s'\"<>]+", s)})
    assert outside == [], f"{page_name}.html's scripts name outside URLs"
