"""The dependency at work: its workers, its queue, and what it drops (notebook 07, section 2).

:class:`Server` is a :class:`~bulkhead_lab.queues.settings.Dependency` running, one round at a
time. :meth:`Server.finish` frees the workers whose calls end now; :meth:`Server.serve` lets the
free workers take waiting calls (oldest or newest first), dropping those that waited too long
(Fail at Scale's CoDel-like queue timeout) or whose caller's deadline rules them out, then starts,
queues or refuses the round's new calls. The dependency never knows whether a caller still waits: a
call whose caller has gone is served all the same unless a rule drops it. That is the work a storm
wastes.
"""

from __future__ import annotations

from collections import deque

from bulkhead_lab.queues.calls import Call
from bulkhead_lab.queues.settings import Dependency


# fmt: off
# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/07_timeouts_and_queues.ipynb, section 2. The storm that stays
def may_start(d: Dependency, call: Call, t: int, service: int, emptied: int) -> bool:
    """May a worker of ``d`` start ``call`` in round ``t``? Not if one of its rules drops it.
    ``service``: how long the call would take; ``emptied``: the last round the queue was empty."""
    if d.deadline == "expired" and t >= call.deadline:
        return False  # its caller has already given up
    if d.deadline == "cannot finish" and t + service > call.deadline:
        return False  # its caller would give up before it is done
    if d.queue_timeout is not None and t > call.queued:
        stood = t - emptied > d.queue_timeout.interval  # the queue has not been empty for an interval
        return t - call.queued <= (d.queue_timeout.target if stood else d.queue_timeout.interval)
    return True


# Defined in notebooks/07_timeouts_and_queues.ipynb, section 2. The storm that stays
class Server:
    """A dependency at work: ``workers`` calls in service, the others in its queue."""

    def __init__(self, dependency: Dependency, rounds: int, longest: int) -> None:
        self.settings = dependency
        self.queue: deque[Call] = deque()
        self.busy = 0  # workers serving a call
        self.ends: list[list[Call]] = [[] for _ in range(rounds + longest + 1)]  # by the round they end
        self.emptied = 0  # the last round its queue was empty
        self.strict = dependency.deadline != "ignored" or dependency.queue_timeout is not None  # drops calls

    def finish(self, t: int) -> list[Call]:
        """The calls whose service ends in round ``t``: their workers are free again."""
        done = self.ends[t]
        self.busy -= len(done)
        return done

    def serve(self, t: int, calls: list[Call], service: int) -> tuple[list[Call], list[Call]]:
        """Round ``t``: free workers take waiting calls, then ``calls`` start, wait or are refused.
        A call started now takes ``service`` rounds. Returns (refused, dropped)."""
        d, queue, ends = self.settings, self.queue, self.ends[t + service]
        refused: list[Call] = []
        dropped: list[Call] = []
        newest = d.order == "lifo" or (d.order == "adaptive lifo" and t - self.emptied > d.interval)
        while self.busy < d.workers and queue:
            call = queue.pop() if newest else queue.popleft()
            if self.strict and not may_start(d, call, t, service, self.emptied):
                dropped.append(call)
            else:
                self.busy += 1
                ends.append(call)  # it ends ``service`` rounds from now
        for call in calls:
            call.sent = call.queued = t
            if self.busy < d.workers and not queue:
                if self.strict and not may_start(d, call, t, service, self.emptied):
                    dropped.append(call)
                else:
                    self.busy += 1
                    ends.append(call)
            elif d.queue is None or len(queue) < d.queue:
                queue.append(call)
            else:
                refused.append(call)  # its queue is full: refused at once
        if not queue:
            self.emptied = t
        return refused, dropped


# <<< saved cells
# fmt: on
