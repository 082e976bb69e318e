"""One flow alone in lesson 000's pool: exactly the event pool of the full model, and a curve whose
model column tracks Erlang-B."""

from __future__ import annotations

import pytest

from bulkhead_lab import sizing
from bulkhead_lab.pool import one_flow
from bulkhead_lab.pool.rounds import run


def test_one_flow_in_a_pool_of_eight_is_the_event_flow_alone() -> None:
    p = one_flow.one_flow_params(97.22, 6, 8)
    assert (p.total - p.split, p.tracking_rate) == (8, 0.0)
    assert run(p).tracking_dropped == 0


@pytest.mark.parametrize("slots", (1, 5, 8))
def test_the_sweeps_compartment_is_the_full_runs_event_counters(slots: int) -> None:
    c = run(one_flow.one_flow_params(97.22, 6, slots))
    assert one_flow.simulated_blocking(97.22, 6, slots) == c.event_dropped / (
        c.event_dropped + c.event_responses
    )


def test_the_curve_is_erlang_b_in_rounds_beside_the_model() -> None:
    rows = one_flow.blocking_curve(20.0, 10, range(1, 9))
    assert [r.slots for r in rows] == list(range(1, 9))
    assert rows[4].erlang_b == pytest.approx(sizing.erlang_b(5, 2.0))
    assert rows[4].erlang_b_half == pytest.approx(sizing.erlang_b(5, 1.9))
    assert rows[4].simulated == one_flow.simulated_blocking(20.0, 10, 5)


def test_the_curve_covers_every_suggested_limit_in_steps() -> None:
    assert one_flow.pool_sizes_shown(2.0, 5) == 16
    assert one_flow.pool_sizes_shown(5.83, 8) == 32
    assert one_flow.pool_sizes_shown(100.0, 8) == one_flow.MAX_POOL
    assert one_flow.hold_in_rounds(0.001) == 1 and one_flow.hold_in_rounds(0.06) == 6
