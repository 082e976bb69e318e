"""What isolation costs: the equal-blocking sizes against Erlang-B's sum by hand (the seeded model beside
them, 26/12 against one pool of 33, is notebook 08's cell c08, which nbval compares)."""

from __future__ import annotations

import math

import pytest

from bulkhead_lab.compartments import isolation_cost


def erlang_b_by_its_sum(c: int, a: float) -> float:
    """B(c, a) = (a^c / c!) / sum_k a^k / k!, written out (not the package's recursion)."""
    terms = [a**k / math.factorial(k) for k in range(c + 1)]
    return terms[-1] / sum(terms)


def test_each_size_is_the_first_whose_blocking_by_the_written_out_sum_is_at_most_one_percent() -> None:
    tracking, event = isolation_cost.LESSON_LOADS
    for load, slots in ((tracking, 26), (event, 12), (tracking + event, 33)):
        assert erlang_b_by_its_sum(slots, load) <= 0.01 < erlang_b_by_its_sum(slots - 1, load)


def test_the_shared_pool_always_needs_fewer_slots_than_the_two_apart() -> None:
    for target in isolation_cost.TARGETS:
        cost = isolation_cost.equal_blocking(target)
        assert cost.together < cost.split_total, target
        assert cost.blocking_together <= target and max(cost.blocking_apart) <= target


@pytest.mark.parametrize("target", [0, 0.6, "1%", float("nan")])
def test_a_target_outside_0_to_half_is_refused_in_one_line(target: object) -> None:
    with pytest.raises(ValueError, match=r"^target must be a number > 0 and <= 0.5 \(got .*\)$"):
        isolation_cost.equal_blocking(target)  # type: ignore[arg-type]
