"""Notebook 01's exercises: Little's Law by hand, sizing for a blocking target, and where a pool runs full.

Each right answer is computed by :mod:`bulkhead_lab.sizing` (and the seeded model), so a
checker and its worked answer always agree with the notebook's numbers.
"""

from __future__ import annotations

import math

import pandas as pd

from bulkhead_lab import sizing
from bulkhead_lab.course.littles_law_sizing.views import littles_law_view
from bulkhead_lab.course.ui.exercise import Exercise, Feedback, read_number, read_whole

# Exercise 1: a Payment flow busier than the lesson's.
RATE_1, HOLD_1 = 50.0, 0.2  # calls/s, s

# Exercise 2: lesson 000's event flow, and the share of arrivals the pool may refuse.
RATE_2, HOLD_2, TARGET_2 = 97.22, 0.06, 0.01

# Exercise 3: the lesson's event pool of 8 slots; how fast may events arrive before it is full on average?
SLOTS_3, HOLD_3 = 8, 0.06


def _in_flight_1() -> float:
    return sizing.in_flight(RATE_1, HOLD_1)


def _judge_1(answer: object) -> Feedback:
    value = read_number(answer, "the number of calls in flight")
    right = _in_flight_1()
    if math.isclose(value, right, abs_tol=0.05):
        return Feedback(True, f"Right: {RATE_1:g} calls/s x {HOLD_1:g} s = {right:g} calls in flight.")
    if math.isclose(value, RATE_1 / HOLD_1, rel_tol=0.01):
        return Feedback(False, "Not yet: that divides the rate by the hold; Little's Law multiplies them.")
    side = "too many" if value > right else "too few"
    return Feedback(False, f"Not yet: {value:g} is {side}.")


def _answer_1() -> list[object]:
    right = _in_flight_1()
    return [
        f"In flight = arrival rate x hold = {RATE_1:g} calls/s x {HOLD_1:g} s = {right:g} calls. "
        f"With the lesson's headroom of 2.5x to 3x, the limit would be "
        f"{sizing.suggested_limit(RATE_1, HOLD_1, 2.5)} or {sizing.suggested_limit(RATE_1, HOLD_1, 3.0)}."
    ]


exercise_1 = Exercise(
    1,
    "Little's Law by hand",
    judge=_judge_1,
    hint="in flight = arrival rate x hold (calls/s x s); set the panel's sliders to 50 and 0.2 and read "
    "'in flight (Little's Law)'.",
    answer=_answer_1,
    placeholder="calls in flight",
)


def smallest_pool_2() -> int:
    """Exercise 2's answer: the fewest slots whose Erlang-B blocking is at most the target."""
    return sizing.smallest_pool(sizing.in_flight(RATE_2, HOLD_2), TARGET_2)


def _judge_2(answer: object) -> Feedback:
    n = read_whole(answer, 1, 64, "a pool size in slots")
    offered = sizing.in_flight(RATE_2, HOLD_2)
    blocking = sizing.erlang_b(n, offered)
    right = smallest_pool_2()
    if n == right:
        return Feedback(True, f"Right: {n} slots refuse {blocking:.2%} (Erlang-B), the first at or under 1%.")
    if n < right:
        return Feedback(False, f"Not yet: {n} slots refuse {blocking:.2%} (Erlang-B), more than 1%.")
    return Feedback(
        False, f"Not yet: {n} slots refuse only {blocking:.2%}, but a smaller pool stays at or under 1% too."
    )


def _answer_2() -> list[object]:
    right = smallest_pool_2()
    view = littles_law_view(RATE_2, HOLD_2, right)
    sizes = range(max(1, right - 3), right + 3)
    table = view.curve.loc[list(sizes), ["Erlang-B", "seeded model"]].round(4)
    return [
        f"The event flow keeps {view.in_flight:.2f} slots busy on average. Erlang-B falls to 1% or below "
        f"first at {right} slots ({view.erlang_b:.2%}; the seeded model measures {view.simulated:.2%}), "
        f"a headroom of {view.pool_headroom:.2f}x. The lesson's 8 slots refuse about a tenth.",
        table,
    ]


exercise_2 = Exercise(
    2,
    "Size the event pool for 1% blocking",
    judge=_judge_2,
    hint="set the panel to 97.22 calls/s and 0.06 s, then move 'pool size' up until 'Erlang-B blocking' "
    "is at most 0.01.",
    answer=_answer_2,
    placeholder="slots",
)


def full_rate_3() -> float:
    """Exercise 3's answer: the arrival rate (calls/s) at which the pool's utilization reaches 1."""
    return SLOTS_3 / HOLD_3


def _judge_3(answer: object) -> Feedback:
    value = read_number(answer, "an arrival rate in calls/s")
    right = full_rate_3()
    if math.isclose(value, right, abs_tol=1.0):
        return Feedback(
            True, f"Right: {SLOTS_3} slots / {HOLD_3:g} s = {right:.1f} calls/s fill the pool on average."
        )
    side = "above" if value > right else "below"
    u = sizing.utilization(value, HOLD_3, SLOTS_3) if value >= 0 else 0.0
    return Feedback(False, f"Not yet: at {value:g} calls/s the utilization is {u:.2f}, {side} 1.")


def _answer_3() -> list[object]:
    right = full_rate_3()
    rows = [
        {
            "arrival rate (calls/s)": rate,
            "utilization": round(sizing.utilization(rate, HOLD_3, SLOTS_3), 3),
            "Erlang-B blocking": round(sizing.erlang_b(SLOTS_3, sizing.in_flight(rate, HOLD_3)), 4),
        }
        for rate in (97.22, 116.67, round(right, 2), 150.0)
    ]
    return [
        f"Utilization = rate x hold / slots reaches 1 at {SLOTS_3} / {HOLD_3:g} s = {right:.1f} calls/s. "
        "At that rate the pool is full on average and refuses about a quarter of the calls (Erlang-B): "
        "a bulkhead shrunk to its flow's usual load fails without any failure.",
        pd.DataFrame(rows).set_index("arrival rate (calls/s)"),
    ]


exercise_3 = Exercise(
    3,
    "When does the event pool run full?",
    judge=_judge_3,
    hint="utilization = arrival rate x hold / slots; solve it for the rate at utilization 1, or move the "
    "arrival-rate slider until 'utilization' reads 1.",
    answer=_answer_3,
    placeholder="calls/s",
)
