"""Lesson 000's seeded rounds with callers that retry the pool's refusals.

Lesson 000's rounds (:mod:`bulkhead_lab.pool.model`: seeded stream, pools, holds, a full pool
refuses at once), with callers whose refused calls may come back as new arrivals of the
same flow. In each round ``t``:

1. Slots whose hold ends at ``t`` are freed (and, with a token bucket, the responses
   arriving at ``t`` refill their flow's bucket).
2. A pool's calls are the lesson's arrivals of round ``t`` (the *originals*) plus the
   retries due at ``t`` of its flows. If it has room for all, all are admitted; otherwise
   as many as it has free slots, drawn uniformly without replacement among its calls with
   the *pool's* RNG; the winning originals are the first in the lesson's shuffled order,
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
pool its own RNG, so under a split the tracking compartment sees nothing of the event flow:
its counters are the same on both days. ``RetrySetup.shared`` keeps one budget for both
flows (the gateway as one client; tracking's refusals ask first in a round): the split's
walls then no longer hold, the budget is shared. ``RetrySetup.stop`` ends the slowdown
(:mod:`bulkhead_lab.retries.drain` measures how long the retries' load outlives it).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from bulkhead_lab.pool.model import EVENT, TRACKING, ArrivalStream, Params, arrival_stream
from bulkhead_lab.retries.policy import (
    JITTER_SEED,
    NO_RETRIES,
    Budget,
    RatioBudget,
    RetryPolicy,
    TokenBucket,
    books,
    delay_rounds,
)
from bulkhead_lab.validation import check_int, fail


@dataclass(frozen=True)
class RetrySetup:
    """How the callers retry; one budget per flow or ``shared`` by both; when the slowdown ends
    (``stop``, ``None``: never); the RNGs' seed."""

    policy: RetryPolicy = NO_RETRIES
    budget: Budget | None = None
    stop: int | None = None
    seed: int = JITTER_SEED
    shared: bool = False

    def __post_init__(self) -> None:
        if self.budget is not None and not isinstance(self.budget, (RatioBudget, TokenBucket)):
            raise fail("budget", self.budget, "None, a RatioBudget or a TokenBucket")
        if self.stop is not None:
            check_int("stop", self.stop, 0)
        check_int("seed", self.seed, 0)
        if not isinstance(self.shared, bool):
            raise fail("shared", self.shared, "True or False")

    def with_(self, **changes: object) -> RetrySetup:
        return replace(self, **changes)  # type: ignore[arg-type]

    @property
    def label(self) -> str:
        scope = ", shared by both flows" if self.shared else ""
        return self.policy.label + ("" if self.budget is None else f"; {self.budget.label}{scope}")


@dataclass(frozen=True)
class FlowCounters:
    """One flow over a run. Every call reaching the pool is ``served`` or ``refused``; every
    request ends served, gave up (``budget_denied`` + ``exhausted``) or ``pending``."""

    requests: int  # the lesson's arrivals (originals)
    served: int
    served_retries: int  # served calls that were retries
    refused: int  # 503s, originals and retries alike
    retries: int  # retries that reached the pool
    budget_denied: int  # refusals the budget kept from retrying
    exhausted: int  # refusals with no attempt left
    pending: int  # retries due after the last round

    @property
    def attempts(self) -> int:
        return self.requests + self.retries

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


class _Flow:
    """One flow's callers: retries due (counts per attempt number and round), jitter RNG,
    budget and counters. Decorrelated jitter also keeps each due retry's last sleep."""

    def __init__(self, flow: int, setup: RetrySetup, rounds: int, originals: tuple[int, ...], trace: bool):
        policy, budget, backoff = setup.policy, setup.budget, setup.policy.backoff
        self.rounds, self.attempts = rounds, policy.attempts
        self.total = [0] * rounds  # retries due per round
        self.due = [[0] * rounds for _ in range(policy.attempts + 1)]  # due[k][t]: k-th attempts at t
        self.dues = self.due[2:]
        self.nothing = [0] * (policy.attempts - 1)  # no retry due
        self.kind = "at once" if backoff is None else backoff.jitter
        self.sleeps: list[list[list[float] | None]] | None = None  # decorrelated: due retries' last sleeps
        if self.kind == "decorrelated":
            self.sleeps = [[None] * rounds for _ in range(policy.attempts + 1)]
        self.base, self.cap = (0.0, 0.0) if backoff is None else (backoff.base, backoff.cap)
        self.ceilings = [0.0 if backoff is None else backoff.ceiling(n) for n in range(policy.attempts)]
        self.rnd = random.Random(setup.seed * 4 + flow).random
        self.books = books(budget, originals)
        self.budgeted, self.tokens = budget is not None, isinstance(budget, TokenBucket)  # tokens: refills
        self.refused = self.refused_retries = self.denied = self.exhausted = self.pending = 0
        self.rows = [[0] * rounds for _ in range(4)] if trace else None  # offered, retries, refused, gave up

    def note(self, t: int, offered: int, retries: int, admitted: int) -> None:
        """The trace's row for round ``t`` (gave up is noted by :meth:`refuse`)."""
        if self.rows is not None:
            self.rows[0][t], self.rows[1][t], self.rows[2][t] = offered, retries, offered - admitted

    def counters(self, requests: int) -> FlowCounters:
        r = sum(self.total)  # every retry due within the run reached the pool
        rest = (self.refused, r, self.denied, self.exhausted, self.pending)
        return FlowCounters(requests, requests + r - self.refused, r - self.refused_retries, *rest)

    def counts(self, t: int) -> list[int]:
        """The retries due at ``t`` by attempt number 2..attempts."""
        return [due[t] for due in self.dues]

    def refuse(self, t: int, originals: int, lost: list[int], won: list[set[int]] | None = None) -> None:
        """Round ``t``'s refusals, ``originals`` first tries and ``lost[k - 2]`` k-th attempts
        (``won[k - 2]``: the k-th attempts admitted, decorrelated only), each back (attempts and
        budget allowing, first tries first) ``delay_rounds(sleep)`` rounds later or given up."""
        lost_retries = sum(lost)
        refused = originals + lost_retries
        self.refused += refused
        self.refused_retries += lost_retries
        spent = lost[-1] if lost else refused  # the last attempts (all of them when there is one)
        allowed = refused - spent
        if allowed and self.budgeted:
            allowed = self.books.grant(t, allowed)
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


def _draw(
    rnd: Callable[[], float], originals: int, counts: list[int], free: int, where: bool
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


def event_holds(params: Params, setup: RetrySetup) -> list[int]:
    """The event hold of a call admitted in each round: ``slow`` from ``start`` until ``stop``."""
    rounds, hold = params.rounds, params.hold_event
    slow = params.slow if params.mode == "slowdown" else hold
    stop = rounds if setup.stop is None else setup.stop
    return [hold] * params.start + [slow] * (stop - params.start) + [hold] * (rounds - stop)


def run(
    params: Params = Params(),
    setup: RetrySetup = RetrySetup(),
    *,
    stream: ArrivalStream | None = None,
    trace: bool = False,
) -> RetryRun:
    """One run of lesson 000's rounds with retrying callers (see the module docstring)."""
    stream = stream if stream is not None else arrival_stream(params)
    if stream.rounds != params.rounds:
        raise ValueError(f"stream has {stream.rounds} rounds but params.rounds is {params.rounds}")
    if setup.stop is not None:
        check_int("stop", setup.stop, params.start, params.rounds)
    rounds, arrivals = params.rounds, (stream.tracking, stream.event)
    flows = tuple(_Flow(f, setup, rounds, arrivals[f], trace) for f in (TRACKING, EVENT))
    if setup.shared and setup.budget is not None:  # one set of books over both flows' originals
        shared = books(setup.budget, [a + b for a, b in zip(*arrivals, strict=True)])
        flows[TRACKING].books = flows[EVENT].books = shared
    loop = _run_single if params.split is None else _run_split
    busy_rounds = loop(params, stream, flows, event_holds(params, setup), setup.seed, trace)
    record = None
    if trace:
        rows = [[tuple(row) for row in f.rows or ()] for f in flows]
        record = RetryTrace(*((rows[TRACKING][i], rows[EVENT][i]) for i in range(4)))
    tracking, event = (f.counters(sum(arrivals[i])) for i, f in enumerate(flows))
    return RetryRun(tracking, event, busy_rounds, record)


def _run_single(
    params: Params, stream: ArrivalStream, flows: tuple[_Flow, ...], holds: list[int], seed: int, trace: bool
) -> int:
    rounds, cap, ht = params.rounds, params.total, params.hold_tracking
    ft, fe = flows
    tot_t, tot_e = ft.total, fe.total
    tokens = ft.tokens
    rnd = random.Random(seed * 4 + 2).random
    ends = [0] * (rounds + max(ht, max(holds, default=0)) + 1)
    busy = busy_rounds = 0
    order, n_tracking, n_event = stream.order, stream.tracking, stream.event
    for t in range(rounds):
        busy -= ends[t]
        busy_rounds += busy
        nt, ne, mt, me, he = n_tracking[t], n_event[t], tot_t[t], tot_e[t], holds[t]
        free = cap - busy
        at, ae, wt, we = nt, ne, mt, me
        if nt + ne + mt + me > free:
            won, wt, we = max(free, 0), 0, 0
            lost_t = ft.counts(t) if mt else ft.nothing
            lost_e = fe.counts(t) if me else fe.nothing
            won_t: list[set[int]] | None = None
            won_e: list[set[int]] | None = None
            if mt + me and free > 0:
                won, won_r, won_at = _draw(rnd, nt + ne, lost_t + lost_e, free, ft.sleeps is not None)
                g = len(lost_t)
                lost_t = [n - w for n, w in zip(lost_t, won_r[:g], strict=True)]
                lost_e = [n - w for n, w in zip(lost_e, won_r[g:], strict=True)]
                wt, we = mt - sum(lost_t), me - sum(lost_e)
                if won_at is not None:
                    won_t, won_e = won_at[:g], won_at[g:]
            at = order[t][:won].count(TRACKING) if won < nt + ne else nt  # the first in shuffled order
            ae = min(won - at, ne)
            if at < nt or mt > wt:
                ft.refuse(t, nt - at, lost_t, won_t)
            if ae < ne or me > we:
                fe.refuse(t, ne - ae, lost_e, won_e)
        if tokens:  # their responses arrive a hold later
            ft.books.served(t + ht, at, wt)
            fe.books.served(t + he, ae, we)
        busy += at + ae + wt + we
        ends[t + ht] += at + wt
        ends[t + he] += ae + we
        if trace:
            ft.note(t, nt + mt, mt, at + wt)
            fe.note(t, ne + me, me, ae + we)
    return busy_rounds


def _run_split(
    params: Params, stream: ArrivalStream, flows: tuple[_Flow, ...], holds: list[int], seed: int, trace: bool
) -> int:
    assert params.split is not None
    rounds, cap_t, cap_e, ht = params.rounds, params.split, params.total - params.split, params.hold_tracking
    ft, fe = flows
    tot_t, tot_e = ft.total, fe.total
    tokens = ft.tokens
    rnd_t, rnd_e = random.Random(seed * 4 + 2).random, random.Random(seed * 4 + 3).random
    ends_t = [0] * (rounds + ht + 1)
    ends_e = [0] * (rounds + max(holds, default=0) + 1)
    busy_t = busy_e = busy_rounds = 0
    n_tracking, n_event = stream.tracking, stream.event
    for t in range(rounds):
        busy_t -= ends_t[t]
        busy_e -= ends_e[t]
        busy_rounds += busy_t + busy_e
        nt, ne, mt, me, he = n_tracking[t], n_event[t], tot_t[t], tot_e[t], holds[t]
        at, ae, wt, we = nt, ne, mt, me
        if nt + mt > cap_t - busy_t:
            at, wt = _overflow(ft, t, nt, mt, cap_t - busy_t, rnd_t)
        if ne + me > cap_e - busy_e:
            ae, we = _overflow(fe, t, ne, me, cap_e - busy_e, rnd_e)
        if tokens:  # their responses arrive a hold later
            ft.books.served(t + ht, at, wt)
            fe.books.served(t + he, ae, we)
        busy_t += at + wt
        busy_e += ae + we
        ends_t[t + ht] += at + wt
        ends_e[t + he] += ae + we
        if trace:
            ft.note(t, nt + mt, mt, at + wt)
            fe.note(t, ne + me, me, ae + we)
    return busy_rounds


def _overflow(flow: _Flow, t: int, n: int, m: int, free: int, rnd: Callable[[], float]) -> tuple[int, int]:
    """One compartment's round with more calls than free slots: (originals, retries) admitted."""
    lost, won_at = flow.counts(t) if m else flow.nothing, None
    if m == 0 or free <= 0:
        won, won_r = max(free, 0), 0
    else:
        won, won_groups, won_at = _draw(rnd, n, lost, free, flow.sleeps is not None)
        lost = [c - w for c, w in zip(lost, won_groups, strict=True)]
        won_r = m - sum(lost)
    won = min(won, n)
    flow.refuse(t, n - won, lost, won_at)
    return won, won_r
