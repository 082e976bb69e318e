"""Lesson 000's seeded rounds with callers that retry the pool's refusals.

Lesson 000's rounds (:mod:`bulkhead_lab.pool.rounds`: seeded stream, slots, holds, a full
compartment refuses at once), with callers whose refused calls may come back as new arrivals
of the same flow. A *compartment* below is the single pool (both flows) or one side of a
split (one flow). In each round ``t``:

1. Slots whose hold ends at ``t`` are freed (:meth:`~bulkhead_lab.pool.rounds.Pool.free`;
   and, with a token bucket, the responses arriving at ``t`` refill their flow's bucket).
2. A compartment's calls are the lesson's arrivals of round ``t`` (the *originals*) plus the
   retries due at ``t`` of its flows. If it has room for all, all are admitted; otherwise
   as many as it has free slots, drawn uniformly without replacement among its calls with
   the *compartment's* RNG: the retries that win take their slots, then the originals take
   the rest, the first in the lesson's shuffled order (:func:`~bulkhead_lab.pool.rounds.admit`),
   so a round with no retry due is exactly lesson 000's.
3. An admitted call holds its slot for its flow's hold (the event hold is ``slow`` from
   ``start`` until ``stop`` on the slowdown day) and is served.
4. A refused call (a 503) with attempts left asks its flow's budget (originals first, then
   retries by attempt number); if allowed it comes back ``delay_rounds(sleep)`` >= 1
   rounds later, the sleep drawn by the *flow's* RNG; else its request gives up. A retry
   due after the last round is *pending*.

All RNGs are seeded from ``RetrySetup.seed``; none touches the lesson's stream. With
``NO_RETRIES`` nothing is drawn and served, refused and busy slot-rounds are lesson 000's
(its ``idle`` is not kept). A ratio budget counts the originals (on arrival) and retries
(when granted) of the last ``window`` rounds; a token bucket charges ``retry_cost`` per retry
(a 503 is no timeout) and refills when a success's response arrives, a hold later: ``refund``
for an original, the retry's cost for a retry. Each flow has its own RNG and budget and each
compartment its own RNG, so under a split the tracking compartment sees nothing of the event flow:
its counters are the same on both days. ``RetrySetup.shared`` keeps one budget for both
flows (the gateway as one client; tracking's refusals ask first in a round): the split's
walls then no longer hold, the budget is shared. ``RetrySetup.stop`` ends the slowdown
(:mod:`bulkhead_lab.retries.drain` measures how long the retries' load outlives it).
:func:`retry_run` keeps runs in this module's memo. A :class:`Gate` (notebook 10's client-side
throttle) may keep calls back before the pool; without one nothing changes.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal, Protocol, Union

from bulkhead_lab.memo import ROUNDS_BUDGET, Memo
from bulkhead_lab.pool import arrivals
from bulkhead_lab.pool.arrivals import EVENT, TRACKING, ArrivalStream, arrival_stream
from bulkhead_lab.pool.params import Params, canonical, event_holds
from bulkhead_lab.pool.rounds import Pool, admit, lesson_pool
from bulkhead_lab.retries.budgets import Budget, TokenBucket, ledger_for
from bulkhead_lab.retries.policy import JITTER_SEED, NO_RETRIES, Jitter, RetryPolicy, delay_rounds


@dataclass(frozen=True)
class RetrySetup:
    """How the callers retry; one budget per flow or ``shared`` by both; when the slowdown ends
    (``stop``, ``None``: never); the RNGs' seed."""

    policy: RetryPolicy = NO_RETRIES
    budget: Budget | None = None
    stop: int | None = None
    seed: int = JITTER_SEED
    shared: bool = False

    def with_(self, **changes: object) -> RetrySetup:
        return replace(self, **changes)  # type: ignore[arg-type]

    @property
    def label(self) -> str:
        scope = ", shared by both flows" if self.shared else ""
        return self.policy.label + ("" if self.budget is None else f"; {self.budget.label}{scope}")


@dataclass(frozen=True)
class FlowCounters:
    """One flow over a run. Every call reaching the pool is ``served`` or ``refused``; every
    request ends served, gave up (``budget_denied`` + ``exhausted``) or ``pending``, or a gate
    kept it back (its first try is ``unsent``; a retry kept back is in no counter)."""

    requests: int  # the lesson's arrivals (originals)
    served: int
    refused: int  # 503s, originals and retries alike
    retries: int  # retries that reached the pool
    budget_denied: int  # refusals the budget kept from retrying
    exhausted: int  # refusals with no attempt left
    pending: int  # retries due after the last round
    unsent: int = 0  # originals a gate kept from the pool

    @property
    def attempts(self) -> int:
        return self.requests - self.unsent + self.retries

    @property
    def gave_up(self) -> int:
        return self.budget_denied + self.exhausted

    @property
    def load(self) -> float:
        """Calls per original request (1.0 without retries)."""
        return self.attempts / self.requests if self.requests else float("nan")


Series = tuple[tuple[int, ...], tuple[int, ...]]  # per flow (TRACKING, EVENT), per round


@dataclass(frozen=True)
class RetryTrace:
    """Per flow (``TRACKING``, ``EVENT``) and round: calls offered (originals and retries
    due), retries among them, refusals, and requests that gave up."""

    offered: Series
    retries: Series
    refused: Series
    gave_up: Series


@dataclass(frozen=True)
class RetryRun:
    """One run: each flow's counters, busy slot-rounds, and the trace when asked."""

    tracking: FlowCounters
    event: FlowCounters
    busy_rounds: int
    trace: RetryTrace | None = None


Sleep = Union[Jitter, Literal["at once"]]  # noqa: UP007  (a runtime alias, 3.10): how a retry sleeps


class Callers:
    """One flow's callers: retries due (counts per attempt number and round), jitter RNG,
    budget and counters. Decorrelated jitter also keeps each due retry's last sleep."""

    def __init__(self, flow: int, setup: RetrySetup, rounds: int, originals: tuple[int, ...], trace: bool):
        policy, budget, backoff = setup.policy, setup.budget, setup.policy.backoff
        self.rounds, self.attempts = rounds, policy.attempts
        self.total = [0] * rounds  # retries due per round
        self.due = [[0] * rounds for _ in range(policy.attempts + 1)]  # due[k][t]: k-th attempts at t
        self.dues = self.due[2:]
        self.nothing = [0] * (policy.attempts - 1)  # no retry due
        self.kind: Sleep = "at once" if backoff is None else backoff.jitter
        self.sleeps: list[list[list[float] | None]] | None = None  # decorrelated: due retries' last sleeps
        if self.kind == "decorrelated":
            self.sleeps = [[None] * rounds for _ in range(policy.attempts + 1)]
        self.base, self.cap = (0.0, 0.0) if backoff is None else (backoff.base, backoff.cap)
        self.ceilings = [0.0 if backoff is None else backoff.ceiling(n) for n in range(policy.attempts)]
        self.rnd = random.Random(setup.seed * 4 + flow).random
        self.ledger = ledger_for(budget, originals)
        self.budgeted, self.tokens = budget is not None, isinstance(budget, TokenBucket)  # tokens: refills
        self.refused = self.denied = self.exhausted = self.pending = self.unsent = 0
        self.rows = [[0] * rounds for _ in range(4)] if trace else None  # offered, retries, refused, gave up

    def note(self, t: int, offered: int, retries: int, admitted: int) -> None:
        """The trace's row for round ``t`` (gave up is noted by :meth:`refuse`)."""
        if self.rows is not None:
            self.rows[0][t], self.rows[1][t], self.rows[2][t] = offered, retries, offered - admitted

    def counters(self, requests: int) -> FlowCounters:
        r = sum(self.total)  # every retry due within the run reached the pool
        rest = (self.refused, r, self.denied, self.exhausted, self.pending, self.unsent)
        return FlowCounters(requests, requests - self.unsent + r - self.refused, *rest)

    def counts(self, t: int) -> list[int]:
        """The retries due at ``t`` by attempt number 2..attempts."""
        return [due[t] for due in self.dues]

    def refuse(self, t: int, originals: int, lost: list[int], won: list[set[int]] | None = None) -> None:
        """Round ``t``'s refusals, ``originals`` first tries and ``lost[k - 2]`` k-th attempts
        (``won[k - 2]``: the k-th attempts admitted, decorrelated only), each back (attempts and
        budget allowing, first tries first) ``delay_rounds(sleep)`` rounds later or given up."""
        refused = originals + sum(lost)
        self.refused += refused
        spent = lost[-1] if lost else refused  # the last attempts (all of them when there is one)
        allowed = refused - spent
        if allowed and self.budgeted:
            allowed = self.ledger.grant(t, allowed)
        self.exhausted += spent
        self.denied += refused - spent - allowed
        if self.rows is not None:
            self.rows[3][t] += refused - allowed
        total, rounds, rnd, kind, keep = self.total, self.rounds, self.rnd, self.kind, self.sleeps
        k = 0
        for n in (originals, *lost[:-1]) if allowed else ():  # k-th attempts, back as (k+1)-th
            k += 1
            n = n if n < allowed else allowed
            allowed -= n
            if not n:
                continue
            due, c = self.due[k + 1], self.ceilings[k]
            if kind == "none" or kind == "at once":
                when = t + delay_rounds(c)
                if when >= rounds:
                    self.pending += n
                else:
                    due[when] += n
                    total[when] += n
                continue
            if keep is not None:  # decorrelated: from each one's last sleep (base for a first try)
                base, cap = self.base, self.cap
                last = [base] * n if k == 1 else keep[k][t] or []
                if k > 1 and won and won[k - 2]:
                    last = [x for i, x in enumerate(last) if i not in won[k - 2]]
                sleeps = [d if d < cap else cap for d in (base + rnd() * (x * 3.0 - base) for x in last[:n])]
            elif kind == "full":
                sleeps = [rnd() * c for _ in range(n)]
            else:  # equal
                sleeps = [c * (0.5 + 0.5 * rnd()) for _ in range(n)]
            for d in sleeps:
                w = int(d)  # delay_rounds(d), inlined
                when = t + (w + 1 if w < d else w or 1)
                if when >= rounds:
                    self.pending += 1
                    continue
                due[when] += 1
                total[when] += 1
                if keep is not None:
                    keep[k + 1][when] = [*(keep[k + 1][when] or ()), d]


Rng = Callable[[], float]


class Gate(Protocol):
    """What stands between the callers and the pool (notebook 10's client-side throttle): it sees
    each round's calls before the pool, and learns how many the pool admitted."""

    def calls(self, t: int, order: tuple[int, ...], callers: tuple[Callers, Callers]) -> tuple[int, ...]:
        """Round ``t``'s originals that go (``order`` less those kept back); a retry kept back
        leaves its callers' ``due`` and ``total``. A request kept back ends there."""

    def admitted(self, tracking: int, event: int) -> None:
        """The calls of the round the pool admitted, per flow."""


def _draw(
    rnd: Rng, originals: int, counts: list[int], free: int, where: bool
) -> tuple[int, list[int], list[set[int]] | None]:
    """Admit ``free`` of a pool's calls uniformly: the originals admitted, the retries admitted
    per group (``counts``' order) and, if ``where``, their positions (a set per group). Draws
    without replacement the admitted, or the refused when those are fewer: one draw each."""
    left = [originals, *counts]  # calls not drawn yet, per group (the originals first)
    rest = [list(range(n)) for n in counts] if where else []  # the retries' positions not drawn yet
    drawn: list[set[int]] = [set() for _ in counts] if where else []
    calls = originals + sum(counts)
    take = min(free, calls - free)
    for i in range(take):
        v = int(rnd() * (calls - i))
        g = 0
        while v >= left[g]:
            v -= left[g]
            g += 1
        left[g] -= 1
        if g and where:
            drawn[g - 1].add(rest[g - 1].pop(v))
    if take == free:
        won = drawn if where else None
        return originals - left[0], [n - x for n, x in zip(counts, left[1:], strict=True)], won
    won = [set(range(n)) - d for n, d in zip(counts, drawn, strict=True)] if where else None
    return left[0], left[1:], won


def run(
    params: Params = Params(),
    setup: RetrySetup = RetrySetup(),
    *,
    stream: ArrivalStream | None = None,
    trace: bool = False,
    gate: Gate | None = None,
) -> RetryRun:
    """One run of lesson 000's rounds with retrying callers (see the module docstring), behind
    ``gate`` if any."""
    stream = stream if stream is not None else arrival_stream(params)
    rounds, arrivals = params.rounds, (stream.tracking, stream.event)
    callers = (
        Callers(TRACKING, setup, rounds, arrivals[TRACKING], trace),
        Callers(EVENT, setup, rounds, arrivals[EVENT], trace),
    )
    if setup.shared and setup.budget is not None:  # one ledger over both flows' originals
        shared = ledger_for(setup.budget, [a + b for a, b in zip(*arrivals, strict=True)])
        callers[TRACKING].ledger = callers[EVENT].ledger = shared
    if gate is not None and callers[TRACKING].sleeps is not None:
        raise ValueError("a gate takes no decorrelated jitter: its sleeps follow each retry's place")
    busy_rounds = _play(params, stream, callers, setup, gate)
    record = None
    if trace:
        rows = [[tuple(row) for row in c.rows or ()] for c in callers]
        record = RetryTrace(*((rows[TRACKING][i], rows[EVENT][i]) for i in range(4)))
    tracking, event = (c.counters(sum(arrivals[i])) for i, c in enumerate(callers))
    return RetryRun(tracking, event, busy_rounds, record)


Won = tuple[int, list[int], list[set[int]] | None]  # retries admitted, lost per attempt, where (decorrelated)


def _play(
    params: Params,
    stream: ArrivalStream,
    callers: tuple[Callers, Callers],
    setup: RetrySetup,
    gate: Gate | None,
) -> int:
    """Every round through lesson 000's step: the frees, the calls the gate lets go, the retries
    the draw admits, then the originals as in lesson 000; returns the busy slot-rounds."""
    pool = lesson_pool(params)
    tracking, event = pool.flows
    holds = event_holds(params, setup.stop)
    rngs = (random.Random(setup.seed * 4 + 2).random, random.Random(setup.seed * 4 + 3).random)
    draw = shared_draw if params.split is None else split_draw
    ct, ce = callers
    tokens, traced = ct.tokens, ct.rows is not None
    order, n_tracking, n_event = stream.order, stream.tracking, stream.event
    for t in range(params.rounds):
        event.hold = holds[t]
        pool.free(t)
        calls, nt, ne = order[t], n_tracking[t], n_event[t]
        if gate is not None:  # the calls it keeps back never reach the pool
            calls = gate.calls(t, calls, callers)
            nt, ne = calls.count(TRACKING), calls.count(EVENT)
            ct.unsent, ce.unsent = ct.unsent + n_tracking[t] - nt, ce.unsent + n_event[t] - ne
        mt, me = ct.total[t], ce.total[t]
        if mt or me:  # the retries the draw lets in take their slots first (all fit) ...
            won_t, won_e = draw(pool, t, (nt, ne), (mt, me), callers, rngs)
            admit(pool, t, (), won_t[0], won_e[0])
        else:  # (no retry due: lesson 000's round exactly)
            won_t, won_e = (0, ct.nothing, None), (0, ce.nothing, None)
        at, ae = admit(pool, t, calls, nt, ne)  # ... then the originals, as in lesson 000
        wt, we = won_t[0], won_e[0]
        if at < nt or wt < mt:
            ct.refuse(t, nt - at, won_t[1], won_t[2])
        if ae < ne or we < me:
            ce.refuse(t, ne - ae, won_e[1], won_e[2])
        if tokens:  # their responses arrive a hold later
            ct.ledger.served(t + tracking.hold, at, wt)
            ce.ledger.served(t + event.hold, ae, we)
        if traced:
            ct.note(t, nt + mt, mt, at + wt)
            ce.note(t, ne + me, me, ae + we)
        if gate is not None:
            gate.admitted(at + wt, ae + we)
    return pool.busy_rounds


def shared_draw(
    pool: Pool,
    t: int,
    counts: tuple[int, int],
    due: tuple[int, int],
    callers: tuple[Callers, Callers],
    rngs: tuple[Rng, Rng],
) -> tuple[Won, Won]:
    """The single pool: if its calls overflow it, the pool's RNG draws which retries win a slot."""
    rnd = rngs[0]
    free = pool.total - pool.flows[TRACKING].busy - pool.flows[EVENT].busy
    ct, ce = callers
    if sum(counts) + sum(due) <= free:
        return (due[0], ct.nothing, None), (due[1], ce.nothing, None)
    lost_t = ct.counts(t) if due[0] else ct.nothing
    lost_e = ce.counts(t) if due[1] else ce.nothing
    if not sum(due) or free <= 0:
        return (0, lost_t, None), (0, lost_e, None)
    _, won_r, where = _draw(rnd, sum(counts), lost_t + lost_e, free, ct.sleeps is not None)
    g = len(lost_t)
    lost_t = [n - w for n, w in zip(lost_t, won_r[:g], strict=True)]
    lost_e = [n - w for n, w in zip(lost_e, won_r[g:], strict=True)]
    where_t, where_e = (None, None) if where is None else (where[:g], where[g:])
    return (due[0] - sum(lost_t), lost_t, where_t), (due[1] - sum(lost_e), lost_e, where_e)


def split_draw(
    pool: Pool,
    t: int,
    counts: tuple[int, int],
    due: tuple[int, int],
    callers: tuple[Callers, Callers],
    rngs: tuple[Rng, Rng],
) -> tuple[Won, Won]:
    """A split: each compartment whose calls overflow it draws, with its own RNG, which retries win."""
    won: list[Won] = []
    for slots, n, m, caller, rnd in zip(pool.flows, counts, due, callers, rngs, strict=True):
        free = slots.limit - slots.busy
        lost = caller.counts(t) if m else caller.nothing
        if n + m <= free:
            won.append((m, caller.nothing, None))
        elif m == 0 or free <= 0:
            won.append((0, lost, None))
        else:
            _, won_groups, where = _draw(rnd, n, lost, free, caller.sleeps is not None)
            lost = [c - w for c, w in zip(lost, won_groups, strict=True)]
            won.append((m - sum(lost), lost, where))
    return won[0], won[1]


# --- the memo the sliders replay from ------------------------------------------------------


def _weight(run: RetryRun) -> int:
    """A run kept weighs its trace: four series per flow, one value per round."""
    return 0 if run.trace is None else 8 * len(run.trace.offered[TRACKING])


_retry_runs: Memo[tuple, RetryRun] = Memo("retry_runs", 256, budget=ROUNDS_BUDGET, weigh=_weight)


def retry_run(params: Params, setup: RetrySetup, *, trace: bool = False) -> RetryRun:
    """:func:`run` on the memoised stream, kept on its knobs and retry setup."""
    key = canonical(params) if setup.stop is None else params
    return _retry_runs.get(
        (key, setup, trace), lambda: run(key, setup, stream=arrivals.stream(key), trace=trace)
    )
