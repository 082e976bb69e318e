# Sourced by lab.sh and test.sh: make .venv hold the project and what it needs.
# Idempotent and quick when nothing changed: it reinstalls only when pyproject.toml did.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${BULKHEAD_LAB_VENV:-$ROOT/.venv}"

find_python() {
  for candidate in "${PYTHON:-}" python3 python3.13 python3.12 python3.11 python3.10 python; do
    [ -n "$candidate" ] || continue
    command -v "$candidate" >/dev/null 2>&1 || continue
    if "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  echo "bulkhead-lab: Python 3.10 or newer is needed (set PYTHON=/path/to/python3)" >&2
  return 1
}

if [ ! -x "$VENV/bin/python" ]; then
  PY="$(find_python)"
  echo "==> creating $VENV with $("$PY" --version)"
  "$PY" -m venv "$VENV" || {
    echo "bulkhead-lab: could not create a virtual environment (on Debian/Ubuntu: apt-get install python3-venv)" >&2
    exit 1
  }
fi

STAMP="$VENV/.bulkhead-lab-installed"
WANT="$(cat "$ROOT/pyproject.toml" | cksum)"
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$WANT" ]; then
  echo "==> installing bulkhead-lab and its dependencies into $VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet -e "$ROOT[dev]"
  echo "$WANT" > "$STAMP"
fi
export PATH="$VENV/bin:$PATH"
