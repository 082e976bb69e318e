"""A bulkhead and a breaker on the event compartment: the breaker traced by hand, then on lesson 000's day
(the four layouts' table, the damage before the breaker opens, is notebook 08's cell c35, which nbval
compares)."""

from __future__ import annotations

from bulkhead_lab.compartments import breaker
from bulkhead_lab.compartments.breaker import Breaker, BreakerSettings, run_layout
from bulkhead_lab.pool import rounds
from bulkhead_lab.pool.params import Params

SLOWDOWN = Params(mode="slowdown")


def test_a_breaker_traced_by_hand_opens_on_its_window_probes_half_open_and_closes() -> None:
    b = Breaker(BreakerSettings(ratio=0.5, window=4, slow_call=10, open_rounds=100, probes=2), compartment=8)
    assert (b.state, b.limit) == ("closed", 8)
    for rtt in (6, 22, 6):  # 1 of 3 failed: the window is not full yet
        b.on_sample(rtt, 1)
    assert b.state == "closed"
    b.tick(5)
    b.on_sample(22, 1)  # 2 of 4 failed: 0.5 >= ratio, open at round 5
    assert (b.state, b.limit, b.opened_at) == ("open", 0, 5)
    b.on_sample(6, 1)  # outcomes while open are not judged
    b.tick(104)
    assert b.state == "open"
    b.tick(105)  # open_rounds later: half-open, two probes at once
    assert (b.state, b.limit) == ("half-open", 2)
    b.on_sample(22, 1)
    b.on_sample(22, 1)  # both probes failed: open again
    assert (b.state, b.opened_at) == ("open", 105)
    b.tick(205)
    b.on_sample(6, 1)
    b.on_sample(22, 1)  # one of two failed: 0.5 >= ratio, still open
    assert b.state == "open"
    b.tick(305)
    b.on_sample(6, 1)
    b.on_sample(6, 1)
    assert (b.state, b.limit) == ("closed", 8)


def test_a_call_refused_by_the_full_pool_is_not_the_dependencys_failure() -> None:
    b = Breaker(BreakerSettings(window=1), compartment=4)
    for _ in range(5):
        b.on_sample(0, 5, dropped=True)
    assert b.state == "closed"


def test_24_8_without_a_breaker_is_lesson_000s_bulkhead() -> None:
    run = run_layout("24/8", SLOWDOWN)
    assert run.counters == rounds.counters(SLOWDOWN.with_(split=24))
    assert (run.counters.tracking_dropped, run.counters.event_dropped) == (172, 2011)
    assert run.detected is None and run.opens == 0


def test_a_breaker_that_cannot_see_the_failure_never_opens_and_only_the_wall_protects() -> None:
    blind = BreakerSettings(slow_call=30)  # the slow calls hold 22 rounds: never "slow" to it
    single_b = run_layout("single pool + breaker", SLOWDOWN, blind)
    split_b = run_layout("24/8 + breaker", SLOWDOWN, blind)
    assert single_b.opens == split_b.opens == 0
    assert single_b.counters == run_layout("single pool", SLOWDOWN).counters
    assert split_b.counters.tracking_dropped == 172


def test_on_a_healthy_day_the_breaker_never_opens() -> None:
    for layout in ("single pool + breaker", "24/8 + breaker"):
        assert run_layout(layout, Params()).opens == 0  # type: ignore[arg-type]


def test_the_day_runs_are_kept_and_the_blind_threshold_is_where_the_breaker_stops_opening() -> None:
    runs = breaker.day_runs()
    assert tuple(r.layout for r in runs) == breaker.LAYOUTS
    assert breaker.day_runs() is runs  # kept: a slider moved back replays nothing
    blind = breaker.blind_threshold()
    opens = [breaker.day_runs(BreakerSettings(slow_call=t))[1].opens for t in (blind - 1, blind)]
    assert opens[0] > 0 and opens[1] == 0
