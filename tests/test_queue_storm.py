"""The storm that stays: how recovery is read, each fix ends it, and the timeouts' arithmetic (Little's Law)
against the model. The storm itself with no fix (cell c19), each fix's recovery and waste (c24) and the
limits at the knee (c31) are notebook 07's stored outputs, which nbval compares."""

from __future__ import annotations

import pytest

from bulkhead_lab.queues import knee, timeouts
from bulkhead_lab.queues.fixes import FIXES, TABLE, with_fix
from bulkhead_lab.queues.recovery import collapse, recovery, storm
from bulkhead_lab.queues.rounds import SERIES, Trace, arrivals, kept_run, run
from bulkhead_lab.queues.settings import Callers, Dependency, Setup

DEFAULT = Setup()


def _trace(goodput: list[int]) -> Trace:
    zeros = tuple(0 for _ in goodput)
    return Trace(**{name: tuple(goodput) if name == "goodput" else zeros for name in SERIES})


def test_recovery_is_from_the_window_after_the_trigger_back_to_a_share_of_the_healthy_day_for_good() -> None:
    sick, healthy = _trace([1, 1, 0, 0, 0, 0, 1, 1, 1, 1]), _trace([1] * 10)
    # window 2, share 0.75: a window needs both its rounds answered. From round 3: windows 3-4 and
    # 4-5 have none, 5-6 has one, 6-7 two and every one after: back 3 rounds after the end.
    assert recovery(sick, healthy, stop=3, window=2, share=0.75) == 3
    assert collapse(sick, healthy, start=0, stop=3, window=2, share=0.75) == 1  # rounds 1-2: one of two
    assert recovery(_trace([0] * 10), healthy, stop=3, window=2) is None
    # back in rounds 3-4, then down again in 5-6, back for good from 7: a first good window is no recovery
    relapse = _trace([1, 1, 0, 1, 1, 0, 0, 1, 1, 1])
    assert recovery(relapse, healthy, stop=3, window=2, share=0.75) == 4
    assert recovery(_trace([1] * 8 + [0, 0]), healthy, stop=3, window=2) is None  # down at the end: never
    # half of nothing is no recovery: a healthy day with no goodput cannot make a storm "back"
    assert recovery(_trace([0] * 10), _trace([0] * 10), stop=3, window=2) is None


def test_a_storm_that_relapses_is_not_back_until_it_stays_back() -> None:
    # the panel's "drop expired" behind a queue of 40: a good window soon after the end, then the storm again
    s = storm(with_fix(DEFAULT.with_(dependency=Dependency(queue=40)), "drop expired"))
    assert s.recovery is None
    assert s.run.trace.total("goodput", 3000) < 0.1 * s.healthy.trace.total("goodput", 3000)


def test_the_healthy_day_answers_every_request_in_time_with_no_fix() -> None:
    healthy = kept_run(DEFAULT.healthy).trace
    requests = sum(arrivals(DEFAULT.rate, DEFAULT.rounds, DEFAULT.seed))
    assert healthy.total("goodput") >= 0.99 * requests and healthy.total("wasted") == 0


@pytest.mark.parametrize("fix", [f for f in TABLE if f != "no fix"])
def test_each_fix_ends_the_storm_within_the_run(fix) -> None:
    s = storm(with_fix(DEFAULT, fix))
    assert s.recovery is not None, fix
    after = s.run.trace.total("goodput", s.trigger.stop + s.recovery)
    healthy = s.healthy.trace.total("goodput", s.trigger.stop + s.recovery)
    assert after >= 0.9 * healthy


def test_dropping_only_expired_work_does_not_end_the_storm_under_fifo() -> None:
    # the oldest call still in time is always the next one served: it finishes after its deadline
    s = storm(with_fix(DEFAULT, "drop expired"))
    assert s.recovery is None and s.after("goodput") < 0.01 * s.healthy.trace.total("goodput", 1500)
    assert s.after("wasted") > 0  # what it served after the end, it served for callers already gone


def test_a_fix_keeps_what_the_setup_already_chose() -> None:
    chosen = DEFAULT.with_(dependency=Dependency(queue=5))
    assert with_fix(chosen, "bounded queue").dependency.queue == 5
    assert with_fix(DEFAULT, "bounded queue").dependency.queue == 20
    assert [with_fix(DEFAULT, f) for f in FIXES].count(DEFAULT) == 1  # only "no fix" changes nothing


def test_a_queue_longer_than_the_timeout_allows_keeps_the_storm() -> None:
    # at a 30-round timeout, 32 calls may wait (24 rounds of service ahead): bound 32 recovers,
    # 40 (30 rounds of waiting, then 6 of service) never does
    assert timeouts.longest_queue(DEFAULT.dependency, 30) == 32
    short, long = (storm(DEFAULT.with_(dependency=Dependency(queue=q))) for q in (32, 40))
    assert short.recovery is not None and long.recovery is None


def test_occupancy_is_rate_times_the_shorter_of_latency_and_timeout() -> None:
    assert timeouts.occupancy(0.9722, 22, 10) == pytest.approx(9.722)
    assert timeouts.occupancy(0.9722, 6, 30) == pytest.approx(5.8332)
    requests = arrivals(97.22, 4000, DEFAULT.seed)
    realised = sum(requests[timeouts.WARM_UP :]) / (4000 - timeouts.WARM_UP)
    for latency, timeout in ((6, 30), (22, 10), (22, 30), (22, 5)):
        simulated = timeouts.held(97.22, latency, timeout)
        assert simulated == pytest.approx(realised * min(latency, timeout), rel=0.01), (latency, timeout)


def test_a_queued_calls_latency_is_its_share_of_the_work_ahead_then_its_own() -> None:
    d = Dependency()  # 8 workers, 6 rounds: one frees every 0.75 rounds
    assert timeouts.queued_latency(d, 0) == pytest.approx(6.75)
    assert timeouts.queued_latency(d, 31) == pytest.approx(30.0)
    assert timeouts.longest_queue(d, 6) == 0 and timeouts.longest_queue(d, 5) == 0


def test_latency_bends_at_the_knee() -> None:
    d = Dependency()
    assert [knee.latency_at(d, n) for n in (1, 8, 16, 24)] == [6, 6, 12, 18]


def test_a_run_is_the_same_every_time_and_a_cell_may_play_the_dependency() -> None:
    setup = DEFAULT.with_(callers=Callers(timeout=20))
    assert run(setup) == run(setup) == kept_run(setup)

    from bulkhead_lab.queues.dependency import Server

    class Lifo(Server):
        """a learner's edit: always the newest first"""

        def serve(self, t, calls, service):  # type: ignore[no-untyped-def]
            self.settings = Dependency(order="lifo")
            return super().serve(t, calls, service)

    assert recovery(run(DEFAULT, Lifo).trace, kept_run(DEFAULT.healthy).trace, 1500) is not None
