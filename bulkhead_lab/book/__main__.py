"""``python -m bulkhead_lab.book [--out DIR]``: build the course's book, print the path of its index.html.

A bad argument is one line naming it, and exit status 2; a failed build is Jupyter Book's own output and
exit status 1. A notebook the lab saved without its widget state gets one line on stderr (built from its
last commit, or which of its panels cannot be shown and why: :func:`.source.book_source`).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

from .source import START_PAGE, write_source

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "book" / "_config.yml"


class _Parser(argparse.ArgumentParser):
    """A bad argument is one line (and exit status 2), not argparse's usage block."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def _parser() -> _Parser:
    parser = _Parser(prog="book", description="Build the course's notebooks into a static HTML book.")
    parser.add_argument("--out", type=Path, default=REPO / "build" / "book", help="folder for the build")
    parser.add_argument("--notebooks", type=Path, default=REPO / "notebooks", help="the course's notebooks")
    return parser


def _jupyter_book() -> str | None:
    """The ``jupyter-book`` command beside this Python (the venv's), else on PATH."""
    return shutil.which("jupyter-book", path=str(Path(sys.executable).parent)) or shutil.which("jupyter-book")


def build(notebooks_dir: Path, out: Path, said: list[str] | None = None) -> Path:
    """Write the source tree under ``out/src`` and build it into ``out/_build/html``; its index.html.

    ``said`` gets a line for each notebook not built from its working copy as it is (:mod:`.source`)."""
    source = out / "src"
    write_source(notebooks_dir, CONFIG, source, say=(said if said is not None else []).append)
    command = _jupyter_book()
    if command is None:
        raise FileNotFoundError("jupyter-book is not installed here: run bash scripts/book.sh")
    html = out / "_build" / "html"
    if html.exists():
        shutil.rmtree(html)
    build = [command, "build", "-q", "-W", "--keep-going", str(source), "--path-output", str(out)]
    subprocess.run(build, check=True)
    for source_map in html.rglob("*.map"):  # the theme's source maps (3 MB) serve only a browser's devtools
        source_map.unlink()
    return html / "index.html"


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not (args.notebooks / START_PAGE).is_file():
        parser.error(
            f"--notebooks must be the course's notebooks folder (with {START_PAGE}): {args.notebooks}"
        )
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out must be a folder (or not exist yet): {args.out} is a file")
    said: list[str] = []
    try:
        index = build(args.notebooks.resolve(), args.out.resolve(), said)
    except FileNotFoundError as exc:
        print(f"book: {exc}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as exc:
        print(f"book: jupyter-book build failed (exit status {exc.returncode}, above)", file=sys.stderr)
        return 1
    finally:  # after Jupyter Book's output, so they are seen; the last line stays the index's path
        for line in said:
            print(line, file=sys.stderr, flush=True)
    print(index)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
