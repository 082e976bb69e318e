"""Notebook 07, exercise 4: a deadline drop of the learner's own, judged on section 2's storm."""

from writes import Candidates

RIGHT = """def my_take_next(queue, now, service):
    while queue:
        call = queue.popleft()
        if now + service <= call.deadline:
            return call
    return None
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

# Drops by the queue's length (the 32 a 30-round timeout allows on a healthy day), not by age.
BY_LENGTH = """def my_take_next(queue, now, service):
    while len(queue) > 32:
        queue.popleft()
    return queue.popleft()
"""

# Serves only calls that did not wait: drops fresh calls that would have been answered in time.
ONLY_UNQUEUED = """def my_take_next(queue, now, service):
    while queue:
        call = queue.popleft()
        if call.queued == now:
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

# Strict where it need not be: drops a call that would be answered exactly at its deadline.
TOO_STRICT = """def my_take_next(queue, now, service):
    while queue:
        call = queue.popleft()
        if now + service < call.deadline:
            return call
    return None
"""

CANDIDATES = Candidates(
    notebook="07_timeouts_and_queues.ipynb",
    exercise="write_deadline_drop",
    number=4,
    name="my_take_next",
    right=RIGHT,
    broken={
        EXPIRED_ONLY: "rounds after its caller gives up",
        OFF_BY_ONE: "1 round after its caller gives up",
        BY_LENGTH: "a worker started a call that ends in round",
        ONLY_UNQUEUED: "it dropped a call a worker could have started then and finished",
        PEEKS: "it returned a call it left in the queue: a worker would serve it twice",
        TOO_STRICT: "by its caller's deadline",
    },
)
