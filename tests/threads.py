"""The threads a test may count as a run's: every thread of this process but pycares' shutdown daemon.

aiohttp resolves names through aiodns where it is installed (jupyterhub, in the dev extras, brings it),
and pycares starts that daemon once a process, the first time a resolver closes, and keeps it for the
next one. Which test closes a resolver first depends on the order tests run in (and on which pytest-xdist
worker runs them), so a check of "no thread left behind" sets it aside.
"""

from __future__ import annotations

import threading


def ours() -> set[threading.Thread]:
    """This process's threads, pycares' shutdown daemon aside."""
    return {t for t in threading.enumerate() if "_run_safe_shutdown_loop" not in t.name}
