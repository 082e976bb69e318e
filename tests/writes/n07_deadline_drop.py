"""Notebook 07, exercise 4: a deadline drop of the learner's own, ``my_take_next(queue, now, service)``,
judged step by step against the course's rule on generated queues, then in section 2's storm."""

from writes import Candidates, changed

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

# Drops by the queue's length (the 32 a 30-round timeout allows on a healthy day), not by deadline.
BY_LENGTH = """def my_take_next(queue, now, service):
    while len(queue) > 32:
        queue.popleft()
    return queue.popleft() if queue else None
"""

# The course's own step: right as it stands; each broken one below changes it a little.
DROP = """def my_take_next(queue, now, service):
    while queue:
        call = queue.popleft()
        if now + service <= call.deadline:
            return call
    return None
"""
FITS = "now + service <= call.deadline"
EXPIRED_ONLY = changed(DROP, (FITS, "now < call.deadline"))  # exercise 2's half-fix: still starts late calls
OFF_BY_ONE = changed(DROP, (FITS, "now + service - 1 <= call.deadline"))  # its last round counted as done
TOO_STRICT = changed(DROP, (FITS, "now + service < call.deadline"))  # answered at its deadline is in time
HEALTHY_SERVICE = changed(DROP, (FITS, "now + 6 <= call.deadline"))  # the healthy day's 6 rounds written in
ONLY_UNQUEUED = changed(DROP, (FITS, "call.queued == now"))  # drops every call that waited
NEWEST_FIRST = changed(DROP, ("popleft", "pop"))  # the oldest calls that could finish wait and expire
MARKS_GONE = "from bulkhead_lab.queues.calls import GONE\n" + changed(  # its caller is never told
    DROP, ("            return call\n", "            return call\n        call.state = GONE\n")
)
PEEKS = changed(DROP, ("while queue:\n        call = queue.popleft()", "for call in queue:"))  # served twice
REMEMBERS_THE_ROUND = 'last = {"now": None}\n' + changed(  # once it has dropped in a round, takes the front
    DROP,
    (
        "    while",
        '    if last["now"] == now:\n'
        "        return queue.popleft() if queue else None\n"
        '    last["now"] = now\n    while',
    ),
)

CANDIDATES = Candidates(
    notebook="07_timeouts_and_queues.ipynb",
    exercise="write_deadline_drop",
    right=RIGHT,
    also_right=(NUMPY, CALLABLE, DROPWHILE, RECURSIVE, BISECT, MADE_PLUS_TIMEOUT),
    template=(
        "Not yet: my_take_next(q, now=120, service=6) with q = 1 call due at rounds [125], oldest first: it "
        "returned call 1 (due 125) and left q = [], where the deadline drop drops call 1 (due 125), returns "
        "None and leaves q = []: call 1 (due 125) is answered in round 126, 1 round after its caller gives "
        "up. Replay: exercises.replay_step(my_take_next, [125], now=120, service=6)"
    ),
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
