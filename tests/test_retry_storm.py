"""Lesson 000's rounds with retrying callers: exact where nothing retries, hand-computed cases,
the counters' identities, determinism, and the figures notebook 06 will print."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bulkhead_lab.pool import arrivals
from bulkhead_lab.pool.arrivals import EVENT, TRACKING, ArrivalStream, arrival_stream
from bulkhead_lab.pool.params import Params, event_holds
from bulkhead_lab.pool.rounds import run as lesson_run
from bulkhead_lab.retries import seeded
from bulkhead_lab.retries.budgets import AWS_QUOTA, SRE_BUDGET, RatioBudget, TokenBucket
from bulkhead_lab.retries.drain import STORM_STOP, drain
from bulkhead_lab.retries.policy import NO_RETRIES, Backoff, RetryPolicy
from bulkhead_lab.retries.storm import (
    Callers,
    FlowCounters,
    RetryRun,
    RetrySetup,
    run,
)

LESSON = Params()
FULL = RetryPolicy(3, Backoff())  # the AWS SDK's: 3 attempts, full jitter, 100 ms base, 20 s cap
SETUPS = {  # every policy kind, with and without each budget
    "none": RetrySetup(),
    "at once": RetrySetup(RetryPolicy(3, None)),
    "no jitter": RetrySetup(RetryPolicy(3, Backoff(jitter="none"))),
    "full": RetrySetup(FULL),
    "equal": RetrySetup(RetryPolicy(4, Backoff(jitter="equal"))),
    "decorrelated": RetrySetup(RetryPolicy(3, Backoff(jitter="decorrelated"))),
    "full + SRE": RetrySetup(FULL, SRE_BUDGET),
    "decorrelated + 20%, at least 3": RetrySetup(
        RetryPolicy(4, Backoff(jitter="decorrelated")), RatioBudget(0.2, 3)
    ),
    "at once + SDK quota": RetrySetup(RetryPolicy(5, None), AWS_QUOTA),
}
SHARED = {  # one budget for both flows (the gateway as one client)
    "full + SRE, shared": RetrySetup(FULL, SRE_BUDGET, shared=True),
    "at once + SDK quota, shared": RetrySetup(RetryPolicy(5, None), AWS_QUOTA, shared=True),
}
LAYOUTS = (None, 24)
DAYS = ("healthy", "slowdown")


def _run(split: int | None, mode: str, setup: RetrySetup, trace: bool = False) -> RetryRun:
    p = LESSON.with_(split=split, mode=mode)
    return run(p, setup, stream=arrivals.stream(p), trace=trace)


# --- nothing retries: lesson 000 exactly ----------------------------------------------------------


OTHER = Params(seed=12345, total=40, rounds=1500, start=500, cycle=50, tracking_rate=300.5, event_rate=80.25)


@pytest.mark.parametrize("base", [LESSON, OTHER], ids=["lesson", "other"])
@pytest.mark.parametrize("split", [None, 4, 24, 31])
@pytest.mark.parametrize("mode", DAYS)
def test_with_no_retries_the_retry_model_equals_lesson_000s_counters_exactly(
    base: Params, split: int | None, mode: str
) -> None:
    p = base.with_(split=split, mode=mode)
    lesson = lesson_run(p, stream=arrivals.stream(p))
    r = run(p, RetrySetup(NO_RETRIES, SRE_BUDGET), stream=arrivals.stream(p))
    assert (r.tracking.served, r.tracking.refused) == (lesson.tracking_responses, lesson.tracking_dropped)
    assert (r.event.served, r.event.refused) == (lesson.event_responses, lesson.event_dropped)
    assert r.busy_rounds == lesson.busy_rounds
    for f in (r.tracking, r.event):
        assert f.retries == f.pending == f.budget_denied == 0 and f.exhausted == f.refused and f.load == 1.0


# --- hand-computed rounds ---------------------------------------------------------------------------


def _tiny(rounds: int, hold: int, arrivals: dict[int, tuple[int, ...]]) -> tuple[Params, ArrivalStream]:
    """A pool of 2 slots and a stream written out by hand (flow codes per round)."""
    order = tuple(arrivals.get(t, ()) for t in range(rounds))
    stream = ArrivalStream(
        order, tuple(o.count(TRACKING) for o in order), tuple(o.count(EVENT) for o in order)
    )
    return Params(total=2, rounds=rounds, start=0, hold_tracking=hold, hold_event=1), stream


ONE_RETRY_AFTER_2 = RetrySetup(RetryPolicy(2, Backoff(base=1, cap=100, jitter="none")))  # sleeps 2 rounds


def test_a_refused_call_comes_back_after_its_backoff_and_is_served() -> None:
    # round 0: three tracking calls, two slots (hold 2): one refused; it sleeps min(100, 1 * 2**1)
    # = 2 rounds, comes back in round 2 when both slots are free again, and is served.
    p, s = _tiny(6, hold=2, arrivals={0: (TRACKING, TRACKING, TRACKING)})
    r = run(p, ONE_RETRY_AFTER_2, stream=s, trace=True)
    assert r.tracking == FlowCounters(3, 3, 1, 1, 0, 0, 0)
    assert r.busy_rounds == 0 + 2 + 0 + 1 + 0 + 0  # busy slots at each round's start
    assert r.trace is not None
    assert r.trace.offered[TRACKING] == (3, 0, 1, 0, 0, 0)
    assert r.trace.retries[TRACKING] == (0, 0, 1, 0, 0, 0)
    assert r.trace.refused[TRACKING] == (1, 0, 0, 0, 0, 0)


def test_a_retry_refused_again_gives_up_when_its_attempts_are_spent() -> None:
    # the same, but a hold of 3: in round 2 both slots are still busy; 2 attempts are spent
    p, s = _tiny(6, hold=3, arrivals={0: (TRACKING, TRACKING, TRACKING)})
    r = run(p, ONE_RETRY_AFTER_2, stream=s, trace=True)
    assert r.tracking == FlowCounters(3, 2, 2, 1, 0, 1, 0)
    assert r.trace is not None and r.trace.gave_up[TRACKING] == (0, 0, 1, 0, 0, 0)


def test_a_retry_due_after_the_last_round_is_pending() -> None:
    p, s = _tiny(2, hold=2, arrivals={0: (TRACKING, TRACKING, TRACKING)})
    assert run(p, ONE_RETRY_AFTER_2, stream=s).tracking == FlowCounters(3, 2, 1, 0, 0, 0, 1)


def test_an_empty_token_bucket_denies_the_retry() -> None:
    p, s = _tiny(6, hold=2, arrivals={0: (TRACKING, TRACKING, TRACKING)})
    setup = ONE_RETRY_AFTER_2.with_(budget=TokenBucket(capacity=4))  # fewer than the 5 a retry costs
    assert run(p, setup, stream=s).tracking == FlowCounters(3, 2, 1, 0, 1, 0, 0)


def test_an_event_storm_in_one_pool_refuses_tracking_too() -> None:
    # round 0: two events take both slots (hold 1); a tracking call is refused and retried at
    # once (round 1), where it wins a slot; two events refused in round 0 are retried too
    p, s = _tiny(4, hold=1, arrivals={0: (EVENT, EVENT, EVENT, TRACKING)})
    r = run(p, RetrySetup(RetryPolicy(2, None)), stream=s, trace=True)
    assert r.trace is not None
    assert r.trace.offered == ((1, 1, 0, 0), (3, 1, 0, 0))
    assert r.tracking.served + r.event.served == 4  # 2 slots in round 0, both free again in round 1


# --- what every run keeps -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", [*SETUPS, *SHARED])
@pytest.mark.parametrize("split", LAYOUTS)
@pytest.mark.parametrize("mode", DAYS)
def test_every_call_is_served_or_refused_and_every_request_ends_once(
    name: str, split: int | None, mode: str
) -> None:
    r = _run(split, mode, {**SETUPS, **SHARED}[name], trace=True)
    assert r.trace is not None
    for f, c in ((TRACKING, r.tracking), (EVENT, r.event)):
        assert c.attempts == c.served + c.refused
        assert c.requests == c.served + c.gave_up + c.pending  # a request is served at most once
        assert c.refused == c.retries + c.pending + c.gave_up  # each refusal retries or gives up
        assert sum(r.trace.offered[f]) == c.attempts
        assert sum(r.trace.retries[f]) == c.retries
        assert sum(r.trace.refused[f]) == c.refused
        assert sum(r.trace.gave_up[f]) == c.gave_up
        assert all(0 <= x <= o for x, o in zip(r.trace.refused[f], r.trace.offered[f], strict=True))


@pytest.mark.parametrize("name", SETUPS)
def test_the_base_stream_is_the_lessons_whatever_the_retry_policy(name: str) -> None:
    p = LESSON.with_(split=None, mode="slowdown")
    before = arrivals.stream(p)
    r = run(p, SETUPS[name], stream=before, trace=True)
    assert r.trace is not None
    stream = arrival_stream(p)  # drawn afresh: the retry RNGs never touched the lesson's generator
    assert before == stream
    for f, counts in ((TRACKING, stream.tracking), (EVENT, stream.event)):
        originals = [o - x for o, x in zip(r.trace.offered[f], r.trace.retries[f], strict=True)]
        assert originals == list(counts)


def test_the_same_seed_gives_the_same_run() -> None:
    setup = SETUPS["decorrelated + 20%, at least 3"]
    assert _run(None, "slowdown", setup, trace=True) == _run(None, "slowdown", setup, trace=True)
    other = _run(None, "slowdown", setup.with_(seed=7))
    assert other != _run(None, "slowdown", setup)
    assert other.tracking.requests == _run(None, "slowdown", setup).tracking.requests


@pytest.mark.parametrize("name", SETUPS)
def test_under_24_8_the_tracking_compartment_is_the_same_on_both_days(name: str) -> None:
    # the bulkhead contains the storm exactly: tracking's own RNGs, budget and slots
    healthy, slowdown = (_run(24, m, SETUPS[name]) for m in DAYS)
    assert healthy.tracking == slowdown.tracking


def test_a_slowdown_that_stops_gives_back_the_normal_hold() -> None:
    p = Params(mode="slowdown", rounds=10, start=3, hold_event=6, slow=22)
    assert event_holds(p, stop=5) == [6, 6, 6, 22, 22, 6, 6, 6, 6, 6]
    assert event_holds(p) == [6, 6, 6] + [22] * 7
    assert event_holds(p.with_(mode="healthy"), stop=5) == [6] * 10


@pytest.mark.parametrize(
    "policy", [RetryPolicy(2, None), RetryPolicy(2, Backoff(base=1, cap=1, jitter="full"))]
)
@pytest.mark.parametrize(("split", "lost"), [(None, 0.5), (1, 1.6)])
def test_a_full_pool_admits_originals_and_retries_alike(
    policy: RetryPolicy, split: int | None, lost: float
) -> None:
    # Round 0: three tracking calls, hold 1; round 1: the refused ones retry beside three new calls. One
    # pool of 2 slots: one retry among 4 calls wins with 1/2; a compartment of 1 slot: two retries among 5
    # calls win with 1/5 each, so 1.6 lose their last attempt. (Full jitter capped at 1 round draws too.)
    p, s = _tiny(2, hold=1, arrivals={0: (TRACKING,) * 3, 1: (TRACKING,) * 3})
    runs = [run(p.with_(split=split), RetrySetup(policy, seed=k), stream=s) for k in range(2000)]
    assert round(sum(r.tracking.exhausted for r in runs) / 2000, 1) == lost


# --- the storm's drain (notebook 06's tables, cells c15, c17, c21, c23, c25 and c30, nbval compares) -----


def test_the_storm_outlives_its_trigger_by_about_its_retry_schedule() -> None:
    assert seeded.storm_load(None, RetrySetup()).back(None) == 0  # nothing to drain
    retrying = seeded.storm_load(None, SETUPS["full"])
    # full jitter: the two sleeps are at most 20 and 40 rounds, so the retries drain within ~60
    back = retrying.back(None)
    assert retrying.stop == STORM_STOP and back is not None and 0 < back <= 60
    assert seeded.storm_load(None, SETUPS["full + SRE"]).back(None) == 0  # the budget leaves nothing to drain


def test_drain_reads_the_excess_over_the_healthy_day() -> None:
    p, s = _tiny(8, hold=1, arrivals={t: (TRACKING,) * 10 for t in range(8)})
    calm = run(p, RetrySetup(), stream=s, trace=True).trace
    assert calm is not None
    busy = replace(calm, offered=((10, 10, 10, 15, 15, 10, 10, 10), calm.offered[EVENT]))
    assert drain(busy, calm, 3, window=1) == 2  # rounds 3 and 4 carry 5 retries (> 10% of 10)
    assert drain(busy, calm, 3, window=1, within=0.5) == 0
    assert drain(busy, calm, 6, window=3) is None  # no full window left after round 5


# --- one budget for both flows (the gateway as one client) -------------------------------------------


def test_a_shared_budget_lets_one_flows_retries_spend_the_others() -> None:
    # round 0: five events, two slots (event hold 1): three refused; the books count 5 calls,
    # so 20% grants two retries (0 < 1, 1 < 1.2) and denies the third. Round 1: three tracking
    # calls, one refused; shared books count 5 + 3 originals and 2 retries: 2 < 0.2 * 10 fails,
    # so tracking's retry is denied. With a budget per flow tracking's books hold 3 calls, no retry.
    p, s = _tiny(6, hold=3, arrivals={0: (EVENT,) * 5, 1: (TRACKING,) * 3})
    setup = ONE_RETRY_AFTER_2.with_(budget=RatioBudget(0.2, 0, 100))
    own, shared = (run(p, setup.with_(shared=x), stream=s) for x in (False, True))
    assert own.event == shared.event == FlowCounters(5, 2, 5, 2, 1, 2, 0)
    assert own.tracking == FlowCounters(3, 2, 2, 1, 0, 1, 0)  # retried in round 3, still full
    assert shared.tracking == FlowCounters(3, 2, 1, 0, 1, 0, 0)  # denied: events spent the budget


def test_a_shared_budget_says_so() -> None:
    """That it leaks the event storm through the 24/8 wall (tracking gave up 1, then 50) is notebook 06's
    cell c23."""
    assert RetrySetup(FULL, SRE_BUDGET, shared=True).label.endswith("shared by both flows")


class Shut:
    """A gate that keeps back every call of the rounds in ``shut``; it counts the calls the pool admitted."""

    def __init__(self, shut: range) -> None:
        self.shut, self.admitted_calls = shut, [0, 0]

    def calls(self, t: int, order: tuple[int, ...], callers: tuple[Callers, Callers]) -> tuple[int, ...]:
        for caller in callers if t in self.shut else ():
            for due in caller.dues:
                caller.total[t], due[t] = caller.total[t] - due[t], 0
        return () if t in self.shut else order

    def admitted(self, tracking: int, event: int) -> None:
        self.admitted_calls = [self.admitted_calls[TRACKING] + tracking, self.admitted_calls[EVENT] + event]


def test_a_gate_keeps_calls_from_the_pool_and_one_that_keeps_none_changes_nothing() -> None:
    p, setup = LESSON.with_(split=24, mode="slowdown"), SETUPS["full + SRE"]
    assert run(p, setup, gate=Shut(range(0))) == run(p, setup)
    gate = Shut(range(p.start, p.start + 500))  # the slowdown's first 5 s: nothing is sent
    r, stream = run(p, setup, gate=gate), arrivals.stream(p)
    for f, c in ((TRACKING, r.tracking), (EVENT, r.event)):
        assert c.attempts == c.served + c.refused and c.served == gate.admitted_calls[f]
        assert c.unsent == sum((stream.tracking, stream.event)[f][p.start : p.start + 500]) > 0
    shut = run(p, setup, gate=Shut(range(p.rounds))).event
    assert shut == FlowCounters(shut.requests, 0, 0, 0, 0, 0, 0, unsent=shut.requests)
    with pytest.raises(ValueError, match=r"^a gate takes no decorrelated jitter"):
        run(p, SETUPS["decorrelated"], gate=gate)
