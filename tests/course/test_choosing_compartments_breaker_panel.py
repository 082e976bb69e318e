"""Notebook 08's breaker panel (issue 31): every one-step move of every slider changes what it shows, and
the table names which calls the slow-call threshold counts slow, and why a move between the holds counts
the same calls."""

from __future__ import annotations

import pytest

from bulkhead_lab.compartments import breaker
from bulkhead_lab.compartments.breaker import BreakerSettings
from bulkhead_lab.course.choosing_compartments import panels, views


def _shown(panel: object) -> str:
    """Everything the panel's output area shows but its figure's pixels: the tables and any line."""
    return repr(
        [{k: v for k, v in o.get("data", o).items() if k != "image/png"} for o in panel.output.outputs]
    )


@pytest.mark.parametrize("name", ["ratio", "window", "slow_call", "slow"])
@pytest.mark.parametrize("way", [-1, 1])
def test_a_one_step_move_of_each_breaker_slider_changes_what_the_panel_shows(name: str, way: int) -> None:
    panel = panels.breaker_panel()
    control = panel.controls[name]
    default, before = control.value, _shown(panel)
    moved = round(default + way * control.step, 2)
    assert control.min <= moved <= control.max
    panel.set(**{name: moved})
    assert _shown(panel) != before, f"{name} {default} -> {moved} changed nothing shown"
    panel.set(**{name: default})
    assert _shown(panel) == before  # and back: the same view again


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
