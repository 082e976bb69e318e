"""What the kernel says is listening, waiting for a condition with a deadline, and a cell interrupted or
cancelled as a learner would: the tests' view of a port and of a stopped run, independent of the package."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from threads import ours

DEADLINE = 20.0  # seconds a poll waits before it fails: far above what an idle machine needs


async def until(condition: Callable[[], object], what: str, timeout: float = DEADLINE) -> None:
    """Poll ``condition`` every few milliseconds until it holds; fail naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not seen within {timeout:g} s: {what}")
        await asyncio.sleep(0.005)


def until_sync(condition: Callable[[], object], what: str, timeout: float = DEADLINE) -> None:
    """:func:`until` for code without an event loop."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not seen within {timeout:g} s: {what}")
        time.sleep(0.005)


def listening(port: int) -> bool:
    """True if something on this machine listens on ``port``."""
    return bool(listening_addresses(port))


def listening_addresses(port: int) -> set[str]:
    """Local addresses in state LISTEN on ``port``, read from /proc/net/tcp and /proc/net/tcp6."""
    found: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            address, hex_port = fields[1].split(":")
            if fields[3] == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                ipv4 = len(address) == 8
                found.add(socket.inet_ntoa(bytes.fromhex(address)[::-1]) if ipv4 else "ipv6:" + address)
    return found


def own_sockets(state: str, pid: int | str = "self") -> list[tuple[int, int]]:
    """(local port, remote port) of the TCP sockets in ``state`` of this process (or of ``pid``), from
    /proc, nothing assumed."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    with open(f"/proc/{pid}/net/tcp") as f:
        next(f)
        for line in f:
            cols = line.split()
            if cols[3] == state and cols[9] in inodes:
                found.append((int(cols[1].split(":")[1], 16), int(cols[2].split(":")[1], 16)))
    return found


def listening_ports(pid: int | str = "self") -> set[int]:
    """The TCP ports this process (or ``pid``) is listening on."""
    return {local for local, _ in own_sockets("0A", pid)}  # 0A = LISTEN


def settled(threads: set[threading.Thread], ports: set[int]) -> None:
    """Every thread and listening port a run opened is gone, polled with a deadline: a learner's loop that
    never ends stops at its 2 s of CPU time, slower on a busy machine."""
    until_sync(
        lambda: ours() <= threads and listening_ports() <= ports, "the run's threads and ports gone", 60
    )


def interrupted_after(seconds: float, cell: Callable[[], Any]) -> tuple[BaseException | Any, float]:
    """``cell()`` run as a kernel runs one (inside an event loop), SIGINT after ``seconds``: what it raised
    (or returned) and how long it took."""
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))

    async def run() -> Any:
        timer.start()
        return cell()

    loop = asyncio.new_event_loop()
    started = time.monotonic()
    try:
        try:
            outcome: Any = loop.run_until_complete(run())
        except KeyboardInterrupt as stop:
            outcome = stop
        return outcome, time.monotonic() - started
    finally:
        timer.cancel()
        loop.close()


_CANCELLING = """
import asyncio
import sys
sys.path.append("..")  # tests/, for loopback's import of threads
from loopback import listening_ports
{imports}

RUNS = [{runs}]

async def main():
    for make in RUNS:
        for delay in {delays!r}:
            task = asyncio.create_task(make())
            await asyncio.sleep(delay)
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                print("cancelled", len(listening_ports()))
    await asyncio.sleep(0.5)  # anything left behind would wake and complain now

asyncio.run(main())
"""


def cancelled_at(
    delays: Sequence[float], imports: str, runs: Sequence[str], timeout: float = 180
) -> list[str]:
    """Kernel > Interrupt at random points, in a fresh Python: each of ``runs`` (an expression making a
    coroutine, after ``imports``) started and cancelled after each of ``delays`` seconds. The lines it
    printed, one ``cancelled N`` per cancel (N: ports this process still listens on); any stderr fails."""
    script = _CANCELLING.format(
        imports=imports, runs=", ".join(f"lambda: {r}" for r in runs), delays=list(delays)
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=Path(__file__).parent,
    )
    assert done.stderr == ""
    return done.stdout.splitlines()
