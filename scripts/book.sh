#!/usr/bin/env bash
# One command: install what is missing, then build the course as a static HTML book from the
# notebooks' stored outputs (no kernel runs) into build/book/; the last line is the path of its
# index.html. A notebook the lab saved without its widget state is built from its last commit, or
# named in one line on stderr where there is none (no git). Arguments go to `python -m bulkhead_lab.book`
# (--out DIR, --notebooks DIR).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$ROOT"
echo "==> building the book from the notebooks' stored outputs (Jupyter Book, offline)"
exec python -m bulkhead_lab.book "$@"
