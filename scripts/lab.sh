#!/usr/bin/env bash
# One command: install what is missing, then open JupyterLab on the notebooks.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$ROOT"
ROOT_FLAG=()
[ "$(id -u)" = 0 ] && ROOT_FLAG=(--allow-root)
# Trust the course's own notebooks, so their stored HTML output (tables, the lesson's printout)
# renders as it was saved when a notebook is opened before it is run.
jupyter trust notebooks/*.ipynb >/dev/null 2>&1 || echo "==> (could not mark the notebooks trusted)"
echo "==> opening JupyterLab on notebooks/00_start_here.md (Ctrl-C twice to stop)"
exec jupyter lab --config="$ROOT/jupyter/jupyter_lab_config.py" "${ROOT_FLAG[@]}" "$@"
