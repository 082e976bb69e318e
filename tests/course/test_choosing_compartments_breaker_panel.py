"""Notebook 08's breaker panel (issue 31): the table names which calls the slow-call threshold counts slow,
and why a move between the holds counts the same calls (tests/course/test_every_slider_moves.py moves
every slider)."""

from __future__ import annotations

from bulkhead_lab.compartments import breaker
from bulkhead_lab.compartments.breaker import BreakerSettings
from bulkhead_lab.course.choosing_compartments import views


def test_the_slow_call_moves_inside_the_holds_count_the_same_calls_and_the_table_says_so() -> None:
    runs = {t: breaker.day_runs(BreakerSettings(slow_call=t)) for t in (9, 10, 11)}
    tables = [views.breaker_table(r) for r in runs.values()]
    assert all(t.equals(tables[0]) for t in tables)  # the runs are the same: only the words can move
    judged = breaker.judged(BreakerSettings(slow_call=10), 22)
    assert judged["a slow call of 10 rounds counts"].startswith(
        "only the 22-round calls (held longer than 10)"
    )
    assert judged["why"] == (
        "event calls take 6 or 22 rounds: any threshold from 6 to 21 counts the 22-round calls slow, "
        "and from 22 on none"
    )


def test_the_threshold_words_follow_the_models_three_ranges_and_the_blind_threshold() -> None:
    blind = breaker.blind_threshold()
    for t, starts in (
        (5, "every event call"),
        (6, "only the 22-round"),
        (blind - 1, "only"),
        (blind, "none"),
    ):
        said = breaker.judged(BreakerSettings(slow_call=t), 22)[f"a slow call of {t} rounds counts"]
        assert said.startswith(starts), (t, said)
    assert breaker.judged(BreakerSettings(ratio=0.4, window=9), 22)["opens when"] == (
        "4 of its last 9 event calls failed (ratio 0.4 of 9)"
    )
