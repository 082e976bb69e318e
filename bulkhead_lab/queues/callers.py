"""The callers at work: each round's requests, a timeout on every call, a retry after a refusal or a
timeout (notebook 07, section 2).

:class:`Deadlines` are callers who give up on a call at its deadline; :class:`Clients` (a
:class:`~bulkhead_lab.queues.settings.Callers` running) also try again. Its retries are
notebook 06's: a :class:`~bulkhead_lab.retries.policy.RetryPolicy` (attempts and backoff) and a
budget's books (:func:`~bulkhead_lab.retries.budgets.ledger_for`), so the backoff and the budgets are
the ones :mod:`bulkhead_lab.retries` defines, not a second copy. A caller that gives up on a call
does not tell the dependency: the call stays in its queue, or in service, all the same.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from bulkhead_lab.queues.calls import ANSWERED, GONE, SENT, Call
from bulkhead_lab.queues.settings import Callers
from bulkhead_lab.retries.budgets import ledger_for
from bulkhead_lab.retries.policy import RetryPolicy, delay_rounds


# fmt: off
# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/07_timeouts_and_queues.ipynb, section 2. The storm that stays
class Deadlines:
    """Callers who give up: the requests of each round, and a deadline on every call."""

    def __init__(self, callers: Callers, originals: Sequence[int]) -> None:
        self.settings = callers
        self.originals = originals  # new requests per round
        rounds = len(originals)
        self.due: list[list[tuple[int, float]]] = [[] for _ in range(rounds)]  # retries (attempt, sleep)
        self.by_deadline: list[list[Call]] = [[] for _ in range(rounds + callers.timeout + 1)]
        self.first_sleep = 0.0  # what a first try "slept" before it (a backoff's base)
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
        return True

    def timeouts(self, t: int) -> list[Call]:
        """The calls whose caller gives up in round ``t``: made ``timeout`` rounds ago, unanswered."""
        calls = self.by_deadline[t]
        return [call for call in calls if call.state < ANSWERED] if calls else calls

    def fail(self, call: Call, t: int) -> None:
        """``call``'s caller stops waiting in round ``t`` (refused, dropped or timed out): it gives up."""
        call.state = GONE
        self.waiting -= 1
        self.gave_up[t] += 1


# Defined in notebooks/07_timeouts_and_queues.ipynb, section 2. The storm that stays
def retry_after(policy: RetryPolicy, call: Call, draw: Callable[[], float]) -> tuple[int, float]:
    """After ``call`` failed: (rounds until its retry, the sleep drawn), notebook 06's backoff
    (``policy.backoff``; ``None``: the next round) from one uniform ``draw()``."""
    backoff = policy.backoff
    sleep = 0.0 if backoff is None else backoff.delay(call.attempt, draw(), call.sleep)
    return delay_rounds(sleep), sleep


class Clients(Deadlines):
    """Callers who give up, then try again under notebook 06's retry policy and budget."""

    def __init__(self, callers: Callers, originals: Sequence[int]) -> None:
        super().__init__(callers, originals)
        self.books = ledger_for(callers.budget, originals)  # the budget's books (none: every retry may go)
        self.grant = None if callers.budget is None else self.books.grant  # of n retries, how many go
        self.draw = random.Random(callers.seed).random  # the backoff's draws
        backoff = callers.policy.backoff
        self.first_sleep = 0.0 if backoff is None else backoff.base

    def answer(self, call: Call, t: int) -> bool:
        if not super().answer(call, t):
            return False
        self.books.served(t, int(call.attempt == 1), int(call.attempt > 1))  # a token bucket refills
        return True

    def fail(self, call: Call, t: int) -> None:
        """A failed call comes back after its backoff while attempts and the budget allow."""
        policy = self.settings.policy
        if call.attempt < policy.attempts and (self.grant is None or self.grant(t, 1)):
            call.state = GONE
            self.waiting -= 1
            wait, sleep = retry_after(policy, call, self.draw)
            if t + wait < len(self.due):  # else due after the run: never made
                self.due[t + wait].append((call.attempt + 1, sleep))
        else:
            super().fail(call, t)


# <<< saved cells
# fmt: on
