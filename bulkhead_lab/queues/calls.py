"""One call: one attempt of one request, from the round its caller makes it to the round it ends.

The callers (:mod:`bulkhead_lab.queues.callers`) make calls and give up on them; the dependency
(:mod:`bulkhead_lab.queues.dependency`) queues and serves them. A call's ``state`` says where its
caller stands: ``WAITING`` for a place in the callers' bulkhead, ``SENT`` to the dependency and
waiting for the answer, ``ANSWERED`` in time, or ``GONE`` (refused, dropped or timed out: the
caller no longer waits, whatever the dependency still does with the call).
"""

from __future__ import annotations

from dataclasses import dataclass

WAITING, SENT, ANSWERED, GONE = 0, 1, 2, 3


@dataclass(slots=True, eq=False)
class Call:
    """One attempt: made in round ``made``, given up on in round ``deadline`` (``made + timeout``)."""

    made: int
    deadline: int
    attempt: int = 1  # 1: the request's first try
    sleep: float = 0.0  # the backoff slept before it (decorrelated jitter grows from it)
    state: int = SENT
    sent: int = 0  # the round it reached the dependency
    queued: int = 0  # the round it joined the dependency's queue
    inflight: int = 0  # calls in flight through the bulkhead when it got its place, itself included

    @property
    def waiting(self) -> bool:
        """Is its caller still waiting for it?"""
        return self.state < ANSWERED
