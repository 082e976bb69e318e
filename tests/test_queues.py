"""The queueing model traced by hand: tiny runs whose every round was worked out on paper, field by
field (Polly's bulkhead specs' style), the dependency's rules one at a time, and bad settings
refused in one line."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from bulkhead_lab.queues.calls import Call
from bulkhead_lab.queues.dependency import Server
from bulkhead_lab.queues.rounds import SERIES, run
from bulkhead_lab.queues.settings import Bulkhead, Callers, Dependency, QueueTimeout, Setup, Slowdown
from bulkhead_lab.retries.budgets import RatioBudget
from bulkhead_lab.retries.policy import NO_RETRIES, RetryPolicy

AT_ONCE_TWICE = RetryPolicy(attempts=2, backoff=None)  # one retry, the next round


def _tiny(arrivals: list[int], dependency: Dependency, callers: Callers) -> dict[str, list[int]]:
    setup = Setup(dependency, callers, None, rounds=len(arrivals), arrivals=tuple(arrivals))
    trace = run(setup).trace
    return {name: list(values) for name, values in asdict(trace).items()}


def _expect(trace: dict[str, list[int]], **rows: list[int]) -> None:
    """Each named series round by round; every series not named is zero in every round."""
    for name in SERIES:
        want = rows.get(name, [0] * len(trace["offered"]))
        assert trace[name] == want, f"{name}: {trace[name]} (want {want})"


# The plain FIFO run of these calls, round by round, is notebook 07's cell c17 (views.TINY), which nbval
# compares: A answered in round 2, B served in round 4 for no one, B's retry answered in round 6.


def test_a_deadline_drop_skips_the_call_that_cannot_finish_and_its_caller_retries_at_once() -> None:
    # Round 2: B (deadline 3) would end in round 4: dropped, and its caller, still waiting, hears
    # of it now and retries in round 3 (B2, deadline 6), which ends in round 5. Nothing is wasted.
    dependency = Dependency(workers=1, service=2, deadline="cannot finish")
    trace = _tiny([2, 0, 0, 0, 0, 0, 0, 0], dependency, Callers(3, AT_ONCE_TWICE))
    _expect(
        trace,
        offered=[2, 0, 0, 1, 0, 0, 0, 0],
        retries=[0, 0, 0, 1, 0, 0, 0, 0],
        served=[0, 0, 1, 0, 0, 1, 0, 0],
        goodput=[0, 0, 1, 0, 0, 1, 0, 0],
        dropped=[0, 0, 1, 0, 0, 0, 0, 0],
        queue=[1, 1, 0, 0, 0, 0, 0, 0],
        waiting=[2, 2, 0, 1, 1, 0, 0, 0],
    )


def test_dropping_only_expired_work_serves_the_same_late_call() -> None:
    # B's deadline (3) has not passed in round 2: "expired" starts it, as FIFO alone does.
    dependency = Dependency(workers=1, service=2, deadline="expired")
    plain = _tiny([2, 0, 0, 0, 0, 0, 0, 0], Dependency(workers=1, service=2), Callers(3, AT_ONCE_TWICE))
    assert _tiny([2, 0, 0, 0, 0, 0, 0, 0], dependency, Callers(3, AT_ONCE_TWICE)) == plain


def test_a_queue_bound_of_zero_refuses_at_once_and_the_last_attempt_gives_up() -> None:
    # Round 0: A starts, B finds no room and is refused (retry in round 1); round 1: B2 is refused
    # too, its second and last attempt: the request gives up. Round 2: A answered.
    trace = _tiny([2, 0, 0, 0], Dependency(workers=1, service=2, queue=0), Callers(3, AT_ONCE_TWICE))
    _expect(
        trace,
        offered=[2, 1, 0, 0],
        retries=[0, 1, 0, 0],
        served=[0, 0, 1, 0],
        goodput=[0, 0, 1, 0],
        refused=[1, 1, 0, 0],
        gave_up=[0, 1, 0, 0],
        waiting=[1, 1, 0, 0],
    )


def test_the_queue_timeout_drops_what_waited_past_its_target_once_the_queue_has_stood_its_interval() -> None:
    # 1 worker, 3 rounds a call, 3 calls at round 0. Round 3: the queue (B, C) has not been empty
    # since round 0, more than the interval (2): a call may wait 0.5 rounds; B and C waited 3.
    never = Callers(20, NO_RETRIES)
    tight = _tiny([3, 0, 0, 0, 0, 0, 0], Dependency(1, 3, queue_timeout=QueueTimeout(0.5, 2)), never)
    _expect(
        tight,
        offered=[3, 0, 0, 0, 0, 0, 0],
        served=[0, 0, 0, 1, 0, 0, 0],
        goodput=[0, 0, 0, 1, 0, 0, 0],
        dropped=[0, 0, 0, 2, 0, 0, 0],
        gave_up=[0, 0, 0, 2, 0, 0, 0],
        queue=[2, 2, 2, 0, 0, 0, 0],
        waiting=[3, 3, 3, 0, 0, 0, 0],
    )
    # With an interval of 5, round 3 is within it: B (waited 3 <= 5) starts; round 6: C waited 6,
    # the queue has stood 6 > 5 rounds, so C may wait 0.5 only: dropped.
    loose = _tiny([3, 0, 0, 0, 0, 0, 0], Dependency(1, 3, queue_timeout=QueueTimeout(0.5, 5)), never)
    assert loose["served"] == [0, 0, 0, 1, 0, 0, 1] and loose["dropped"] == [0, 0, 0, 0, 0, 0, 1]


def test_the_callers_bulkhead_holds_a_place_a_line_and_refuses_the_rest() -> None:
    # Limit 1, line 1: round 0, A is sent, B waits in line, C is refused (and gives up: one
    # attempt). Round 2: A answered, its place goes to B, answered in round 4.
    bulkhead = Callers(10, NO_RETRIES, bulkhead=Bulkhead(1, 1))
    trace = _tiny([3, 0, 0, 0, 0], Dependency(workers=2, service=2), bulkhead)
    _expect(
        trace,
        offered=[3, 0, 0, 0, 0],
        served=[0, 0, 1, 0, 1],
        goodput=[0, 0, 1, 0, 1],
        refused=[1, 0, 0, 0, 0],
        gave_up=[1, 0, 0, 0, 0],
        waiting=[2, 2, 1, 1, 0],
        limit=[1, 1, 1, 1, 1],
    )


def test_a_call_timed_out_in_the_bulkheads_line_never_reaches_the_dependency() -> None:
    # Limit 1, line 1, timeout 2: B waits in line behind A (4 rounds a call) and gives up in round
    # 2, before A's place frees; only A is ever served, in round 4, for no one (A's caller left at 2).
    trace = _tiny([2, 0, 0, 0, 0, 0], Dependency(1, 4), Callers(2, NO_RETRIES, bulkhead=Bulkhead(1, 1)))
    _expect(
        trace,
        offered=[2, 0, 0, 0, 0, 0],
        served=[0, 0, 0, 0, 1, 0],
        wasted=[0, 0, 0, 0, 1, 0],
        gave_up=[0, 0, 2, 0, 0, 0],
        waiting=[2, 2, 0, 0, 0, 0],
        limit=[1] * 6,
    )


def _call(made: int) -> Call:
    return Call(made, made + 100)


@pytest.mark.parametrize(("order", "first"), [("fifo", 0), ("lifo", 2)])
def test_a_free_worker_takes_the_oldest_or_the_newest_waiting_call(order: str, first: int) -> None:
    server = Server(Dependency(workers=1, service=1, order=order), rounds=4, longest=1)  # type: ignore[arg-type]
    calls = [_call(0) for _ in range(3)]
    server.serve(0, calls, 1)  # calls[0] starts; 1 and 2 wait
    assert server.finish(1) == [calls[0]]
    server.serve(1, [], 1)
    assert server.finish(2) == [calls[1 if first == 0 else 2]]


def test_adaptive_lifo_is_fifo_until_a_queue_has_stood_its_interval() -> None:
    server = Server(Dependency(workers=1, service=1, order="adaptive lifo", interval=2), rounds=8, longest=1)
    calls = [_call(0) for _ in range(5)]
    server.serve(0, calls, 1)  # 0 starts; 1..4 wait; the queue was last empty in round 0 (its start)
    taken = []
    for t in range(1, 5):
        taken += server.finish(t)
        server.serve(t, [], 1)
    # rounds 1, 2: the queue has stood 1, 2 rounds (not more than 2): oldest first; round 3: newest.
    assert taken == [calls[0], calls[1], calls[2], calls[4]]


def test_a_slowdown_makes_calls_started_within_it_slow() -> None:
    setup = Setup(trigger=Slowdown(start=2, stop=4, service=9), rounds=6, arrivals=(0,) * 6)
    assert setup.service_at() == [6, 6, 9, 9, 6, 6]


def test_the_healthy_day_is_the_same_setup_with_no_trigger() -> None:
    setup = Setup(callers=Callers(timeout=40, budget=RatioBudget()))
    assert setup.healthy.trigger is None and setup.healthy.callers == setup.callers


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Dependency(workers=0), "workers must be an integer in 1..10000 (got 0)"),
        (lambda: Dependency(service=2.5), "service must be an integer in 1..1000 (got 2.5)"),
        (lambda: Dependency(queue=-1), "queue must be an integer in 0..1000000 (got -1)"),
        (lambda: Dependency(order="random"), "order must be one of fifo, lifo, adaptive lifo (got 'random')"),
        (
            lambda: Dependency(deadline="soon"),
            "deadline must be one of ignored, expired, cannot finish (got 'soon')",
        ),
        (lambda: QueueTimeout(interval=0), "interval must be a number > 0 and <= 1000 (got 0)"),
        (lambda: Callers(timeout=0), "timeout must be an integer in 1..1000 (got 0)"),
        (lambda: Callers(budget=0.1), "budget must be None, a RatioBudget or a TokenBucket (got 0.1)"),
        (lambda: Bulkhead(limit=0), "limit must be an integer in 1..10000 (got 0)"),
        (lambda: Slowdown(start=10, stop=5), "stop must be an integer in 10..100000 (got 5)"),
        (lambda: Setup(rate=-1.0), "rate must be a number >= 0 and <= 400 (got -1.0)"),
        (lambda: Setup(rounds=0), "rounds must be an integer in 1..100000 (got 0)"),
        (
            lambda: Setup(trigger=Slowdown(1000, 5000)),
            "trigger stop must be an integer in 1000..4000 (got 5000)",
        ),
        (
            lambda: Setup(rounds=3, arrivals=(1, 2)),
            "arrivals must be a tuple of 3 counts, one a round (got (1, 2))",
        ),
    ],
)
def test_a_bad_setting_is_refused_in_one_line_naming_it_and_its_range(build, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        build()
    assert str(caught.value) == message
