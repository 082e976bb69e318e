"""Thread pool against semaphore: two ways to bound the calls to a slow dependency, live on 127.0.0.1.

- **A thread pool** (Hystrix's thread isolation) runs a *blocking* client (:mod:`http.client`)
  in ``slots`` threads of its own, refusing a call at once when every thread is busy (Hystrix's
  default: no queue). The calls block those threads, never the caller's event loop. A caller's
  timeout gives the *caller* its answer, but a thread cannot be stopped: it stays busy, and
  its call stays open at the dependency, until the call ends. Refusals go on after the callers
  have all left (Hystrix's lesson: a timeout frees the caller, not the thread).
- **A semaphore** (Hystrix's semaphore isolation, resilience4j's ``SemaphoreBulkhead``) lets
  ``slots`` *async* calls (aiohttp) run on the caller's own loop, refusing the rest at once. No
  thread is started. A timeout cancels the call: its socket closes, the permit is back at once,
  and the dependency, seeing its client leave, ends the request too.
- **On the loop**: the blocking client called straight from a coroutine. A semaphore could not
  help here: the loop itself stops until the call ends, every other task with it, and the
  call's own asyncio timeout cannot fire.

The dependency is served apart (:class:`~bulkhead_lab.live.net.own_loop.DependencyApart`), so a
blocked caller loop cannot stall it. :func:`run_isolation` runs one variant and returns its
facts: counts and who stayed busy (invariant), and seconds (timings, which vary). Nothing is
left running: the pool's threads are joined and the dependency stopped, on an interrupt too
(the dependency is stopped first, which ends the blocking calls at once).
"""

from __future__ import annotations

import asyncio
import http.client
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

import aiohttp

from bulkhead_lab.live.heap import heap_frozen
from bulkhead_lab.live.net.key import key_headers
from bulkhead_lab.live.net.lag import TICK, watch_lag
from bulkhead_lab.live.net.own_loop import DependencyApart

Isolation = Literal["thread pool", "semaphore", "on the loop"]
ISOLATIONS: tuple[Isolation, ...] = ("thread pool", "semaphore", "on the loop")
Outcome = Literal["answered", "timed out", "refused"]
DEADLINE = 30.0  # seconds a wait for a slot or a count may take on a busy machine before it fails


@dataclass(frozen=True)
class IsolationSettings:
    """``calls`` sent at once through ``slots``, to a dependency answering in ``latency`` s,
    by callers who give up after ``timeout`` s."""

    slots: int = 4
    calls: int = 8
    latency: float = 2.0
    timeout: float = 0.2


@dataclass(frozen=True)
class IsolationRun:
    """What one variant did: counts (invariant) and seconds (timings)."""

    isolation: Isolation
    settings: IsolationSettings
    outcomes: tuple[Outcome, ...]  # each caller's answer, in the order sent
    held_at_answers: int  # threads (or permits) still held when every caller had its answer
    next_call: Outcome  # one more call, sent just then
    dependency_calls: int  # calls the dependency counted in all
    dependency_peak: int  # the most it had open at once
    threads_started: int  # threads the isolation started
    longest_pause: float  # s: the longest the caller's loop stood still (its worst lag, net.lag)
    answered_after: float  # s until every caller had its answer
    freed_after: float  # s until every thread or permit was free again
    closed_after: float  # s until the dependency had nothing open
    memory_added: tuple[int, int] | None  # KiB of address space and resident memory added by then

    def count(self, outcome: Outcome) -> int:
        return self.outcomes.count(outcome)


class PoolFullError(Exception):
    """Every thread of the pool is busy: the call is refused at once."""


# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/08_choosing_compartments.ipynb, section 3. Thread pool against semaphore, live
class BoundedThreadPool:
    """``threads`` threads and no queue: a call finding them all busy is refused at once."""

    def __init__(self, threads: int) -> None:
        self._executor = ThreadPoolExecutor(threads, "bulkhead-lab-pool", initializer=self._started)
        self._places = threading.BoundedSemaphore(threads)
        self._lock = threading.Lock()
        self.threads_started = 0
        self.busy = 0  # threads inside a call right now

    def _started(self) -> None:
        with self._lock:
            self.threads_started += 1

    def _run(self, fn: Any, *args: Any) -> Any:
        with self._lock:
            self.busy += 1
        try:
            return fn(*args)
        finally:
            with self._lock:
                self.busy -= 1

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        if not self._places.acquire(blocking=False):
            raise PoolFullError("every thread of the pool is busy")
        future = self._executor.submit(self._run, fn, *args)
        future.add_done_callback(lambda _: self._places.release())
        return future

    def close(self) -> None:
        """Wait for every thread to finish its call, then join them."""
        self._executor.shutdown(wait=True)


# <<< saved cells


def blocking_get(port: int, timeout: float) -> int:
    """One synchronous HTTP GET to 127.0.0.1:``port`` (the thread waits for it); its status."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", "/work", headers=key_headers(f"http://127.0.0.1:{port}"))
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


async def until(condition: Any, what: str, deadline: float = DEADLINE) -> float:
    """Poll ``condition()`` until it holds; the monotonic time it did (one line if it never does)."""
    end = time.monotonic() + deadline
    while not condition():
        if time.monotonic() > end:
            raise RuntimeError(f"{what} did not happen within {deadline:g} s")
        await asyncio.sleep(0.002)
    return time.monotonic()


def memory_kib() -> tuple[int, int] | None:
    """(address space, resident) of this process in KiB, from /proc (None where there is none)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            fields = dict(line.split(":", 1) for line in status if ":" in line)
        return int(fields["VmSize"].split()[0]), int(fields["VmRSS"].split()[0])
    except (OSError, KeyError, ValueError):
        return None


@dataclass
class _Watch:
    """What every variant measures the same way: the clock, threads and memory."""

    t0: float = 0.0
    threads: int = 0
    memory: tuple[int, int] | None = None
    answered: float = 0.0
    threads_added: int = 0
    memory_added: tuple[int, int] | None = None

    def start(self) -> None:
        self.threads, self.memory = threading.active_count(), memory_kib()
        self.t0 = time.monotonic()

    def answers_in(self) -> None:
        """Every caller has its answer: note when, and the threads and memory added by then."""
        self.answered = time.monotonic()
        self.threads_added = max(0, threading.active_count() - self.threads)
        now = memory_kib()
        if now is not None and self.memory is not None:
            self.memory_added = (now[0] - self.memory[0], now[1] - self.memory[1])


async def _through_pool(s: IsolationSettings, dep: DependencyApart, watch: _Watch) -> tuple[Any, ...]:
    pool = BoundedThreadPool(s.slots)
    try:

        async def one() -> Outcome:
            try:
                future = pool.submit(blocking_get, dep.dependency.port, s.latency + DEADLINE)
            except PoolFullError:
                return "refused"
            try:
                await asyncio.wait_for(asyncio.wrap_future(future), s.timeout)
                return "answered"
            except asyncio.TimeoutError:
                return "timed out"  # the caller's answer; the thread goes on with the call

        watch.start()
        outcomes = tuple(await asyncio.gather(*(one() for _ in range(s.calls))))
        watch.answers_in()
        held = pool.busy
        next_call = await one()
        freed = await until(lambda: pool.busy == 0, "every pool thread free")
        return outcomes, held, next_call, freed
    finally:
        if pool.busy:
            dep.stop()  # interrupted: ending the dependency ends the blocking calls at once
        pool.close()


async def _behind_semaphore(s: IsolationSettings, dep: DependencyApart, watch: _Watch) -> tuple[Any, ...]:
    permits = asyncio.Semaphore(s.slots)
    held = 0
    async with aiohttp.ClientSession() as session:

        async def call() -> None:
            url = dep.dependency.url
            async with session.get(f"{url}/work", headers=key_headers(url)) as response:
                await response.read()

        async def one() -> Outcome:
            nonlocal held
            if permits.locked():
                return "refused"
            async with permits:  # a free permit is taken without waiting
                held += 1
                try:
                    await asyncio.wait_for(call(), s.timeout)
                    return "answered"
                except asyncio.TimeoutError:
                    return "timed out"  # the call is cancelled: its socket closes, the permit is back
                finally:
                    held -= 1

        watch.start()
        outcomes = tuple(await asyncio.gather(*(one() for _ in range(s.calls))))
        watch.answers_in()
        held_then = held
        next_call = await one()
        freed = await until(lambda: held == 0, "every permit free")
        return outcomes, held_then, next_call, freed


async def _on_the_loop(s: IsolationSettings, dep: DependencyApart, watch: _Watch) -> tuple[Any, ...]:
    async def blocked() -> int:
        # no await inside: the loop waits with it
        return blocking_get(dep.dependency.port, s.latency + DEADLINE)

    watch.start()
    try:
        await asyncio.wait_for(blocked(), s.timeout)
        outcome: Outcome = "answered"
    except asyncio.TimeoutError:
        outcome = "timed out"
    watch.answers_in()
    return (outcome,), 0, "answered", time.monotonic()


VARIANTS = {"thread pool": _through_pool, "semaphore": _behind_semaphore, "on the loop": _on_the_loop}


async def run_isolation(
    isolation: Isolation, settings: IsolationSettings = IsolationSettings()
) -> IsolationRun:
    """One variant against a dependency answering in ``settings.latency``; its facts.

    "on the loop" sends one call (each would stop the loop for the whole latency).
    """
    if isolation not in VARIANTS:
        raise ValueError(f"isolation must be one of {', '.join(ISOLATIONS)} (got {isolation!r})")
    with heap_frozen():  # a full collection over a notebook's memos would outlast the timeouts
        return await _measured(isolation, settings)


async def _measured(isolation: Isolation, settings: IsolationSettings) -> IsolationRun:
    with DependencyApart("dependency", settings.latency) as apart:
        dep = apart.dependency
        watch = _Watch()
        async with watch_lag() as lag:
            await asyncio.sleep(3 * TICK)  # the timer ticks before the calls start ...
            outcomes, held, next_call, freed = await VARIANTS[isolation](settings, apart, watch)
            closed = await until(lambda: dep.open == 0, "the dependency's calls all ended")
            await asyncio.sleep(3 * TICK)  # ... and after they end, so a pause shows whole
        return IsolationRun(
            isolation,
            settings,
            outcomes,
            held_at_answers=held,
            next_call=next_call,
            dependency_calls=dep.calls,
            dependency_peak=dep.peak,
            threads_started=watch.threads_added,
            longest_pause=lag.worst,
            answered_after=watch.answered - watch.t0,
            freed_after=freed - watch.t0,
            closed_after=closed - watch.t0,
            memory_added=watch.memory_added,
        )
