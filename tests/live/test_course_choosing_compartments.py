"""Notebook 08's live cells: the facts tables nbval compares hold the counts every run repeats."""

from __future__ import annotations

import pytest

from bulkhead_lab.course.choosing_compartments import views
from bulkhead_lab.live.isolation import IsolationSettings
from bulkhead_lab.live.watched import WatchSettings

pytestmark = pytest.mark.live


def test_the_isolation_facts_are_the_counts_of_the_three_runs() -> None:
    runs = views.isolation_runs(IsolationSettings(slots=4, calls=8, latency=1.0, timeout=0.1))
    facts = views.isolation_facts(runs)
    assert list(facts.index) == ["thread pool", "semaphore", "on the loop"]
    assert facts.loc["thread pool"].to_dict() == {
        "calls": 8, "refused at once": 4, "timed out": 4, "answered": 0, "held when all had answers": 4,
        "one more call then": "refused", "dependency's calls": 4, "threads started": 4,
        "loop stood still": "no", "dependency let go early": "no",
    }  # fmt: skip
    assert facts.loc["semaphore"].to_dict() == {
        "calls": 8, "refused at once": 4, "timed out": 4, "answered": 0, "held when all had answers": 0,
        "one more call then": "timed out", "dependency's calls": 5, "threads started": 0,
        "loop stood still": "no", "dependency let go early": "yes",
    }  # fmt: skip
    assert facts.loc["on the loop", "loop stood still"] == "yes"
    assert facts.loc["on the loop", "answered"] == 1


def test_the_watched_facts_are_the_bulkheads_counts_and_the_alerts_the_refusals_set_off() -> None:
    run = views.watched_run(WatchSettings(limit=5, queue=5, latency=0.1, steady=5, burst=20))
    assert views.watched_facts(run).splitlines() == [
        "steady: 5 calls, 0 refused (0%), at most 1 running of 5; the refusals set off: none",
        "burst: 20 calls, 10 refused (50%), at most 5 running of 5; the refusals set off: refusals, SLO burn",
        "the dependency counted 15 calls, at most 5 at once",
    ]
