"""What a service prints about a request aiohttp itself refused or lost: one line, never a traceback.

aiohttp answers a malformed request (a URL or a header over 8,190 bytes, a bad
``Content-Length``, a bad chunk, a duplicate ``Host``, a bare line feed, a NUL in the path)
with HTTP 400 before any handler of ours runs, and reports it through its server's
``logger`` parameter: ``RequestHandler.handle_error`` calls ``logger.exception("Error
handling request from %s", peer, exc_info=exc)``, the full traceback attached. A client that
sends ``Expect: 100-continue`` and leaves makes aiohttp's ``100 Continue`` fail on the closed
connection, reported the same way.

:class:`RequestLog` is the ``logger`` each :class:`~.server.LoopbackServer` gives its aiohttp
server. Such a report becomes one warning on :data:`LOG`: which service, who sent it and what
was wrong, e.g. ``Order Service on 127.0.0.1:3001: 127.0.0.1 sent a malformed request,
answered HTTP 400: Invalid character in Content-Length``. Anything else keeps its traceback:
no client can cause it, so it is an error in this package. The serve commands print
:data:`LOG` on their stderr, each line after the command's name (:func:`~.server.serve_foreground`).
"""

from __future__ import annotations

import logging
from typing import Any

from aiohttp.http import HttpProcessingError

LOG = logging.getLogger("bulkhead_lab.live.requests")
_REASON = 160  # characters of aiohttp's own reason kept in the line


class RequestLog(logging.Logger):
    """aiohttp's server ``logger`` for one ``service``: a request it refused or lost is one line on
    :data:`LOG`; levels, handlers and propagation are :data:`LOG`'s (it is an unregistered child)."""

    def __init__(self, service: str) -> None:
        super().__init__(f"{LOG.name}.service")
        self.parent = LOG
        self.service = service

    def exception(self, msg: object, *args: object, exc_info: Any = True, **kw: Any) -> None:
        line = one_line(self.service, exc_info, args)
        if line is None:  # not a client's doing: the traceback is the report
            super().exception(msg, *args, exc_info=exc_info, **kw)
        else:
            self.warning("%s", line)


def one_line(service: str, exc_info: object, args: tuple[object, ...] = ()) -> str | None:
    """The line for a request aiohttp refused (HTTP 4xx) or could not answer (its client left),
    or None for any other error. ``args`` are aiohttp's: the peer's address (since aiohttp 3.11)."""
    exc = exc_info if isinstance(exc_info, BaseException) else None
    peer = _printable(str(args[0])) if args else "a client"
    if isinstance(exc, HttpProcessingError):
        status = exc.code or 400
        return f"{service}: {peer} sent a malformed request, answered HTTP {status}: {reason(exc.message)}"
    if isinstance(exc, ConnectionError):
        why = reason(str(exc)) if str(exc) else type(exc).__name__
        return f"{service}: {peer} left before its answer could be sent ({why})"
    return None


def reason(message: str) -> str:
    """aiohttp's reason in one line: its first paragraph, without the bytes it quotes."""
    head = message.split("\n\n", 1)[0]  # the offending bytes and a caret follow a blank line
    text = " ".join(part.strip() for part in head.splitlines() if part.strip())
    marks = (text.find(": b'"), text.find(': b"'), text.find(": bytearray("))
    quoted = min((k for k in marks if k >= 0), default=-1)
    if quoted >= 0:  # "Got more than 8190 bytes when reading: b'...'": the line itself
        text = text[:quoted]
    text = text.rstrip(":. ")
    if text.endswith("when reading"):  # aiohttp 3.13's LineTooLong, once its quote is cut off
        text += " the request line or a header"
    text = _printable(text)
    return text if len(text) <= _REASON else text[: _REASON - 3] + "..."


def _printable(text: str) -> str:
    """``text`` on one line: every control character escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
