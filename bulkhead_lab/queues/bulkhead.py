"""The callers' bulkhead at work: places for calls in flight, a short line waiting for one, refusal
at once beyond (notebooks 04 and 06's bulkhead, between the callers and the dependency).

A place is held from the round a call is sent until it is answered, refused, dropped or timed out:
so its occupancy is the call rate times min(latency, timeout), and the dependency may still hold
work whose place was given back. A call waiting in the line keeps its caller's deadline; at that
deadline it leaves the line (the caller has gone). With an adaptive limit
(:class:`~bulkhead_lab.adaptive.pool.LimiterSpec`) each call that held a place is a sample when it
ends, as concurrency-limits reports one: answered, ``on_sample(latency, inflight)``; timed out,
``on_sample(latency so far, inflight, dropped=True)``; refused or dropped by the dependency,
``on_sample(0, inflight, dropped=True)`` (no round trip measured).
"""

from __future__ import annotations

from collections import deque

from bulkhead_lab.adaptive.limits import AdaptiveLimit
from bulkhead_lab.adaptive.pool import LimiterSpec
from bulkhead_lab.queues.calls import SENT, WAITING, Call
from bulkhead_lab.queues.settings import Bulkhead

ANSWERED_IN_TIME, TIMED_OUT, TURNED_AWAY = 0, 1, 2  # how a call that held a place ended


class Places:
    """A :class:`~bulkhead_lab.queues.settings.Bulkhead` at work."""

    def __init__(self, bulkhead: Bulkhead, seed: int) -> None:
        self.fixed = bulkhead.limit if isinstance(bulkhead.limit, int) else 0
        self.limiter: AdaptiveLimit | None = None
        if isinstance(bulkhead.limit, LimiterSpec):
            self.limiter = bulkhead.limit.build(seed)
        self.room = bulkhead.queue
        self.held = 0  # places held by calls in flight
        self.line: deque[Call] = deque()  # calls waiting for a place (some may have timed out)
        self.in_line = 0  # of them, still waiting

    @property
    def limit(self) -> int:
        return self.fixed if self.limiter is None else self.limiter.limit

    def admit(self, calls: list[Call]) -> tuple[list[Call], list[Call]]:
        """The line first, then ``calls``: each sent (a place), in line, or refused. (sent, refused)."""
        limit = self.limit
        sent: list[Call] = []
        refused: list[Call] = []
        while self.line and self.held < limit:
            call = self.line.popleft()
            if call.state == WAITING:
                self.in_line -= 1
                self._place(call, sent)
        for call in calls:
            if self.held < limit and not self.in_line:
                self._place(call, sent)
            elif self.in_line < self.room:
                call.state = WAITING
                self.line.append(call)
                self.in_line += 1
            else:
                refused.append(call)
        return sent, refused

    def _place(self, call: Call, sent: list[Call]) -> None:
        self.held += 1
        call.state = SENT
        call.inflight = self.held
        sent.append(call)

    def release(self, call: Call, t: int, how: int) -> None:
        """``call`` (still waiting for a place or holding one) ends in round ``t``, as ``how`` says."""
        if call.state == WAITING:
            self.in_line -= 1  # timed out in the line: it never held a place
            return
        if call.state != SENT:
            return
        self.held -= 1
        if self.limiter is not None:
            if how == ANSWERED_IN_TIME:
                self.limiter.on_sample(t - call.sent, call.inflight)
            elif how == TIMED_OUT:
                self.limiter.on_sample(max(t - call.sent, 1), call.inflight, dropped=True)
            else:
                self.limiter.on_sample(0, call.inflight, dropped=True)
