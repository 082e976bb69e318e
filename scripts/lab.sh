#!/usr/bin/env bash
# One command: install what is missing, then open JupyterLab on the notebooks.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$ROOT"
ROOT_FLAG=()
[ "$(id -u)" = 0 ] && ROOT_FLAG=(--allow-root)
echo "==> opening JupyterLab on notebooks/ (Ctrl-C twice to stop)"
exec jupyter lab --config="$ROOT/jupyter/jupyter_lab_config.py" "${ROOT_FLAG[@]}" "$@"
