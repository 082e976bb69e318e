"""Notebook 04, exercise 4: a bulkhead of the learner's own, judged by its contract over generated
schedules (arrivals, finishes, failures, interrupts and cancellations, several in one loop tick)."""

from writes import Candidates, changed

# A count and a deque of futures, as the course's, with the waiter's cancellation handled in one place.
RIGHT = """class MyBulkhead:
    def __init__(self, limit, queue):
        self.limit, self.queue, self.running = limit, queue, 0
        self.line = deque()

    async def execute(self, fn):
        if self.running < self.limit and not self.line:
            self.running += 1
        elif len(self.line) >= self.queue:
            raise RuntimeError("busy, try again")
        else:
            turn = asyncio.get_running_loop().create_future()
            self.line.append(turn)
            try:
                await turn
            except asyncio.CancelledError:
                if turn.cancelled():
                    self.line.remove(turn)  # it left the line before its turn came
                else:
                    self._give_back()  # its turn came just as it left: pass the place on
                raise
        try:
            return await fn()
        finally:
            self._give_back()

    def _give_back(self):
        self.running -= 1
        while self.line and self.running < self.limit:
            turn = self.line.popleft()
            if not turn.done():  # cancelled in this very tick: it has not left the line yet
                self.running += 1
                turn.set_result(None)
"""

# asyncio's own Semaphore for the places, a count for the line.
SEMAPHORE = """class MyBulkhead:
    def __init__(self, limit, queue):
        self.places = asyncio.Semaphore(limit)
        self.queue = queue
        self.in_line = 0

    async def execute(self, fn):
        if self.places.locked():
            if self.in_line >= self.queue:
                raise OverflowError("bulkhead full")
            self.in_line += 1
            try:
                await self.places.acquire()
            finally:
                self.in_line -= 1
        else:
            await self.places.acquire()
        try:
            return await fn()
        finally:
            self.places.release()
"""

# Free places counted down; a freed place handed straight to the oldest live waiter, the count untouched.
HAND_OFF = """class MyBulkhead:
    def __init__(self, limit, queue):
        self.free = limit
        self.room = queue
        self.waiters = []

    def _hand_on(self):
        while self.waiters:
            waiter = self.waiters.pop(0)
            if not waiter.done():
                waiter.set_result(True)
                return
        self.free += 1

    async def execute(self, fn):
        if self.free > 0:
            self.free -= 1
        elif len(self.waiters) < self.room:
            waiter = asyncio.get_running_loop().create_future()
            self.waiters.append(waiter)
            try:
                await waiter
            except BaseException:
                if waiter in self.waiters:
                    self.waiters.remove(waiter)
                elif waiter.done() and not waiter.cancelled():
                    self._hand_on()
                raise
        else:
            raise Exception("no room")
        try:
            result = await fn()
        except BaseException:
            self._hand_on()
            raise
        self._hand_on()
        return result
"""

# Numbered tickets: an Event per waiter in a dict, the lowest ticket served first, a context manager.
TICKETS = """import contextlib


class MyBulkhead:
    def __init__(self, limit, queue):
        self.limit = limit
        self.queue = queue
        self.taken = 0
        self.tickets = {}
        self.issued = 0

    @contextlib.asynccontextmanager
    async def place(self):
        if self.taken < self.limit and not self.tickets:
            self.taken += 1
        elif len(self.tickets) < self.queue:
            self.issued += 1
            ticket, called = self.issued, asyncio.Event()
            self.tickets[ticket] = called
            try:
                await called.wait()
            except asyncio.CancelledError:
                if self.tickets.pop(ticket, None) is None:  # called already: its place is ours to pass on
                    self.leave()
                raise
        else:
            raise RuntimeError(f"full: {self.taken} running, {len(self.tickets)} waiting")
        try:
            yield
        finally:
            self.leave()

    def leave(self):
        self.taken -= 1
        while self.tickets and self.taken < self.limit:
            ticket = min(self.tickets)
            self.tickets.pop(ticket).set()
            self.taken += 1

    async def execute(self, fn):
        async with self.place():
            return await fn()
"""

# Closures in __init__, the state in their cells, and the line a deque of (future) pairs.
CLOSURES = """class MyBulkhead:
    def __init__(self, limit, queue):
        state = {"busy": 0}
        line = deque()

        def release():
            while line:
                future = line.popleft()
                if not future.done():
                    future.set_result(None)  # the place passes on: busy stays the same
                    return
            state["busy"] -= 1

        async def execute(fn):
            if state["busy"] < limit:
                state["busy"] += 1
            elif len(line) < queue:
                future = asyncio.get_running_loop().create_future()
                line.append(future)
                try:
                    await future
                except asyncio.CancelledError:
                    if future.done() and not future.cancelled():
                        release()
                    elif future in line:
                        line.remove(future)
                    raise
            else:
                raise RuntimeError("busy")
            try:
                return await fn()
            finally:
                release()

        self.execute = execute
"""

# A Condition: every change wakes every waiter, each of which checks whether it is first and a place free.
CONDITION = """class MyBulkhead:
    def __init__(self, limit, queue):
        self.limit, self.queue = limit, queue
        self.changed = asyncio.Condition()
        self.running = 0
        self.line = deque()

    async def execute(self, fn):
        async with self.changed:
            if self.running >= self.limit or self.line:
                if len(self.line) >= self.queue:
                    raise RuntimeError("full")
                me = object()
                self.line.append(me)
                try:
                    await self.changed.wait_for(lambda: self.line[0] is me and self.running < self.limit)
                except BaseException:
                    self.line.remove(me)
                    self.changed.notify_all()
                    raise
                self.line.popleft()
                self.changed.notify_all()  # the line moved: the next may go too
            self.running += 1
        try:
            return await fn()
        finally:
            async with self.changed:
                self.running -= 1
                self.changed.notify_all()
"""

# The project's former right answer: a cancelled waiter's future stays in the line.
CANCELLED_WAITER_STAYS = """class MyBulkhead:
    def __init__(self, limit, queue):
        self.limit, self.queue, self.running = limit, queue, 0
        self.line = deque()

    async def execute(self, fn):
        if self.running < self.limit and not self.line:
            self.running += 1
        elif len(self.line) >= self.queue:
            raise RuntimeError("busy, try again")
        else:
            turn = asyncio.get_running_loop().create_future()
            self.line.append(turn)
            await turn
        try:
            return await fn()
        finally:
            self.running -= 1
            while self.line and self.running < self.limit:
                self.running += 1
                self.line.popleft().set_result(None)
"""

# The waiter counts itself in when it resumes: a newcomer in that tick takes the freed place too.
BARGING = """class MyBulkhead:
    def __init__(self, limit, queue):
        self.limit, self.queue, self.running = limit, queue, 0
        self.line = deque()

    async def execute(self, fn):
        if self.running >= self.limit:
            if len(self.line) >= self.queue:
                raise RuntimeError("busy")
            turn = asyncio.get_running_loop().create_future()
            self.line.append(turn)
            try:
                await turn
            except asyncio.CancelledError:
                if turn in self.line:
                    self.line.remove(turn)
                raise
        self.running += 1
        try:
            return await fn()
        finally:
            self.running -= 1
            while self.line:
                turn = self.line.popleft()
                if not turn.done():
                    turn.set_result(None)
                    break
"""

# The place given back on success and on `except Exception`: a cancelled (or interrupted) call keeps it.
EXCEPT_EXCEPTION = RIGHT.replace(
    """        try:
            return await fn()
        finally:
            self._give_back()
""",
    """        try:
            result = await fn()
        except Exception:
            self._give_back()
            raise
        self._give_back()
        return result
""",
)

NO_QUEUE = """class MyBulkhead:
    def __init__(self, limit, queue):
        self.limit, self.running = limit, 0

    async def execute(self, fn):
        if self.running >= self.limit:
            raise RuntimeError("busy")
        self.running += 1
        try:
            return await fn()
        finally:
            self.running -= 1
"""

NEWEST_FIRST = RIGHT.replace("self.line.popleft()", "self.line.pop()")  # a stack, not a queue

# No finally: a call that raises never gives its place back.
KEEPS_PLACE_ON_ERROR = changed(
    CANCELLED_WAITER_STAYS,
    (
        "            return await fn()\n        finally:",
        "            result = await fn()\n        except BaseException:\n            raise\n        else:",
    ),
    ("set_result(None)\n", "set_result(None)\n            return result\n"),
)

# The line and the count on the class: every bulkhead shares them.
CLASS_STATE = """class MyBulkhead:
    running = 0
    line = deque()

    def __init__(self, limit, queue):
        self.limit, self.queue = limit, queue

    async def execute(self, fn):
        cls = type(self)
        if cls.running < self.limit and not cls.line:
            cls.running += 1
        elif len(cls.line) >= self.queue:
            raise RuntimeError("busy")
        else:
            turn = asyncio.get_running_loop().create_future()
            cls.line.append(turn)
            try:
                await turn
            except asyncio.CancelledError:
                if turn.cancelled():
                    cls.line.remove(turn)
                else:
                    self.release()
                raise
        try:
            return await fn()
        finally:
            self.release()

    def release(self):
        cls = type(self)
        cls.running -= 1
        while cls.line and cls.running < self.limit:
            cls.running += 1
            cls.line.popleft().set_result(None)
"""

# asyncio.Queue(maxsize=queue) as the line: maxsize 0 means no bound at all.
QUEUE_ZERO_UNBOUNDED = """class MyBulkhead:
    def __init__(self, limit, queue):
        self.places = asyncio.Semaphore(limit)
        self.line = asyncio.Queue(maxsize=queue)

    async def execute(self, fn):
        if self.places.locked():
            self.line.put_nowait(None)  # QueueFull when the line is full
            try:
                await self.places.acquire()
            finally:
                self.line.get_nowait()
        else:
            await self.places.acquire()
        try:
            return await fn()
        finally:
            self.places.release()
"""

# One waiting place too many: > where >= belongs.
ONE_TOO_MANY_WAIT = RIGHT.replace("len(self.line) >= self.queue", "len(self.line) > self.queue")

# A full bulkhead that waits a moment before it refuses.
REFUSES_LATE = RIGHT.replace(
    '            raise RuntimeError("busy, try again")',
    '            await asyncio.sleep(0.05)\n            raise RuntimeError("busy, try again")',
)

# A semaphore alone: every call beyond the limit waits, none is refused.
NEVER_REFUSES = """class MyBulkhead:
    def __init__(self, limit, queue):
        self.places = asyncio.Semaphore(limit)

    async def execute(self, fn):
        async with self.places:
            return await fn()
"""

# A waiter cancelled just after its turn came leaves the line, and the place it was handed is lost.
LOSES_A_HANDED_PLACE = RIGHT.replace(
    """                if turn.cancelled():
                    self.line.remove(turn)  # it left the line before its turn came
                else:
                    self._give_back()  # its turn came just as it left: pass the place on
""",
    """                if turn in self.line:
                    self.line.remove(turn)
""",
)

# Polling for a free place: whoever looks first takes it, newcomers included.
POLLS = """class MyBulkhead:
    def __init__(self, limit, queue):
        self.limit, self.queue = limit, queue
        self.running = 0
        self.waiting = 0

    async def execute(self, fn):
        if self.running >= self.limit:
            if self.waiting >= self.queue:
                raise RuntimeError("busy")
            self.waiting += 1
            try:
                while self.running >= self.limit:
                    await asyncio.sleep(0)
            finally:
                self.waiting -= 1
        self.running += 1
        try:
            return await fn()
        finally:
            self.running -= 1
"""

# The same Condition, but the line moving wakes no one: a second free place waits for the next change.
LOST_WAKEUP = CONDITION.replace("self.changed.notify_all()  # the line moved: the next may go too", "pass")

FORGETS_THE_RESULT = RIGHT.replace("            return await fn()", "            await fn()")

CANDIDATES = Candidates(
    notebook="04_fail_fast_queue.ipynb",
    exercise="write_bulkhead",
    right=RIGHT,
    also_right=(SEMAPHORE, HAND_OFF, TICKETS, CLOSURES, CONDITION),
    template=(
        "Not yet: MyBulkhead(1, 0), step by step: 1. call 1 arrives (call 1 runs); 2. call 2 arrives: "
        "calls 1 and 2 ran at once, above the limit of 1, where by the contract running [1], waiting []. "
    ),
    broken={
        CANCELLED_WAITER_STAYS: "a cancelled waiter stays in line",
        BARGING: "a newcomer takes a place freed for a waiter",
        EXCEPT_EXCEPTION: "a cancelled or interrupted call keeps its place",
        NO_QUEUE: "no waiting place at all",
        NEWEST_FIRST: "waiting calls start newest first",
        KEEPS_PLACE_ON_ERROR: "a call that raised keeps its place",
        CLASS_STATE: "bulkheads share the class's state",
        QUEUE_ZERO_UNBOUNDED: "queue 0 is a line without end",
        ONE_TOO_MANY_WAIT: "one waiting place too many",
        REFUSES_LATE: "a full bulkhead refuses late",
        NEVER_REFUSES: "never refuses",
        LOSES_A_HANDED_PLACE: "a place handed to a waiter cancelled that moment is lost",
        POLLS: "polling lets newcomers take places",
        FORGETS_THE_RESULT: "execute returns None",
        LOST_WAKEUP: "a place freed wakes no waiter",
    },
)
