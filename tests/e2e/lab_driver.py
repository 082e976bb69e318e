"""Drive real JupyterLab in Debian's Chromium the way a learner does: open, Run All, move a slider.

Shared by the browser tests (``tests/e2e``) and ``benchmarks/bench_browser.py``. Two halves:

- :func:`running_lab` starts JupyterLab headless on 127.0.0.1 (free port, random token, throw-away
  workspaces, user settings, runtime and config dirs, the project's ``jupyter/jupyter_lab_config.py``)
  and always stops it, kernels included.
- :func:`launch_chromium` and the page helpers (:func:`open_notebook`, :func:`run_all`, :func:`press_slider`,
  :func:`read_view`, ...) use the Python ``playwright`` package with ``/usr/bin/chromium``; no browser is
  ever downloaded.

Widget conventions relied on (see the notebooks): a main slider carries ``bl-slider-<name>``, the output
area it redraws carries ``bl-view-<name>`` and shows a matplotlib image and a pandas table.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
LAB_CONFIG = REPO / "jupyter" / "jupyter_lab_config.py"
CHROMIUM = Path(os.environ.get("BULKHEAD_LAB_CHROMIUM", "/usr/bin/chromium"))  # Debian's package
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-quic",
    "--disable-sync",
)
VIEWPORT = {"width": 1280, "height": 1400}

STARTUP_TIMEOUT_S = 90.0
SHUTDOWN_TIMEOUT_S = 20.0

Rows = tuple[tuple[str, ...], ...]


# ----------------------------------------------------------------------------- the lab server


@dataclass(frozen=True)
class Lab:
    """A running JupyterLab: where it listens, its token and the folder it serves."""

    base_url: str
    token: str
    root_dir: Path
    log_path: Path

    def url(self, path: str, **query: str) -> str:
        """Absolute URL of ``path`` under the lab, with the token (and ``query``) appended."""
        q = urllib.parse.urlencode({**query, "token": self.token})
        return f"{self.base_url}{path.lstrip('/')}?{q}"

    def api(self, method: str, path: str) -> Any:
        """One REST call to the server (JSON in, JSON out); ``None`` for an empty reply."""
        req = urllib.request.Request(
            f"{self.base_url}{path.lstrip('/')}",
            method=method,
            headers={"Authorization": f"token {self.token}"},
            data=b"" if method in ("POST", "PUT") else None,
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def log_tail(self, lines: int = 30) -> str:
        """The last lines of the server's log, for a failure message."""
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def trust(self, *notebooks: str) -> None:
        """Mark ``notebooks`` (paths under the lab's folder) trusted, as ``scripts/lab.sh`` does."""
        subprocess.run(
            [sys.executable, "-m", "jupyter", "trust", *(str(self.root_dir / n) for n in notebooks)],
            env=lab_environment(self.log_path.parent),
            capture_output=True,
            timeout=120,
            check=True,
        )

    def shutdown_kernels(self) -> None:
        """Stop every kernel the lab runs (between notebooks, so live servers do not pile up).

        Never raises: it runs in ``finally`` blocks, where it must not hide the test's own failure.
        """
        with contextlib.suppress(urllib.error.URLError, OSError, ValueError):
            for kernel in self.api("GET", "api/kernels") or []:
                with contextlib.suppress(urllib.error.URLError, OSError, ValueError):
                    self.api("DELETE", f"api/kernels/{kernel['id']}")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def lab_command(root_dir: Path, work_dir: Path, port: int, token: str) -> list[str]:
    """The command line that starts JupyterLab headless for a test (the README's config, plus isolation)."""
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        f"--config={LAB_CONFIG}",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root_dir}",
        f"--LabApp.workspaces_dir={work_dir / 'workspaces'}",
        f"--LabApp.user_settings_dir={work_dir / 'user-settings'}",
        # JupyterLab makes a checkpoint of a notebook it opens for the first time; keep those
        # copies out of the repository (a fresh clone has none, a used tree has some).
        f"--FileCheckpoints.root_dir={work_dir / 'checkpoints'}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    return cmd


def lab_environment(work_dir: Path) -> dict[str, str]:
    """The environment for the lab and its kernels: nothing read from or written to the user's home."""
    env = dict(os.environ)
    for name, sub in (
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
        ("JUPYTERLAB_SETTINGS_DIR", "user-settings"),
        ("IPYTHONDIR", "ipython"),
        # Notebook trust lives in the data dir's signature database: keep it per lab, so whether a
        # notebook opens trusted depends on the test, not on what the machine's user ran before.
        ("JUPYTER_DATA_DIR", "data"),
    ):
        path = work_dir / sub
        path.mkdir(parents=True, exist_ok=True)
        env[name] = str(path)
    # The learner's lab autosaves; a test must never rewrite the committed notebooks with its run's outputs.
    docmanager = work_dir / "user-settings" / "@jupyterlab" / "docmanager-extension"
    docmanager.mkdir(parents=True, exist_ok=True)
    (docmanager / "plugin.jupyterlab-settings").write_text(json.dumps({"autosave": False}))
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    env.pop("JUPYTER_TOKEN", None)
    env["PYTHONUNBUFFERED"] = "1"
    return env


@contextlib.contextmanager
def running_lab(root_dir: Path, work_dir: Path, timeout_s: float = STARTUP_TIMEOUT_S) -> Iterator[Lab]:
    """Start JupyterLab on ``root_dir``, wait until it answers, yield it, and always stop it (kernels too).

    A port found free can be taken before the server binds it; then the start is tried again on another.
    """
    work_dir.mkdir(parents=True, exist_ok=True)
    for attempt in range(1, 4):
        lab, proc = _start(root_dir, work_dir)
        try:
            with stopped_by_sigterm():
                _wait_until_up(lab, proc, timeout_s)
            break
        except _ExitedAtStartup:
            _stop(lab, proc)
            if attempt == 3:
                raise
        except BaseException:
            _stop(lab, proc)
            raise
    try:
        with stopped_by_sigterm():
            yield lab
    finally:
        _stop(lab, proc)


class _ExitedAtStartup(RuntimeError):
    """The server process ended before it answered (its log says why)."""


def _start(root_dir: Path, work_dir: Path) -> tuple[Lab, subprocess.Popen[bytes]]:
    port, token = free_port(), secrets.token_hex(16)
    lab = Lab(f"http://127.0.0.1:{port}/", token, root_dir, work_dir / "lab.log")
    with open(lab.log_path, "ab") as log:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen(
            lab_command(root_dir, work_dir, port, token),
            cwd=root_dir,
            env=lab_environment(work_dir),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so it can be stopped as one
        )
    return lab, proc


def _wait_until_up(lab: Lab, proc: subprocess.Popen[bytes], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise _ExitedAtStartup(f"JupyterLab exited with {proc.returncode} at startup:\n{lab.log_tail()}")
        try:
            lab.api("GET", "api/status")
            lab.api("GET", "lab/api/settings")
            return
        except (urllib.error.URLError, OSError, ValueError):
            time.sleep(0.3)
    raise RuntimeError(f"JupyterLab did not answer within {timeout_s:.0f} s:\n{lab.log_tail()}")


def _stop(lab: Lab, proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        with contextlib.suppress(urllib.error.URLError, OSError, ValueError):
            lab.api("POST", "api/shutdown")  # the polite way: the server stops its kernels too
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(SHUTDOWN_TIMEOUT_S)
    if proc.poll() is None:  # the server's own process group (it leads it: start_new_session)
        _terminate(proc.pid, group=True)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(SHUTDOWN_TIMEOUT_S)
    # Kernels run in sessions of their own; a kernel the server failed to stop is found by the
    # connection file in this lab's private runtime dir.
    for pid in pids_using(lab.log_path.parent / "runtime"):
        _terminate(pid, group=False)


def _terminate(pid: int, group: bool, grace_s: float = 5.0) -> None:
    """SIGTERM ``pid`` (or its process group), then SIGKILL if it is still there after ``grace_s``."""
    send = os.killpg if group else os.kill
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            send(pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline:
            if not _alive(pid):
                return
            time.sleep(0.1)


def _alive(pid: int) -> bool:
    """``pid`` exists and is not a zombie waiting to be reaped."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return False


def pids_using(path: Path) -> list[int]:
    """Processes whose command line names ``path`` (this lab's kernels); empty where /proc is absent."""
    needle = str(path).encode()
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError):
            if needle in (entry / "cmdline").read_bytes() and int(entry.name) != os.getpid():
                found.append(int(entry.name))
    return found


@contextlib.contextmanager
def stopped_by_sigterm() -> Iterator[None]:
    """Treat SIGTERM like Ctrl-C meanwhile: pytest stops, and ``finally`` blocks stop the lab and browser."""

    def _interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    try:
        previous = signal.signal(signal.SIGTERM, _interrupt)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


# ----------------------------------------------------------------------------- the browser


class BrowserUnavailable(RuntimeError):
    """Chromium or the playwright package is missing or cannot start here (the tests skip)."""


@contextlib.contextmanager
def launch_chromium() -> Iterator[Any]:
    """Yield a headless Debian Chromium driven by playwright; always closed afterwards."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        raise BrowserUnavailable(f"the playwright package is not installed ({exc})") from exc
    if not CHROMIUM.exists():
        raise BrowserUnavailable(f"{CHROMIUM} is missing (apt-get install -y chromium)")
    with sync_playwright() as pw:
        try:
            browser = pw.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=list(CHROMIUM_ARGS), timeout=60_000
            )
        except Exception as exc:  # playwright raises its own Error types; any of them means "cannot start"
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise BrowserUnavailable(f"{CHROMIUM} cannot start: {first}") from exc
        try:
            yield browser
        finally:
            browser.close()


# ----------------------------------------------------------------------------- notebook pages

_RUN_OVER_JS = """
() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  if (!panel) return false;
  const cells = [...panel.querySelectorAll('.jp-Notebook .jp-CodeCell')];
  const prompts = cells.map((c) => {
    const p = c.querySelector('.jp-InputArea-prompt');
    const src = c.querySelector('.cm-content');
    return {prompt: p ? p.textContent.trim() : '', empty: !src || src.textContent.trim() === ''};
  });
  const busy = prompts.filter((p) => p.prompt.includes('*')).length;
  const unrun = prompts.filter((p) => !p.empty && !/^\\[\\d+\\]:$/.test(p.prompt)).length;
  const status = document.querySelector('.jp-Notebook-ExecutionIndicator');
  const idle = !status || ['idle', null].includes(status.getAttribute('data-status'));
  // After an error, Run All stops and the cells below stay unrun: that run is over too.
  const errored = panel.querySelectorAll(
      '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]').length > 0;
  return idle && busy === 0 && (unrun === 0 || errored);
}
"""

_WATCH_BUSY_JS = """
() => {
  window.__blSawBusy = false;
  const nb = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
  const seen = () => [...nb.querySelectorAll('.jp-InputArea-prompt')]
      .some((p) => p.textContent.includes('*'));
  const obs = new MutationObserver(() => { if (seen()) { window.__blSawBusy = true; obs.disconnect(); } });
  obs.observe(nb, {subtree: true, childList: true, characterData: true});
}
"""

_STDERR_JS = """
() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')]
  .map((cell, i) => ({i, outs: [...cell.querySelectorAll(
      '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
      .map((o) => o.textContent.trim())}))
  .filter((c) => c.outs.length > 0)
  .map((c) => `cell ${c.i}: ${c.outs.join(' | ').slice(0, 600)}`)
"""

# The toolbar says the kernel is idle (busy while it handles any message, slider moves too).
_KERNEL_IDLE_JS = """
() => { const s = document.querySelector(
          '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-ExecutionIndicator');
        return !!s && s.getAttribute('data-status') === 'idle'; }
"""

_VIEW_JS = """
(el) => {
  // A table as a grid of cell texts, row/col spans repeated (pandas spans a MultiIndex's labels).
  const grid = (rows) => {
    const out = [];
    rows.forEach((r, i) => {
      out[i] = out[i] || [];
      let j = 0;
      for (const c of r.cells) {
        while (out[i][j] !== undefined) j += 1;
        for (let di = 0; di < (c.rowSpan || 1); di += 1) {
          out[i + di] = out[i + di] || [];
          for (let dj = 0; dj < (c.colSpan || 1); dj += 1) out[i + di][j + dj] = c.textContent.trim();
        }
        j += c.colSpan || 1;
      }
    });
    return out.map((r) => Array.from(r, (x) => x ?? ''));
  };
  return {
    pending: el.classList.contains('bl-pending'),
    images: [...el.querySelectorAll('img')].map((i) => i.getAttribute('src') || ''),
    tables: [...el.querySelectorAll('table')].map((t) => ({
      head: grid([...t.querySelectorAll('thead tr')]),
      body: grid(t.tBodies.length ? [...t.querySelectorAll('tbody tr')] : [...t.rows]),
    })),
  };
}
"""


@dataclass(frozen=True)
class View:
    """What a ``bl-view-<name>`` output area shows: its images' sources and its tables' text."""

    # A slider burst's trailing redraw is due or running (the panel's ``bl-pending`` class): it runs from
    # a timer, so the kernel's indicator stays idle through it.
    pending: bool
    images: tuple[str, ...] = field(repr=False)  # data: URLs, long; compared, never printed
    tables: tuple[tuple[Rows, Rows], ...]  # (header rows, body rows) per table

    @property
    def complete(self) -> bool:
        """A redraw has finished showing both a figure and a table, and none is due."""
        return not self.pending and bool(self.images) and all(self.images) and bool(self.tables)

    def table(self, index: int = 0) -> list[dict[str, str]]:
        """Table ``index`` as rows of {column header: cell text}, index column included (header '')."""
        head, body = self.tables[index]
        width = max((len(r) for r in (*head, *body)), default=0)
        # pandas may write two header rows (columns, then the index name); join them per column.
        header = [" ".join(r[i] for r in head if i < len(r) and r[i]) for i in range(width)]
        return [dict(zip(header, r, strict=False)) for r in body]


def open_notebook(page: Any, lab: Lab, rel_path: str, timeout_ms: int = 120_000) -> None:
    """Open ``rel_path`` with a fresh workspace (``?reset``) and wait until its kernel is up and idle."""
    page.goto(lab.url(f"lab/tree/{urllib.parse.quote(rel_path)}", reset=""), timeout=timeout_ms)
    page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").first.wait_for(timeout=timeout_ms)
    deadline = time.monotonic() + timeout_ms / 1000
    while not kernel_idle(lab, rel_path):
        if time.monotonic() > deadline:
            raise TimeoutError(f"the kernel of {rel_path} did not start within {timeout_ms} ms")
        page.wait_for_timeout(250)
    page.wait_for_function(_KERNEL_IDLE_JS, timeout=timeout_ms)


def kernel_idle(lab: Lab, rel_path: str) -> bool:
    """The server has a session for ``rel_path`` whose kernel reports idle."""
    for session in lab.api("GET", "api/sessions") or []:
        if session.get("path") == rel_path and (session.get("kernel") or {}).get("execution_state") == "idle":
            return True
    return False


def run_all(page: Any, timeout_ms: int = 300_000) -> None:
    """Run > Run All Cells from the menu bar, then wait until every cell ran and the kernel is idle."""
    # Note when any prompt turns to [*]: cells stored with outputs already show numbers before the run.
    page.evaluate(_WATCH_BUSY_JS)
    for attempt in (1, 2):
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
        try:  # a kernel that was still connecting may drop the request; a person would click again
            page.wait_for_function("() => window.__blSawBusy", timeout=30_000)
            break
        except Exception:
            if attempt == 2:
                raise
    page.wait_for_function(f"() => window.__blSawBusy && ({_RUN_OVER_JS})()", timeout=timeout_ms, polling=250)


def error_outputs(page: Any) -> list[str]:
    """Every error or stderr output in the open notebook, as 'cell N: text' (empty when clean)."""
    return page.evaluate(_STDERR_JS)


def slider(page: Any, name: str, panel: str | None = None) -> Any:
    """The ``bl-slider-<name>`` widget (inside ``bl-panel-<panel>`` when given; the first one otherwise)."""
    scope = f".bl-panel-{panel} " if panel else ""
    return page.locator(f"{scope}.bl-slider-{name}").first


def view(page: Any, name: str) -> Any:
    """The first ``bl-view-<name>`` output area on the page."""
    return page.locator(f".bl-view-{name}").first


def read_view(page: Any, name: str) -> View:
    """What the view shows right now."""
    raw = view(page, name).evaluate(_VIEW_JS)
    return View(
        bool(raw["pending"]),
        tuple(raw["images"]),
        tuple(
            (tuple(tuple(r) for r in t["head"]), tuple(tuple(r) for r in t["body"])) for t in raw["tables"]
        ),
    )


def wait_for_text(page: Any, selector: str, test: str, want: object = None, timeout_ms: int = 30_000) -> None:
    """Wait until the first element ``selector`` finds exists and ``test``, JavaScript reading its ``text``
    (innerText) and ``want``, holds."""
    page.wait_for_function(
        "([sel, want]) => { const el = document.querySelector(sel);"
        f" if (!el) return false; const text = el.innerText; return {test}; }}",
        arg=[selector, want],
        timeout=timeout_ms,
    )


def slider_value(page: Any, name: str, panel: str | None = None) -> str:
    """The slider's readout text, as the learner reads it."""
    return slider(page, name, panel).locator(".widget-readout").first.inner_text().strip()


def wait_for_view(page: Any, name: str, timeout_ms: int = 120_000) -> View:
    """Wait until the view shows a complete redraw (figure and table) and return it."""
    view(page, name).wait_for(timeout=timeout_ms)
    return wait_until_settled(page, name, None, timeout_ms)


def handle(page: Any, name: str, panel: str | None = None) -> Any:
    """The slider's handle, scrolled into view."""
    found = slider(page, name, panel).locator(".noUi-handle").first
    found.scroll_into_view_if_needed()
    return found


def press_slider(page: Any, name: str, key: str, presses: int = 1, panel: str | None = None) -> None:
    """Put keyboard focus on the slider's handle, as a Tab or click would, and press ``key``
    (ArrowLeft/ArrowRight/...) ``presses`` times."""
    handle(page, name, panel).focus()
    for _ in range(presses):
        page.keyboard.press(key)


def drag_slider(page: Any, name: str, dx_px: float, panel: str | None = None) -> None:
    """Drag the slider's handle ``dx_px`` pixels sideways with the mouse (press, move in steps, release)."""
    box = handle(page, name, panel).bounding_box()
    assert box is not None, f"slider bl-slider-{name} has no visible handle"
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + dx_px, y, steps=12)
    page.mouse.up()


def wait_until_settled(
    page: Any,
    name: str,
    before: View | None,
    timeout_ms: int = 120_000,
    quiet_ms: int = 800,
    complete: Callable[[View], bool] | None = None,
) -> View:
    """Wait until the view differs from ``before`` (if given), is complete, and has stopped changing.

    A redraw clears the output and adds the figure and the table one by one, and several key presses
    queue several redraws; so the view must stay the same, with the kernel idle, for ``quiet_ms``.
    """
    deadline = time.monotonic() + timeout_ms / 1000
    last: View | None = None
    quiet_since = time.monotonic()
    while time.monotonic() < deadline:
        now = read_view(page, name)
        if now != last or not page.evaluate(_KERNEL_IDLE_JS):
            last, quiet_since = now, time.monotonic()
        elif (
            (now.complete if complete is None else complete(now))
            and (before is None or now != before)
            and (time.monotonic() - quiet_since) * 1000 >= quiet_ms
        ):
            return now
        page.wait_for_timeout(100)
    raise TimeoutError(f"view bl-view-{name} did not settle on a new complete redraw in {timeout_ms} ms")


def screenshot(page: Any, panel_or_slider: str, path: Path) -> None:
    """Save the output cell holding ``bl-panel-<x>`` (or ``bl-slider-<x>``) as a PNG, the window beside it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    target = page.locator(f".bl-panel-{panel_or_slider}, .bl-slider-{panel_or_slider}").first
    cell = page.locator(".jp-Cell", has=target).first  # the first such panel's cell (03 shows a second one)
    cell.scroll_into_view_if_needed()
    cell.screenshot(path=str(path), timeout=30_000)
    page.screenshot(path=str(path.with_name(path.stem + "-window.png")))
