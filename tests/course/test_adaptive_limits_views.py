"""The runs behind notebook 05's panels (adaptive.compare.explore, pitfalls.drift_runs). The tables and facts
the notebook prints (the comparison at the sources' defaults, the limits at the failure, the drift table)
are nbval's to compare, number for number."""

from __future__ import annotations

from bulkhead_lab import memo
from bulkhead_lab.adaptive.compare import explore
from bulkhead_lab.adaptive.pitfalls import drift_runs
from bulkhead_lab.adaptive.pool import model_spec, pool_run
from bulkhead_lab.course.adaptive_limits import views
from bulkhead_lab.pool.params import ROUNDS, Params


def test_explores_trace_is_the_runs_with_the_algorithms_main_setting() -> None:
    run = explore("AIMD", 21, 22, 1500)
    params = Params(mode="slowdown")
    specs = [model_spec("AIMD", flow, params, timeout=21) for flow in (0, 1)]
    traced = pool_run(params, *specs, trace=True, stop=2500).trace
    assert traced is not None and traced.event_limit == run.trace.event_limit
    assert run.event_lowest == 1 and run.rows[2].slowdown.tracking_dropped < 172


def test_the_drift_runs_go_on_after_the_slowdown_and_their_facts_are_gradient2_drifts() -> None:
    long, short = drift_runs(3000), drift_runs(300)
    assert (
        long.drift.back_at == 1380 and views.drift_frame(long).loc["back at 28 at round", "value"] == "1380"
    )
    assert short.drift.back_at is None
    assert views.drift_frame(short).loc["back at 28 at round", "value"] == "not while the slowdown lasts"
    assert len(short.event_limit) == 4000 and short.stop == 1300  # the run goes on after the slowdown
    assert short.event_limit[:1300] == short.drift.event_limit
    assert long.tracking_since["single pool (32)"][999] == 0  # counted from the slowdown's start


def test_a_larger_tolerance_brings_the_drift_back_sooner() -> None:
    assert [drift_runs(3000, t).drift.back_at for t in (1.0, 1.5, 2.0)] == [2070, 1380, 1181]


def test_the_views_replay_the_lessons_stream_only() -> None:
    memo.clear()
    explore("Vegas")
    drift_runs(500)
    assert memo.stats()["streams"].entries == 1 and ROUNDS == 4000
