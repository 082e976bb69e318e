"""Notebook 01's exercises: Little's Law by hand, sizing for a blocking target, and where a pool runs full.

Each right answer is computed by :mod:`bulkhead_lab.sizing` (and the seeded model), so a
checker and its worked answer always agree with the notebook's numbers.
"""

from __future__ import annotations

import pandas as pd

from bulkhead_lab import sizing
from bulkhead_lab.course.littles_law_sizing.views import littles_law_view
from bulkhead_lab.course.ui.exercise import Exercise, Wrong, read_number, read_whole

RATE_1, HOLD_1 = 50.0, 0.2  # exercise 1: a Payment flow busier than the lesson's (calls/s, s)
RATE_2, HOLD_2, TARGET_2 = 97.22, 0.06, 0.01  # exercise 2: lesson 000's event flow, 1% refused at most
SLOTS_3, HOLD_3 = 8, 0.06  # exercise 3: the lesson's event pool: how fast may events come before it is full?


def smallest_pool_2() -> int:
    """Exercise 2's answer: the fewest slots whose Erlang-B blocking is at most the target."""
    return sizing.smallest_pool(sizing.in_flight(RATE_2, HOLD_2), TARGET_2)


def full_rate_3() -> float:
    """Exercise 3's answer: the arrival rate (calls/s) at which the pool's utilization reaches 1."""
    return SLOTS_3 / HOLD_3


def _pool_3(rate: float) -> dict[str, float]:
    load = sizing.in_flight(max(rate, 0.0), HOLD_3)
    return {"utilization": load / SLOTS_3, "Erlang-B blocking": sizing.erlang_b(SLOTS_3, load)}


exercise_1 = Exercise(
    1,
    "Little's Law by hand",
    read=lambda a: read_number(a, "the number of calls in flight"),
    right=lambda: sizing.in_flight(RATE_1, HOLD_1),
    tolerance=0.05,
    figures=lambda _: dict(
        rate=RATE_1, hold=HOLD_1, at=[sizing.suggested_limit(RATE_1, HOLD_1, h) for h in (2.5, 3)]
    ),
    right_says="{rate:g} calls/s x {hold:g} s = {right:g} calls in flight.",
    wrong=(
        Wrong(
            lambda a: a.is_(RATE_1 / HOLD_1, RATE_1 / HOLD_1 / 100),
            "that divides the rate by the hold; Little's Law multiplies them.",
        ),
    ),
    hint="in flight = arrival rate x hold (calls/s x s); set the panel's sliders to 50 and 0.2 and read "
    "'in flight (Little's Law)'.",
    worked=(
        "In flight = arrival rate x hold = {rate:g} calls/s x {hold:g} s = {right:g} calls. With the "
        "lesson's headroom of 2.5x to 3x, the limit would be {at[0]} or {at[1]}.",
    ),
    placeholder="calls in flight",
)

exercise_2 = Exercise(
    2,
    "Size the event pool for 1% blocking",
    read=lambda a: read_whole(a, 1, 64, "a pool size in slots"),
    right=smallest_pool_2,
    figures=lambda n: littles_law_view(RATE_2, HOLD_2, n),
    right_says="{value} slots refuse {erlang_b:.2%} (Erlang-B), the first at or under 1%.",
    otherwise=(
        "{value} slots refuse only {erlang_b:.2%}, but a smaller pool stays at or under 1% too.",
        "{value} slots refuse {erlang_b:.2%} (Erlang-B), more than 1%.",
    ),
    hint="set the panel to 97.22 calls/s and 0.06 s, then move 'pool size' up until 'Erlang-B blocking' "
    "is at most 0.01.",
    worked=(
        "The event flow keeps {in_flight:.2f} slots busy on average. Erlang-B falls to 1% or below first at "
        "{right} slots ({erlang_b:.2%}; the seeded model measures {simulated:.2%}), a headroom of "
        "{pool_headroom:.2f}x. The lesson's 8 slots refuse about a tenth.",
        lambda a: a.curve.loc[a.right - 3 : a.right + 2, ["Erlang-B", "seeded model"]].round(4),
    ),
    placeholder="slots",
)

exercise_3 = Exercise(
    3,
    "When does the event pool run full?",
    read=lambda a: read_number(a, "an arrival rate in calls/s"),
    right=full_rate_3,
    tolerance=1.0,
    figures=lambda rate: dict(slots=SLOTS_3, hold=HOLD_3, u=_pool_3(rate)["utilization"]),
    right_says="{slots} slots / {hold:g} s = {right:.1f} calls/s fill the pool on average.",
    otherwise=(
        "at {value:g} calls/s the utilization is {u:.2f}, above 1.",
        "at {value:g} calls/s the utilization is {u:.2f}, below 1.",
    ),
    hint="utilization = arrival rate x hold / slots; solve it for the rate at utilization 1, or move the "
    "arrival-rate slider until 'utilization' reads 1.",
    worked=(
        "Utilization = rate x hold / slots reaches 1 at {slots} / {hold:g} s = {right:.1f} calls/s. At that "
        "rate the pool is full on average and refuses about a quarter of the calls (Erlang-B): a bulkhead "
        "shrunk to its flow's usual load fails without any failure.",
        lambda a: (
            pd.DataFrame({r: _pool_3(r) for r in (97.22, 116.67, round(a.right, 2), 150.0)})
            .T.round({"utilization": 3, "Erlang-B blocking": 4})
            .rename_axis("arrival rate (calls/s)")
        ),
    ),
    placeholder="calls/s",
)
