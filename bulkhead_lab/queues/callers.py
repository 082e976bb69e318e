"""The callers at work: each round's requests, a timeout on every call, a retry after a refusal or a
timeout (notebook 07, section 2).

:class:`Clients` is a :class:`~bulkhead_lab.queues.settings.Callers` running. Its retries are
notebook 06's: a :class:`~bulkhead_lab.retries.policy.RetryPolicy` (attempts and backoff) and a
budget's books (:func:`~bulkhead_lab.retries.policy.books`), so the backoff and the budgets are
the ones :mod:`bulkhead_lab.retries` defines, not a second copy. A caller that gives up on a call
does not tell the dependency: the call stays in its queue, or in service, all the same.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bulkhead_lab.queues.calls import ANSWERED, GONE, SENT, Call
from bulkhead_lab.queues.settings import Callers
from bulkhead_lab.retries.policy import books, delay_rounds


# fmt: off
# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
class Clients:
    """The callers of one flow: the requests of each round, a deadline on each call, and retries."""

    def __init__(self, callers: Callers, originals: Sequence[int]) -> None:
        self.settings = callers
        self.originals = originals  # new requests per round
        rounds = len(originals)
        self.due: list[list[tuple[int, float]]] = [[] for _ in range(rounds)]  # (attempt, last sleep)
        self.by_deadline: list[list[Call]] = [[] for _ in range(rounds + callers.timeout + 1)]
        self.books = books(callers.budget, originals)  # no budget: every retry may go
        self.grant = self.books.grant  # how many of n retries may go now
        self.attempts = callers.policy.attempts
        self.draw = random.Random(callers.seed).random
        backoff = callers.policy.backoff
        self.backoff = None if backoff is None else backoff.delay  # the sleep after the n-th failure
        self.first_sleep = 0.0 if backoff is None else backoff.base  # a first try "slept" the base
        self.gave_up = [0] * rounds  # requests that ended unanswered, per round
        self.waiting = 0  # calls whose caller waits for them now

    def calls(self, t: int) -> list[Call]:
        """Round ``t``'s calls: the flow's new requests, then the retries due now."""
        deadline, first = t + self.settings.timeout, self.first_sleep
        made = [Call(t, deadline, 1, first) for _ in range(self.originals[t])]
        if self.due[t]:
            made += [Call(t, deadline, attempt, sleep) for attempt, sleep in self.due[t]]
        self.by_deadline[deadline] = made
        self.waiting += len(made)
        return made

    def answer(self, call: Call, t: int) -> bool:
        """The dependency answers ``call`` in round ``t``: in time if its caller still waits."""
        if call.state != SENT:
            return False  # its caller has gone: the work was wasted
        call.state = ANSWERED
        self.waiting -= 1
        self.books.served(t, int(call.attempt == 1), int(call.attempt > 1))  # a token bucket refills
        return True

    def timeouts(self, t: int) -> list[Call]:
        """The calls whose caller gives up in round ``t``: made ``timeout`` rounds ago, unanswered."""
        calls = self.by_deadline[t]
        return [call for call in calls if call.state < ANSWERED] if calls else calls

    def fail(self, call: Call, t: int) -> None:
        """``call``'s caller stops waiting in round ``t`` (refused, dropped or timed out): it tries
        again after a backoff if it has attempts left and the budget allows, or gives up."""
        call.state = GONE
        self.waiting -= 1
        if call.attempt < self.attempts and self.grant(t, 1):
            sleep = 0.0 if self.backoff is None else self.backoff(call.attempt, self.draw(), call.sleep)
            when = t + delay_rounds(sleep)
            if when < len(self.due):  # else due after the run: never made
                self.due[when].append((call.attempt + 1, sleep))
        else:
            self.gave_up[t] += 1
# <<< saved cells
# fmt: on
