"""Notebook 01's exercises: predict a pool, then let the checker run your choice. Each right answer is
computed by :mod:`bulkhead_lab.sizing`; each checker computes (for exercise 1 also runs in the seeded
model) the pool the learner chose, so what it says is that pool's."""

from __future__ import annotations

from bulkhead_lab import sizing
from bulkhead_lab.course.judges import erlang_b as erlang_b_judge
from bulkhead_lab.course.littles_law_sizing.views import TARGET, littles_law_view
from bulkhead_lab.course.ui.exercise import Exercise, Wrong, judged, read_whole, source, table
from bulkhead_lab.pool.one_flow import simulated_blocking

RATE_1, HOLD_1, SLOTS_1 = 20.0, 0.1, 5  # exercise 1: lesson 004's Payment in its pool of 5 ...
FACTOR_1 = 2  # ... gets twice the traffic
RATE_2, HOLD_2 = 97.22, 0.06  # exercise 2: lesson 000's event flow, 1% refused at most
SLOTS_3, TARGET_3 = 5, 0.001  # exercise 3: lesson 004's bulkhead of 5, refusing at most 0.1%


LOAD_1 = sizing.in_flight(RATE_1, HOLD_1)  # 2 calls in flight, in exercises 1 and 3
TWICE_1 = sizing.in_flight(RATE_1 * FACTOR_1, HOLD_1)
NOW_1 = sizing.erlang_b(SLOTS_1, LOAD_1)  # what the pool of 5 refuses now


def _blocking_1(slots: int) -> dict[str, float]:
    sim = simulated_blocking(RATE_1 * FACTOR_1, round(HOLD_1 * 100), slots)
    return {"b": sizing.erlang_b(slots, TWICE_1), "sim": sim}


def right_1() -> int:
    """The fewest slots that refuse, at twice the load, no more than the pool of 5 refuses now."""
    return sizing.smallest_pool(TWICE_1, NOW_1)


def smallest_pool_2() -> int:
    return sizing.smallest_pool(sizing.in_flight(RATE_2, HOLD_2), TARGET)


def right_3() -> int:
    """The fewest waiting places beside 5 slots that refuse at most 0.1% of Payment's calls."""
    return next(q for q in range(100) if sizing.queue_blocking(SLOTS_3, q, LOAD_1) <= TARGET_3)


def _figures_3(places: int) -> dict[str, float]:
    b, lesson = (sizing.queue_blocking(SLOTS_3, q, LOAD_1) for q in (places, 5))
    return {"b": b, "k": SLOTS_3 + places, "lesson": lesson, "none": sizing.erlang_b(SLOTS_3, LOAD_1)}


exercise_1 = Exercise(
    1,
    "Twice the traffic, twice the pool?",
    read=lambda a: read_whole(a, 1, 64, "a pool size in slots"),
    right=right_1,
    figures=lambda slots: _blocking_1(slots) | {"now": NOW_1, "h": slots / TWICE_1},
    right_says="{value} slots refuse {b:.1%} at 40 calls/s ({sim:.1%} in the seeded model), no more than 5 "
    "refuse at 20 calls/s ({now:.1%}): twice the load takes fewer than twice the slots.",
    wrong=(
        Wrong(
            lambda a: a.value > a.right,
            "{value} slots refuse only {b:.2%} at 40 calls/s ({sim:.2%} in the model): fewer would do.",
        ),
    ),
    otherwise="{value} slots refuse {b:.1%} at 40 calls/s ({sim:.1%} in the model), more than {now:.1%}.",
    hint="set the panel's arrival rate to 40 and its hold to 0.1, then move the pool size until Erlang-B "
    f"blocking is at most what 5 slots refuse at 20 calls/s ({sizing.erlang_b(5, 2.0):.4f}).",
    worked=(
        "{right} slots, not 10. Twice the calls in flight (4 instead of 2) need {right} slots for the same "
        "{now:.1%} blocking: a headroom of {h:g}x instead of 2.5x. A bigger load needs less headroom.",
        lambda a: table(
            "slots",
            ["Erlang-B at 40 calls/s", "seeded model at 40 calls/s"],
            {n: [round(v, 4) for v in _blocking_1(n).values()] for n in range(a.right - 2, 11)},
        ),
    ),
    placeholder="slots",
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
        "Erlang-B falls to 1% or below first at {right} slots ({erlang_b:.2%}; the seeded model measures "
        "{simulated:.2%}), a headroom of {pool_headroom:.2f}x. The lesson's 8 slots refuse about a tenth.",
        lambda a: a.rows_that_matter()[["Erlang-B", "seeded model"]],
    ),
    placeholder="slots",
)

exercise_3 = Exercise(
    3,
    "How many waiting places?",
    read=lambda a: read_whole(a, 0, 50, "a number of waiting places"),
    right=right_3,
    figures=_figures_3,
    right_says="5 slots and {value} waiting places (M/M/5/{k}) refuse {b:.3%} of Payment's calls.",
    wrong=(
        Wrong(lambda a: a.value == 0, "with no waiting places the bulkhead refuses {b:.2%} (Erlang-B)."),
        Wrong(lambda a: a.value > a.right, "{value} places refuse {b:.4%}: fewer keep it under 0.1%."),
    ),
    otherwise="5 slots and {value} waiting places (M/M/5/{k}) refuse {b:.3%}, more than 0.1%.",
    hint="each waiting place catches a burst the 5 slots cannot: try sizing.queue_blocking(5, places, 2.0).",
    worked=(
        "{right} waiting places: M/M/5/{k} refuses {b:.3%}. Lesson 004's 5 places refuse {lesson:.3%}; "
        "Erlang-B's {none:.1%} is the same 5 slots with no queue at all.",
        lambda a: table(
            "waiting places",
            ["share refused"],
            {q: [f"{sizing.queue_blocking(SLOTS_3, q, LOAD_1):.3%}"] for q in range(7)},
        ),
    ),
    placeholder="waiting places",
)


exercise_4 = write_erlang_b = Exercise(
    4,
    "Write Erlang-B",
    read=judged(erlang_b_judge.check, "function"),
    hint="start from B = 1 (no slots refuse every call) and add one slot at a time: B = load·B / (n + "
    "load·B) for n = 1..slots (section 3's cell, its arguments the other way round). A formula with "
    "load**slots or slots! passes the largest float (1.8e308) long before a pool of a thousand slots.",
    worked=(
        "**Section 3's cell**, the package's `sizing.erlang_b(slots, offered)`; the exercise's "
        "`erlang_b(load, slots)` is `sizing.erlang_b(slots, load)`:",
        source(sizing.erlang_b),
    ),
    placeholder="your function's name",
    typed="my_erlang_b",
)
