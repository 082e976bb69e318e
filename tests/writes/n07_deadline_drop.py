"""Notebook 07, exercise 4: a deadline drop of the learner's own, ``my_take_next(queue, now, service)``,
judged step by step against the course's rule on generated queues, then in section 2's storm."""

from writes import Candidates

# Drops from the front while the oldest cannot finish, then takes the oldest left (the browser types it).
RIGHT = """def my_take_next(queue, now, service):
    while queue and now + service > queue[0].deadline:
        queue.popleft()  # it cannot finish in time: dropped
    return queue.popleft() if queue else None
"""

# numpy: the queue is oldest first, so its deadlines are sorted; searchsorted finds the first that fits.
NUMPY = """import numpy as np

def my_take_next(queue, now, service):
    deadlines = np.array([call.deadline for call in queue], dtype=np.int64)
    first = np.searchsorted(deadlines, now + service)  # a numpy int
    for _ in range(first):
        queue.popleft()
    return queue.popleft() if queue else None
"""

# A class: the rule as an object, called as the function would be.
CALLABLE = """class DeadlineDrop:
    def fits(self, call, now, service):
        return call.deadline - now >= service

    def __call__(self, queue, now, service):
        for _ in range(len(queue)):
            call = queue.popleft()
            if self.fits(call, now, service):
                return call
        return None


my_take_next = DeadlineDrop()
"""

# itertools: what is left once the calls that cannot finish are dropped, put back behind the one taken.
DROPWHILE = """import itertools

def my_take_next(queue, now, service):
    waiting = list(itertools.dropwhile(lambda call: call.deadline < now + service, queue))
    queue.clear()
    queue.extend(waiting[1:])
    return waiting[0] if waiting else None
"""

# Recursion: drop one, ask again.
RECURSIVE = """def my_take_next(queue, now, service):
    if not queue:
        return None
    call = queue.popleft()
    return call if call.deadline >= now + service else my_take_next(queue, now, service)
"""

# bisect over the deque by deadline (Python 3.10's key=).
BISECT = """import bisect

def my_take_next(queue, now, service):
    first = bisect.bisect_left(queue, now + service, key=lambda call: call.deadline)
    for _ in range(first):
        queue.popleft()
    return queue.popleft() if queue else None
"""

# The deadline as the notebook defines it (made + 30), and whether its caller still waits.
MADE_PLUS_TIMEOUT = """TIMEOUT = 30

def my_take_next(queue, now, service):
    while queue:
        call = queue.popleft()
        if call.waiting and now + service <= call.made + TIMEOUT:
            return call
    return None
"""

# The notebook's template: serves the oldest, whoever still waits for it.
TEMPLATE = """def my_take_next(queue, now, service):
    if not queue:
        return None
    return queue.popleft()
"""

# Exercise 2's half-fix: drops only what has already expired, so it still starts calls that end late.
EXPIRED_ONLY = """def my_take_next(queue, now, service):
    while queue:
        call = queue.popleft()
        if now < call.deadline:
            return call
    return None
"""

# Off by one at the deadline: counts the call's last round of service as "done".
OFF_BY_ONE = """def my_take_next(queue, now, service):
    while queue:
        call = queue.popleft()
        if now + service - 1 <= call.deadline:
            return call
    return None
"""

# Strict where it need not be: drops a call that would be answered exactly at its deadline.
TOO_STRICT = """def my_take_next(queue, now, service):
    while queue:
        call = queue.popleft()
        if now + service < call.deadline:
            return call
    return None
"""

# The healthy day's 6 rounds, written in: the slowdown's 22-round calls start late.
HEALTHY_SERVICE = """def my_take_next(queue, now, service):
    while queue:
        call = queue.popleft()
        if now + 6 <= call.deadline:
            return call
    return None
"""

# Finds the right call but leaves it in the queue: a worker would serve it again.
PEEKS = """def my_take_next(queue, now, service):
    for call in queue:
        if now + service <= call.deadline:
            return call
    return None
"""

# Skips the calls that cannot finish instead of dropping them: they stay at the front.
SKIPS = """def my_take_next(queue, now, service):
    for call in list(queue):
        if now + service <= call.deadline:
            queue.remove(call)
            return call
    return None
"""

# No guard: popleft on an empty queue, or once every call was dropped.
NO_GUARD = """def my_take_next(queue, now, service):
    call = queue.popleft()
    while now + service > call.deadline:
        call = queue.popleft()
    return call
"""

# Drops one late call per turn and says None, though a call behind it could start.
ONE_PER_TURN = """def my_take_next(queue, now, service):
    if not queue:
        return None
    call = queue.popleft()
    return call if now + service <= call.deadline else None
"""

# Newest first: takes from the back, so the oldest calls that could finish wait and expire.
NEWEST_FIRST = """def my_take_next(queue, now, service):
    while queue:
        call = queue.pop()
        if now + service <= call.deadline:
            return call
    return None
"""

# Marks a dropped call as gone itself: its caller is never told and never retries.
MARKS_GONE = """from bulkhead_lab.queues.calls import GONE

def my_take_next(queue, now, service):
    while queue:
        call = queue.popleft()
        if now + service <= call.deadline:
            return call
        call.state = GONE
    return None
"""

# Drops by the queue's length (the 32 a 30-round timeout allows on a healthy day), not by deadline.
BY_LENGTH = """def my_take_next(queue, now, service):
    while len(queue) > 32:
        queue.popleft()
    return queue.popleft() if queue else None
"""

# Serves only calls that did not wait: drops calls that would have been answered in time.
ONLY_UNQUEUED = """def my_take_next(queue, now, service):
    while queue:
        call = queue.popleft()
        if call.queued == now:
            return call
    return None
"""

# Remembers the round: once it has dropped in a round, it takes the front without looking.
REMEMBERS_THE_ROUND = """last = {"now": None}

def my_take_next(queue, now, service):
    if last["now"] == now:
        return queue.popleft() if queue else None
    last["now"] = now
    while queue:
        call = queue.popleft()
        if now + service <= call.deadline:
            return call
    return None
"""

CANDIDATES = Candidates(
    notebook="07_timeouts_and_queues.ipynb",
    exercise="write_deadline_drop",
    number=4,
    name="my_take_next",
    right=RIGHT,
    also_right=(NUMPY, CALLABLE, DROPWHILE, RECURSIVE, BISECT, MADE_PLUS_TIMEOUT),
    broken={
        TEMPLATE: "serves every call, whoever still waits (the template)",
        EXPIRED_ONLY: "drops only what has expired (exercise 2's half-fix)",
        OFF_BY_ONE: "one round late counts as in time",
        TOO_STRICT: "drops a call answered exactly at its deadline",
        HEALTHY_SERVICE: "the healthy service time written in",
        PEEKS: "leaves the call it returns in the queue",
        SKIPS: "skips the late calls instead of dropping them",
        NO_GUARD: "popleft on an empty queue",
        ONE_PER_TURN: "None while a call behind could start",
        NEWEST_FIRST: "takes the newest, not the oldest that fits",
        MARKS_GONE: "changes a dropped call's state",
        BY_LENGTH: "drops by the queue's length, not by deadline",
        ONLY_UNQUEUED: "drops calls that waited, in time or not",
        REMEMBERS_THE_ROUND: "depends on its earlier calls",
    },
)
