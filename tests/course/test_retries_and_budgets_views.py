"""Notebook 06's views: the sources' figures computed, the seeded tables read from the kept runs,
the slider views' series adding up to the runs' counters, and the storm's drain the package's own."""

from __future__ import annotations

import pytest

from bulkhead_lab.course.retries_and_budgets import views
from bulkhead_lab.pool.arrivals import TRACKING
from bulkhead_lab.pool.params import Params
from bulkhead_lab.pool.rounds import run as lesson_run
from bulkhead_lab.retries.budgets import AWS_QUOTA, SRE_BUDGET

# --- the sources' figures ---------------------------------------------------------------------------


def test_the_worst_case_is_3x_without_a_budget_and_about_1_1x_with_the_sres() -> None:
    frame = views.worst_case_table()
    assert frame.loc["no budget", "here: calls/request"] == 3.0
    assert frame.loc["SRE 10%", "here: calls/request"] == pytest.approx(1.111)
    assert frame.loc["SRE 10%", "the source"] == "about 1.1x"
    aws = "AWS quota: 500 tokens, 5 a retry"
    assert frame.loc[aws, "retries"] == AWS_QUOTA.capacity // AWS_QUOTA.retry_cost


def test_envoys_row_caps_retries_in_flight_so_it_binds_by_the_rate_not_by_a_share() -> None:
    # Envoy's retry_budget (resource_manager_impl.h, retry_state_impl.cc): at most max(20% of active, 3)
    # retries in flight, a retry in flight through its backoff. Refusals answered in their round leave
    # the floor of 3, so the cap is a rate of retries: nothing at 1 request a second, tight at 1000.
    frame = views.worst_case_table()
    assert frame.loc[views.ENVOY, "here: calls/request"] < frame.loc["SRE 10%", "here: calls/request"]
    rates = views.envoy_table()
    envoy, sre = rates["Envoy"], rates["SRE 10%"]
    assert envoy["1 a second"] == 3.0 == rates["no budget"]["1 a second"]  # never 3 in flight: never binds
    assert list(envoy) == sorted(envoy, reverse=True)  # the faster the refusals, the harder it binds
    assert envoy["1000 a second"] < sre["1000 a second"] and all(1.1 <= x <= 1.2 for x in sre)
    fact = views.envoy_fact()
    assert "Envoy's limit was 3 in every round" in fact and f"{envoy['1000 a second']:.3f} calls" in fact


def test_no_budget_on_the_panels_is_envoys_modelled_as_a_share_of_calls() -> None:
    assert not any("Envoy" in name for name in views.BUDGETS)
    assert max(len(name) for name in views.BUDGETS) <= len("10% (SRE)")  # a readout that shows whole


@pytest.fixture(scope="module")
def contention() -> views.Contention:
    return views.contention()


def test_without_jitter_50_clients_make_n_n_plus_1_over_2_calls(contention) -> None:
    at = contention.at(50)
    assert at.loc["exponential, no jitter", "calls (50 clients)"] == 50 * 51 / 2
    assert at.loc["full jitter", "calls (50 clients)"] < at.loc["equal jitter", "calls (50 clients)"]
    assert (
        at.loc["exponential, no jitter", "last success (step)"] > at.loc["full jitter", "last success (step)"]
    )


def test_decorrelated_jitter_finishes_soonest_of_the_jittered_and_no_backoff_sooner_still(contention) -> None:
    # the takeaway's words: "of the jittered strategies", since no backoff at all finishes first
    done = contention.at(50)["last success (step)"]
    jittered = done[[s for s in done.index if s.endswith("jitter") and "no jitter" not in s]]
    assert jittered.idxmin() == "decorrelated jitter"
    assert done["no backoff"] < jittered.min() and done.idxmin() == "no backoff"


# --- retrying callers in lesson 000's rounds ----------------------------------------------------------


def test_with_no_retries_the_table_is_lesson_000s_drops() -> None:
    row = views.retry_table().loc["no retries"]
    for layout, split in (("single pool (32)", None), ("24/8", 24)):
        h, y = (lesson_run(Params(split=split, mode=m)) for m in ("healthy", "slowdown"))
        assert row.loc[layout, "healthy: tracking gave up"] == h.tracking_dropped
        assert row.loc[layout, "slowdown: tracking gave up"] == y.tracking_dropped
        assert row.loc[layout, "slowdown: event gave up"] == y.event_dropped
        assert row.loc[layout, "slowdown: event calls/request"] == 1.0


def test_the_sliders_describe_the_callers() -> None:
    setup = views.setup_of(4, "at once", 20, "10% (SRE)", "both flows")
    assert setup.policy.attempts == 4 and setup.policy.backoff is None
    assert setup.budget == SRE_BUDGET and setup.shared
    backoff = views.setup_of(jitter="decorrelated", base=50).policy.backoff
    assert backoff is not None and (backoff.base, backoff.jitter) == (50, "decorrelated")
    with pytest.raises(ValueError, match="^budget must be one of"):
        views.setup_of(budget="11%")


def test_the_retry_views_table_is_its_runs_counters() -> None:
    view = views.retry_view(24, views.setup_of(budget="5%"))
    assert list(view.frame.index) == [
        (layout, day) for layout in ("single pool (32)", "24/8") for day in ("healthy", "slowdown")
    ]
    y = view.load.runs[(24, "slowdown")]
    assert view.frame.loc[("24/8", "slowdown"), "event gave up"] == y.event.gave_up


def test_a_shared_budget_helps_the_healthy_day_and_leaks_the_slowdown_through_24_8() -> None:
    frame = views.budget_scope_table()
    own, shared = frame.loc[("24/8", "each flow")], frame.loc[("24/8", "both flows")]
    assert shared["healthy: event gave up"] < own["healthy: event gave up"]  # the sharing given up
    assert own["slowdown: tracking gave up"] == own["healthy: tracking gave up"] == 1
    assert shared["slowdown: tracking gave up"] > 10 * own["slowdown: tracking gave up"]


def test_no_ratio_budget_brings_the_single_pool_near_24_8() -> None:
    frame = views.single_pool_budget_table()
    assert frame["single pool: tracking gave up"].min() > 10 * frame["24/8: tracking gave up"].max()
    assert frame.loc["0%", "single pool: tracking gave up"] == 2654  # no retry granted: the lesson's
    assert "38.1 > 32 slots" in views.capacity_fact()


# --- the storm after its trigger ---------------------------------------------------------------------


def test_the_storm_views_table_says_never_for_a_load_not_back_and_reads_the_models_rounds() -> None:
    view = views.storm_view(24, views.setup_of(jitter="none"))
    for split, layout in ((None, "single pool (32)"), (24, "24/8")):
        row = view.frame.loc[layout]
        assert row["tracking back after"] == view.load.backs[(split, TRACKING)]
        assert row["every flow back after"] == view.load.back(split)


def test_a_budget_leaves_nothing_to_drain_and_the_bulkheads_tracking_never_storms() -> None:
    frame = views.drain_table()
    assert (frame.xs("10% (SRE)", level="budget") == 0).all().all()
    assert (frame["24/8: tracking back after"] == 0).all()
    assert frame.loc[("full", "none"), "single pool (32): tracking back after"] == 28
