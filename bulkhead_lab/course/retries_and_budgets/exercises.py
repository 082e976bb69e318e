"""Notebook 06's exercises: cap the event storm, bulkhead the budget too, and the backoff that
makes the fewest calls.

Every right answer is computed here from memoised seeded runs (or
from :func:`bulkhead_lab.retries.experiments.contention_table`), so a checker and its worked answer always
agree with the notebook's numbers. The callers are the notebook's: 3 attempts with full
jitter (the AWS SDK's 100 ms base and 20 s cap) on lesson 000's slowdown day under 24/8; a
*ratio budget* lets a retry go while retries are under that share of the calls of the last
10 s, kept for each flow or shared by both (one budget for the whole gateway).
"""

from __future__ import annotations

import pandas as pd

from bulkhead_lab.course.retries_and_budgets import views
from bulkhead_lab.course.ui.exercise import (
    Answer,
    Exercise,
    NotUnderstood,
    Wrong,
    read_choice,
    read_number,
    table,
)
from bulkhead_lab.pool.params import LESSON_SPLIT, Params
from bulkhead_lab.retries.budgets import SRE_BUDGET, RatioBudget
from bulkhead_lab.retries.storm import RetryRun, RetrySetup, retry_run
from bulkhead_lab.validation import check_int, check_real

LOAD_CAP = 1.2  # exercise 1: the event flow's calls per request through the slowdown
CLIENTS = 10  # exercise 3: Brooker's smallest client count (section 3 prints the largest, 50)
SLOWDOWN = Params(split=LESSON_SPLIT, mode="slowdown")


def _run(ratio: int | None, shared: bool = False) -> RetryRun:
    """24/8 through the slowdown with a ``ratio``% budget (None: the SRE book's 10%), per flow or shared."""
    if ratio is None:
        return retry_run(SLOWDOWN, RetrySetup(views.LESSON_POLICY, SRE_BUDGET))
    check_int("ratio", ratio, 0, 100)
    return retry_run(SLOWDOWN, RetrySetup(views.LESSON_POLICY, RatioBudget(ratio / 100), shared=shared))


STRATEGY_WORDS = (  # what a learner may type for exercise 3, checked in this order
    ("decorrelated", "decorrelated jitter"),
    ("equal", "equal jitter"),
    ("full", "full jitter"),
    ("no backoff", "no backoff"),
    ("at once", "no backoff"),
    ("immediate", "no backoff"),
    ("no jitter", "exponential, no jitter"),
    ("none", "exponential, no jitter"),
    ("exponential", "exponential, no jitter"),
)


def read_ratio(answer: object) -> int:
    """A budget ratio in whole percent from what a learner typed: ``16``, ``'16%'``, ``0.16``."""
    value = read_number(answer, "a budget ratio in percent, like 10 or 10%")
    if 0 < value < 1 and not (isinstance(answer, str) and "%" in answer):
        value *= 100  # 0.16 is a ratio: 16%
    value = round(value, 6)
    if value != int(value) or not 0 <= value <= 100:
        raise NotUnderstood(
            f"{value:g} is not a whole percent from 0 to 100; this asks for one, like 10 or 10%."
        )
    return int(value)


def event_load(ratio: int) -> float:
    """24/8's event flow through the slowdown: calls per request with a ``ratio``% budget of its own."""
    return _run(ratio, shared=False).event.load


def largest_ratio_under(cap: float = LOAD_CAP) -> int:
    """The largest whole-percent budget (kept per flow) holding the event flow at or under ``cap``."""
    check_real("cap", cap, 1.0, 10.0)
    best = 0
    for ratio in range(101):  # the load grows with the ratio: stop at the first one over the cap
        if event_load(ratio) > cap:
            return best
        best = ratio
    return best


def tracking_gave_up(ratio: int, shared: bool = True) -> int:
    """24/8's tracking requests given up through the slowdown with a ``ratio``% budget."""
    return _run(ratio, shared).tracking.gave_up


def own_budget_level() -> int:
    """Tracking's given-up requests under 24/8 through the slowdown with the SRE 10% kept per flow."""
    return _run(None).tracking.gave_up


def smallest_shared_ratio() -> int:
    """The smallest whole-percent shared budget at which tracking gives up no more than with its own."""
    target = own_budget_level()
    return next(r for r in range(101) if tracking_gave_up(r) <= target)


def contention_at(clients: int = CLIENTS) -> pd.DataFrame:
    """Section 3's contention table at ``clients`` contending clients: calls and completion per strategy."""
    return views.contention_view().frame.xs(clients, level="clients")


def fewest_calls(clients: int = CLIENTS) -> str:
    """The strategy whose ``clients`` contending clients make the fewest calls (mean of 10 seeds)."""
    return str(contention_at(clients)["calls"].idxmin())


def _worked_1(a: Answer) -> str:
    return (
        f"**{a.right}%**: the event flow makes {a.load:.3f} calls per request through the slowdown "
        f"({event_load(a.right + 1):.3f} at {a.right + 1}%). The SRE book's reasoning predicts it: when "
        "retries stay under a share r of all calls, the calls per request stay under 1 / (1 - r), which is "
        "1.2 at r = 16.7%. The event compartment refuses so much through the slowdown that the budget, not "
        "the attempts, sets its load: the worst case and the measured load nearly agree."
    )


def _worked_2(a: Answer) -> str:
    shared_load = _run(a.right, shared=True).event.load
    per_flow = _run(None).event.load
    return (
        f"**{a.right}%**. With a budget of its own, tracking gives up {a.target} through the slowdown (at "
        "10%). With one budget for the whole gateway the event compartment's refusals spend it, and "
        f"tracking's few retries are denied until the shared budget reaches {a.right}%. By then it covers "
        "every retry the event storm makes (the busy tracking flow's calls count towards the shared budget "
        f"too), so it no longer caps the storm: {shared_load:.2f} calls per event request, against "
        f"{per_flow:.2f} with the SRE 10% kept per flow. A shared budget cannot both protect the neighbour "
        "and cap the storm: keep a budget per compartment, the bulkhead's own rule."
    )


def _worked_3(a: Answer) -> str:
    at = contention_at()
    soonest = str(at.loc[at.index != "no backoff", "completion"].idxmin())
    return (
        f"**{a.right}**: {a.calls:g} calls for {CLIENTS} clients. Without jitter the losers stay in "
        f"lockstep: {CLIENTS} x {CLIENTS + 1} / 2 = {CLIENTS * (CLIENTS + 1) // 2} calls whatever the "
        f"backoff. Among the backoffs {soonest} finishes soonest (step {at.loc[soonest, 'completion']:g}). "
        f"With 50 clients the fewest calls are {fewest_calls(50)}'s: which jitter does least work depends on "
        "how many clients contend."
    )


exercise_1 = Exercise(
    1,
    "Cap the event storm",
    read=read_ratio,
    right=largest_ratio_under,
    figures=lambda r: {"load": event_load(r)},
    right_says="{value}% holds the event flow at {load:.3f} calls per request.",
    wrong=(
        Wrong(
            lambda a: a.load > LOAD_CAP,
            "{value}% lets the event flow reach {load:.3f} calls per request, over 1.2.",
        ),
    ),
    otherwise="{value}% holds it at {load:.3f}, under 1.2; a larger budget still does.",
    hint="with retries under a share r of all calls, calls per request stay under 1 / (1 - r); "
    "check a few ratios with exercises.event_load(ratio).",
    worked=(
        _worked_1,
        lambda _: table(
            "retry budget",
            ["event calls/request (24/8, slowdown)", "worst case 1/(1 - ratio)"],
            {f"{r}%": [round(event_load(r), 3), round(1 / (1 - r / 100), 3)] for r in range(10, 21)},
        ),
    ),
    placeholder="budget ratio, %",
)

exercise_2 = Exercise(
    2,
    "Bulkhead the budget too",
    read=read_ratio,
    right=smallest_shared_ratio,
    figures=lambda r: {"lost": tracking_gave_up(r), "target": own_budget_level()},
    right_says="from {value}% shared, tracking gives up {lost}, as with a budget of its own.",
    wrong=(
        Wrong(
            lambda a: a.lost > a.target,
            "at {value}% shared, tracking gives up {lost} requests, not {target}.",
        ),
    ),
    otherwise="{value}% shared protects tracking ({lost}), but a smaller share does too.",
    hint="in section 5's panel set the budget kept for 'both flows' and move the budget; or compare "
    "exercises.tracking_gave_up(ratio) with exercises.own_budget_level().",
    worked=(
        _worked_2,
        lambda _: table(
            "shared retry budget",
            ["tracking gave up", "event calls/request"],
            {
                f"{r}%": [tracking_gave_up(r), round(_run(r, True).event.load, 3)]
                for r in (5, 10, 15, 20, 21, 22, 23, 24, 25, 30)
            },
        ),
    ),
    placeholder="shared ratio, %",
)

exercise_3 = Exercise(
    3,
    "The backoff with the fewest calls",
    read=lambda a: read_choice(
        a, STRATEGY_WORDS, "a strategy: full, equal or decorrelated jitter, no jitter, or no backoff"
    ),
    right=fewest_calls,
    figures=lambda s: {"calls": contention_at().loc[s, "calls"], "clients": CLIENTS},
    right_says="{value}, {calls:g} calls for {clients} clients.",
    otherwise="{value} makes {calls:g} calls for {clients} clients; one makes fewer.",
    hint="read section 3's table and figure, the calls made at 50 clients.",
    worked=(_worked_3, lambda _: views.contention_view().at(CLIENTS)),
    placeholder="a strategy, like equal jitter",
)
