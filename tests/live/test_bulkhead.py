"""The bulkhead, step by step in the style of Polly's bulkhead specs.

After each step the tests assert how many calls run, how many wait and how many were
refused; every call is gated by an event the test opens, so nothing depends on timing.
"""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from bulkhead_lab.live.bulkhead import BulkheadError, BulkheadRejectedError
from bulkhead_lab.live.bulkhead import InstrumentedBulkhead as Bulkhead  # the cell's, with its counters
from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.net.key import key_headers

pytestmark = pytest.mark.anyio


class Gated:
    """Calls that hold their place until the test opens their gate, and a tally of outcomes."""

    def __init__(self, bulkhead: Bulkhead) -> None:
        self.bulkhead = bulkhead
        self.gates: list[asyncio.Event] = []
        self.tasks: list[asyncio.Task[str]] = []
        self.started: list[int] = []
        self.completed = 0
        self.rejected = 0
        self.cancelled = 0

    async def _call(self, i: int) -> str:
        try:
            result = await self.bulkhead.execute(self._work, i)
        except BulkheadRejectedError:
            self.rejected += 1
            raise
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        self.completed += 1
        return result

    async def _work(self, i: int) -> str:
        self.started.append(i)
        await self.gates[i].wait()
        return f"done {i}"

    async def submit(self, n: int = 1) -> None:
        for _ in range(n):
            i = len(self.gates)
            self.gates.append(asyncio.Event())
            self.tasks.append(asyncio.create_task(self._call(i)))
        await settle()

    async def finish(self, i: int) -> None:
        self.gates[i].set()
        await settle()

    async def finish_all(self) -> None:
        """Open every gate, oldest first, and wait for every call to end."""
        for i in range(len(self.gates)):
            await self.finish(i)
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def settle() -> None:
    """Let every ready task run until it blocks again."""
    for _ in range(5):
        await asyncio.sleep(0)


def expect(b: Bulkhead, running: int, queued: int, rejected: int) -> None:
    assert (b.running, b.queued, b.rejected) == (running, queued, rejected)
    assert b.execution_slots == max(0, b.limit - running)  # none free while a lowered limit is exceeded
    assert b.queue_slots == b.queue - queued


async def test_a_5_plus_5_bulkhead_runs_5_queues_5_and_refuses_the_rest() -> None:
    b = Bulkhead(5, 5)
    calls = Gated(b)
    await calls.submit(3)
    expect(b, running=3, queued=0, rejected=0)
    await calls.submit(2)
    expect(b, running=5, queued=0, rejected=0)
    await calls.submit(5)
    expect(b, running=5, queued=5, rejected=0)
    await calls.submit(10)
    expect(b, running=5, queued=5, rejected=10)
    assert calls.started == [0, 1, 2, 3, 4]

    await calls.finish(0)  # the oldest waiter takes the freed place
    expect(b, running=5, queued=4, rejected=10)
    assert calls.started[-1] == 5
    await calls.submit(1)  # one waiting place is free again
    expect(b, running=5, queued=5, rejected=10)

    await calls.finish_all()
    expect(b, running=0, queued=0, rejected=10)
    assert calls.started == list(range(10)) + [20]  # first come, first served
    assert calls.completed + calls.rejected == len(calls.tasks) == 21
    assert b.stats() == {
        "running": 0,
        "queued": 0,
        "executionSlots": 5,
        "queueSlots": 5,
        "rejected": 10,
        "limit": 5,
    }


async def test_the_refusal_is_raised_at_once_and_states_the_capacity() -> None:
    b = Bulkhead(5, 5)
    calls = Gated(b)
    await calls.submit(10)
    call = b.execute(asyncio.sleep, 10)
    with pytest.raises(BulkheadRejectedError) as info:
        call.send(None)  # the first step of the coroutine already refuses: no waiting at all
    assert str(info.value) == "bulkhead full: 5/5 running, 5/5 queued"
    assert (info.value.limit, info.value.queue, info.value.running, info.value.queued) == (5, 5, 5, 5)
    assert isinstance(info.value, BulkheadError)
    await calls.finish_all()


async def test_a_bulkhead_without_a_queue_refuses_as_soon_as_all_places_run() -> None:
    b = Bulkhead(2, 0)
    calls = Gated(b)
    await calls.submit(3)
    expect(b, running=2, queued=0, rejected=1)
    with pytest.raises(BulkheadRejectedError, match=r"^bulkhead full: 2/2 running, 0/0 queued$"):
        await calls.tasks[2]
    await calls.finish_all()


async def test_cancelling_a_waiting_call_frees_its_waiting_place() -> None:
    b = Bulkhead(2, 2)
    calls = Gated(b)
    await calls.submit(4)
    expect(b, running=2, queued=2, rejected=0)
    calls.tasks[2].cancel()
    await settle()
    expect(b, running=2, queued=1, rejected=0)
    await calls.submit(1)  # queued, not refused
    expect(b, running=2, queued=2, rejected=0)
    await calls.finish(0)
    assert calls.started == [0, 1, 3]  # the cancelled call never ran
    await calls.finish_all()
    expect(b, running=0, queued=0, rejected=0)
    assert (calls.completed, calls.cancelled) == (4, 1)


async def test_cancelling_a_running_call_hands_its_place_to_the_oldest_waiter() -> None:
    b = Bulkhead(2, 2)
    calls = Gated(b)
    await calls.submit(4)
    calls.tasks[0].cancel()
    await settle()
    expect(b, running=2, queued=1, rejected=0)
    assert calls.started == [0, 1, 2]
    await calls.finish_all()
    expect(b, running=0, queued=0, rejected=0)


async def test_a_place_handed_to_a_waiter_cancelled_in_the_same_moment_passes_on() -> None:
    b = Bulkhead(1, 2)
    await b.acquire()
    first = asyncio.create_task(b.acquire())
    second = asyncio.create_task(b.acquire())
    await settle()
    expect(b, running=1, queued=2, rejected=0)
    b.release()  # hands the place to `first` ...
    first.cancel()  # ... which is cancelled before it could resume
    await settle()
    assert first.cancelled()
    assert second.done() and second.exception() is None  # the place went on to `second`
    expect(b, running=1, queued=0, rejected=0)
    b.release()
    expect(b, running=0, queued=0, rejected=0)


async def test_a_call_that_fails_gives_its_place_back() -> None:
    b = Bulkhead(1, 0)

    async def boom() -> None:
        raise RuntimeError("dependency broke")

    with pytest.raises(RuntimeError, match="dependency broke"):
        await b.execute(boom)
    expect(b, running=0, queued=0, rejected=0)
    assert await b.execute(asyncio.sleep, 0, "ok") == "ok"


async def test_release_without_acquire_is_an_error() -> None:
    with pytest.raises(BulkheadError, match="without a matching acquire"):
        Bulkhead(1).release()


@pytest.mark.parametrize(
    ("limit", "queue", "message"),
    [
        (0, 5, "limit must be an integer >= 1 (got 0)"),
        (2.5, 5, "limit must be an integer >= 1 (got 2.5)"),
        (True, 5, "limit must be an integer >= 1 (got True)"),
        (5, -1, "queue must be an integer >= 0 (got -1)"),
        (5, "5", "queue must be an integer >= 0 (got '5')"),
    ],
)
def test_bad_sizes_are_refused_with_one_line(limit: object, queue: object, message: str) -> None:
    with pytest.raises(ValueError) as info:
        Bulkhead(limit, queue)  # type: ignore[arg-type]
    assert str(info.value) == message
    assert "\n" not in str(info.value)


@pytest.mark.live
async def test_2000_requests_through_a_5_plus_5_bulkhead_never_put_more_than_5_on_the_dependency() -> None:
    sent = 2000
    b = Bulkhead(5, 5)
    async with (
        Dependency("payment", 0.004) as dep,
        aiohttp.ClientSession(  # the bulkhead is the limit
            connector=aiohttp.TCPConnector(limit=0), headers=key_headers(dep.url)
        ) as client,
    ):

        async def call() -> str:
            try:
                async with b:
                    async with client.post(dep.url + "/pay") as r:
                        await r.read()
                        assert r.status == 200
            except BulkheadRejectedError:
                return "refused"
            return "served"

        tasks = []
        for wave in range(sent // 20):  # bursts of 20, faster than 5 places can serve them
            tasks += [asyncio.create_task(call()) for _ in range(20)]
            await asyncio.sleep(0.002 if wave % 2 else 0.02)
        outcomes = await asyncio.gather(*tasks)
    served, refused = outcomes.count("served"), outcomes.count("refused")
    assert served + refused == sent
    assert dep.peak == 5  # filled, never exceeded
    assert dep.calls == served and b.rejected == refused
    assert served > 0 and refused > 0
    expect(b, running=0, queued=0, rejected=refused)


# --- a limit that moves, and the timeline the figures draw ------------------------------------------


async def test_raising_the_limit_admits_the_oldest_waiters_at_once() -> None:
    b = Bulkhead(2, 5)
    calls = Gated(b)
    await calls.submit(5)
    expect(b, running=2, queued=3, rejected=0)
    b.set_limit(4)
    await settle()
    expect(b, running=4, queued=1, rejected=0)
    assert calls.started == [0, 1, 2, 3]  # first come, first served
    await calls.finish_all()


async def test_lowering_the_limit_cuts_nothing_off_and_admits_no_one_until_enough_calls_end() -> None:
    b = Bulkhead(4, 5)
    calls = Gated(b)
    await calls.submit(6)
    b.set_limit(2)
    expect(b, running=4, queued=2, rejected=0)  # the four running go on
    assert b.execution_slots == 0
    await calls.finish(0)
    await calls.finish(1)
    expect(b, running=2, queued=2, rejected=0)  # 3 of 4 would be over the new limit: nobody admitted
    await calls.finish(2)
    expect(b, running=2, queued=1, rejected=0)  # one ended under the limit: the oldest waiter runs
    assert calls.started == [0, 1, 2, 3, 4]
    await calls.finish_all()
    expect(b, running=0, queued=0, rejected=0)


def test_a_bad_limit_is_refused_with_one_line_and_the_limit_stays() -> None:
    b = Bulkhead(3, 1)
    with pytest.raises(ValueError, match=r"^limit must be an integer >= 1 \(got 0\)$"):
        b.set_limit(0)
    assert b.limit == 3


async def test_the_timeline_records_running_queued_refused_and_limit_at_every_change() -> None:
    b = Bulkhead(1, 1, timeline=True)
    calls = Gated(b)
    await calls.submit(3)  # one runs, one waits, one is refused
    b.set_limit(2)  # the waiter runs at once
    await settle()
    await calls.finish(0)
    await calls.finish(1)
    await asyncio.gather(*calls.tasks, return_exceptions=True)
    rows = [p[1:] for p in b.timeline]  # (running, queued, rejected, limit)
    assert rows == [
        (0, 0, 0, 1),
        (1, 0, 0, 1),
        (1, 1, 0, 1),
        (1, 1, 1, 1),  # the refusal is a point of its own
        (2, 0, 1, 2),
        (1, 0, 1, 2),
        (0, 0, 1, 2),
    ]
    times = [p.t for p in b.timeline]
    assert times == sorted(times) and times[0] >= 0.0
    b.reset()
    assert [p[1:] for p in b.timeline] == [(0, 0, 0, 2)] and b.rejected == 0


def test_a_bulkhead_records_no_timeline_unless_asked() -> None:
    b = Bulkhead(1, 0)
    assert b.timeline == [] and not b.record_timeline
