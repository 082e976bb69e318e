"""Each live service answers the run that started it alone: a secret its own clients present.

On a shared machine (a JupyterHub: every learner's kernel on one host) every learner is a
loopback client of every other learner's services, so ``Host`` and ``Origin`` cannot tell
them apart. Every :class:`~.server.LoopbackServer` a run starts, from a notebook or the
Python API, therefore makes a secret of its own (:func:`new_key`, ``secrets.token_urlsafe``)
and keeps it in this process's memory only (never in a command line, the environment or a
file another user could read). It records it here by its port (:func:`remember`), and
every client in the package asks :func:`key_headers` for the header to send with a
request: ``X-Bulkhead-Lab-Key`` with that port's key when the service is one this process
serves, nothing otherwise. A request without it, or with another key, is HTTP 403 with one
line before any handler runs (:func:`refusal`), so it reads nothing and changes nothing:
not ``/admin/stats``, not ``/admin/slow``, not an order.

The ``serve-pools`` and ``serve-orders`` commands serve the lessons' own node scripts, which
send no key: their services are created under :func:`open_to_this_machine`, need none, and
say in their banner that any process on this machine can reach them.
"""

from __future__ import annotations

import contextlib
import hmac
import secrets
from collections.abc import Iterator
from contextvars import ContextVar
from urllib.parse import urlsplit

HEADER = "X-Bulkhead-Lab-Key"
REACH = "any process on this machine can reach these services"  # what an open command's banner says

_KEYS: dict[int, str] = {}  # port -> key of every keyed service this process is serving now
_OPEN: ContextVar[bool] = ContextVar("bulkhead_lab_open_to_this_machine", default=False)


def new_key() -> str | None:
    """A fresh secret for a service about to be created; None under :func:`open_to_this_machine`."""
    return None if _OPEN.get() else secrets.token_urlsafe(32)


@contextlib.contextmanager
def open_to_this_machine() -> Iterator[None]:
    """Services created inside this block need no key (the serve commands: node sends none)."""
    token = _OPEN.set(True)
    try:
        yield
    finally:
        _OPEN.reset(token)


def remember(port: int, key: str | None) -> None:
    """Record the key of the service now listening on ``port`` (None: an open one, nothing kept)."""
    if key is not None:
        _KEYS[port] = key


def forget(port: int, key: str | None) -> None:
    """Drop ``port``'s key when its service stops (only if it is still that service's key)."""
    if key is not None and _KEYS.get(port) == key:
        del _KEYS[port]


def key_headers(url: str) -> dict[str, str]:
    """The header a request to ``url`` presents: its service's key if this process serves it, else none.

    Every client in the package passes this as ``headers=``; a service of another process (a
    serve command, another learner's run) gets no key from here, so no key ever leaves its run.
    """
    try:
        port = urlsplit(url).port
    except ValueError:
        return {}
    key = _KEYS.get(port) if port is not None else None
    return {HEADER: key} if key is not None else {}


def refusal(expected: str | None, presented: str | None) -> str | None:
    """Why a request presenting ``presented`` may not reach a service keyed ``expected`` (a line), or None."""
    if expected is None:
        return None
    if presented is None:
        got = "missing"
    elif hmac.compare_digest(presented.encode(errors="replace"), expected.encode()):
        return None
    else:
        got = "a wrong key"
    return (
        f"{HEADER} must be the key of the run that started this service (got {got}): "
        "it answers that run's own clients alone"
    )
