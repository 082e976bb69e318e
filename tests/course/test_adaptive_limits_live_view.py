"""Notebook 05's section 6, read without a socket: a live run's phases, its checked facts and its figure,
from a run written down here (the live run itself: notebook 05's cell c39 under nbval, and its panel moved
in the browser tests)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from drawn import texts

from bulkhead_lab.course.adaptive_limits import figures, views
from bulkhead_lab.live.orders.reading.adaptive import PHASES, AdaptiveFacts, LiveView, span, value_at

GRADIENT2 = AdaptiveFacts("Gradient2", 20, 8, 11, 11, 1, 20, 1, (0, 16, 0), True)


def _view(**changes: object) -> LiveView:
    """Gradient2 through 3 s of slow Payment: 20 → 8 → 11, Payment 20 at once early and 12 late."""
    view = LiveView(
        algorithm="Gradient2",
        slow_for=3,
        window=(1.0, 4.0),
        last_slow=5.0,
        duration=6.0,
        limit=((0.0, 20), (2.5, 15), (3.3, 8), (4.1, 14), (4.8, 11)),
        payment=((0.0, 0), (0.02, 1), (1.1, 5), (1.9, 20), (2.9, 12), (3.5, 9), (4.5, 1)),
        sent=tuple(i / 20 for i in range(120)),
        refusals=tuple(2.5 + i * 0.1 for i in range(16)),
        orders=120,
        served=104,
        refused=16,
        facts=GRADIENT2,
        breaches=(),
    )
    return replace(view, **changes)  # type: ignore[arg-type]


def test_a_step_series_is_read_at_a_time_and_over_a_span() -> None:
    steps = ((0.0, 20), (2.5, 15), (3.3, 8))
    assert [value_at(steps, t) for t in (-1.0, 0.0, 2.49, 2.5, 9.0)] == [20, 20, 20, 15, 8]
    assert span(steps, 1.0, 3.0) == [20, 15] and span(steps, 3.3, 4.0) == [8]


def test_the_phase_table_splits_the_run_at_the_slowdown_and_at_its_last_slow_call() -> None:
    frame = views.live_table(_view())
    assert tuple(frame.index) == PHASES
    assert list(frame["seconds"]) == ["0.0 - 1.0", "1.0 - 5.0", "5.0 - 6.0"]
    assert list(frame["orders sent"]) == [20, 80, 20]
    assert list(frame["orders refused"]) == [0, 16, 0]
    assert list(frame["limit at its start"]) == [20, 20, 11]
    assert list(frame["lowest limit"]) == [20, 8, 11]
    assert list(frame["limit at its end"]) == [20, 11, 11]
    assert list(frame["Payment's peak"]) == [1, 20, 1]


def test_a_limit_that_falls_refuses_only_while_slow_and_rises_again_checks_every_fact() -> None:
    view = _view()
    assert (view.early_peak, view.late_peak) == (20, 12)
    lines = view.checked().splitlines()
    assert lines[0] == (
        "Gradient2 around Payment: 20 orders a second; "
        "Payment healthy 1 s, slow (1 s a call) 3 s, healthy 2 s"
    )
    assert len(lines) == 9 and all(line.endswith(": True") for line in lines[1:]), lines


def test_a_limit_that_never_falls_says_so_in_its_facts() -> None:
    aimd = AdaptiveFacts("AIMD", 20, 20, 43, 43, 1, 21, 1, (0, 0, 0), True)
    lines = _view(algorithm="AIMD", facts=aimd, refusals=(), refused=0, served=120).checked()
    assert "the limit fell during the slowdown: False" in lines
    assert "the limit refused orders while Payment was slow: False" in lines
    assert "every refusal came while Payment was slow or its last slow calls held their places: True" in lines
    breached = _view(breaches=((2.0, 21, 20),)).checked()
    assert "Payment never had more calls than the bulkhead was running: False" in breached


def test_the_live_figure_draws_the_limit_payments_calls_the_slowdown_and_the_refusals() -> None:
    fig = figures.live_figure(_view())
    calls, refusals = fig.axes
    lines = {line.get_label(): line for line in calls.get_lines()}
    assert list(lines["Gradient2's limit"].get_ydata()) == [20, 15, 8, 14, 11, 11]
    assert max(lines["Payment's calls in flight"].get_ydata()) == 20
    assert sum(bar.get_height() for bar in refusals.containers[0]) == 16
    assert calls.get_ylabel() == "calls at once" and refusals.get_xlabel() == "seconds since the first order"
    assert any("limit 20 → 8 → 11" in t for t in texts(fig))
    assert not any("off the scale" in t for t in texts(fig))


def test_a_limit_far_above_payments_calls_is_noted_off_the_scale() -> None:
    envoy = AdaptiveFacts("Envoy", 3, 3, 211, 211, 1, 3, 1, (0, 47, 0), True)
    view = _view(algorithm="Envoy", facts=envoy, limit=((0.0, 3), (5.0, 5), (5.1, 211)))
    fig = figures.live_figure(view)
    assert "limit up to 211, off the scale" in texts(fig)
    assert fig.axes[0].get_ylim()[1] < 211


@pytest.mark.parametrize(
    ("kwargs", "line"),
    [
        (
            {"algorithm": "Gradient3"},
            "algorithm must be one of AIMD, Vegas, Gradient2, Envoy (got 'Gradient3')",
        ),
        ({"slow_for": 7}, "slow_for must be one of 1, 2, 3, 4, 5 seconds (got 7)"),
    ],
)
def test_a_bad_live_run_is_one_line_before_anything_starts(kwargs: dict[str, object], line: str) -> None:
    with pytest.raises(ValueError) as info:
        views.live_run(**kwargs)  # type: ignore[arg-type]
    assert str(info.value) == line


def test_the_progress_bar_counts_the_orders_one_run_sends() -> None:
    assert [views.planned(s) for s in views.SLOW_FORS] == [80, 100, 120, 140, 160]
