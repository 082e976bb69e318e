#!/usr/bin/env bash
# One command: install what is missing, then run every test: the unit and live tests,
# every notebook under nbval, and the browser tests (which need Debian's Chromium).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$ROOT"

if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "==> installing Chromium from Debian's packages for the browser tests"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
    || echo "==> Chromium could not be installed: the browser tests will be skipped"
fi

echo "==> ruff (lint and format) and mypy (types)"
lint=0
ruff check . || lint=$?
ruff format --check . || lint=$?
mypy || lint=$?
echo "==> pytest: unit, differential and live tests, and every notebook under nbval"
paths=(tests)
compgen -G "notebooks/*.ipynb" >/dev/null && paths+=(notebooks)
status=0
# Two workers (pytest-xdist), each file on one worker: a notebook's cells share one kernel, and a live
# test mostly waits on its sockets, so two files at a time fit on two cores.
workers=(-n "${BULKHEAD_LAB_TEST_WORKERS:-2}" --dist loadfile)
python -m pytest "${workers[@]}" --nbval --nbval-cell-timeout=600 --ignore=tests/e2e "${paths[@]}" "$@" || status=$?
[ "$status" = 5 ] && status=0  # -k/-m that selects none here is not a failure
# The browser tests run in a process of their own: Playwright's sync driver keeps an
# event loop on the main thread while its browser is open, which asyncio code in the
# same process would trip over.
if [ -d tests/e2e ]; then
  echo "==> pytest: JupyterLab in headless Chromium (tests/e2e)"
  e2e=0
  # two workers here too, each with its own Chromium and JupyterLab, handed a test at a time: a notebook's
  # run in the browser mostly waits on its kernel
  python -m pytest -n "${BULKHEAD_LAB_TEST_WORKERS:-2}" --dist load tests/e2e "$@" || e2e=$?
  [ "$e2e" = 5 ] && e2e=0
  [ "$status" = 0 ] && status=$e2e
fi
[ "$lint" = 0 ] || echo "==> ruff or mypy found problems (above): failing the run"
[ "$status" = 0 ] && exit "$lint"
exit "$status"
