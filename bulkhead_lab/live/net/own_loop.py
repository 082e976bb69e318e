"""A counting dependency served from a thread of its own, with its own event loop.

A caller that blocks its event loop (a synchronous HTTP call made on it) would stall a
dependency served by that same loop too, and the call could never be answered. Served
apart, the dependency answers whatever its caller's loop does, as a remote service would.

``with DependencyApart(latency=2.0) as dep:`` starts it on a free port of 127.0.0.1 and
stops it on leaving (the thread joined, the socket closed), also after an exception or an
interrupt; :meth:`DependencyApart.stop` may be called earlier, and again. Its dependency's counters
(``dep.dependency.open``, ``peak``, ``calls``) are read from the caller's thread: plain ints the
dependency's loop writes.
"""

from __future__ import annotations

import asyncio
import threading
from types import TracebackType

from bulkhead_lab.live.net.dependency import Dependency

START_TIMEOUT = 30.0  # seconds the dependency may take to start on a busy machine


class DependencyApart:
    """``Dependency(name, latency)`` served in a daemon thread of its own (see the module's docstring)."""

    def __init__(self, name: str = "dependency", latency: float = 1.0) -> None:
        self.dependency = Dependency(name, latency)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._serve, name=f"bulkhead-lab-{name}", daemon=True)

    def _serve(self) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            async with self.dependency:
                self._ready.set()
                await self._stop.wait()

        try:
            asyncio.run(main())
        except BaseException as exc:  # handed to the caller's thread by start()
            self._error = exc
        finally:
            self._ready.set()

    def start(self) -> DependencyApart:
        self._thread.start()
        if not self._ready.wait(START_TIMEOUT) or self._error is not None:
            self.stop()
            raise RuntimeError(f"the dependency did not start: {self._error or 'timed out'}")
        return self

    def stop(self) -> None:
        """Stop serving and join the thread (open requests are ended, the socket closed)."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(stop.set)
            except RuntimeError:  # its loop closed meanwhile: it has stopped already
                pass
        if self._thread.is_alive():
            self._thread.join()

    def __enter__(self) -> DependencyApart:
        return self.start()

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
