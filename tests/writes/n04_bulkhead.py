"""Notebook 04, exercise 4: a bulkhead of the learner's own, judged by cockatiel's facts."""

from writes import Candidates

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
            await turn
        try:
            return await fn()
        finally:
            self.running -= 1
            while self.line and self.running < self.limit:
                self.running += 1
                self.line.popleft().set_result(None)
"""

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

KEEPS_PLACE_ON_ERROR = """class MyBulkhead:
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
        result = await fn()  # no finally: a call that raises never gives its place back
        self.running -= 1
        while self.line and self.running < self.limit:
            self.running += 1
            self.line.popleft().set_result(None)
        return result
"""

CANDIDATES = Candidates(
    notebook="04_fail_fast_queue.ipynb",
    exercise="write_bulkhead",
    number=4,
    name="MyBulkhead",
    right=RIGHT,
    broken={
        NO_QUEUE: "though a waiting place was free",
        NEWEST_FIRST: "waiting calls started out of order",
        KEEPS_PLACE_ON_ERROR: "a call that raised kept its place",
    },
)
