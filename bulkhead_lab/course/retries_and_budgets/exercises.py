"""Notebook 06's exercises: cap the event storm, bulkhead the budget too, the backoff that makes
the fewest calls, and a retry budget of the learner's own (:data:`write_budget`, judged by its contract
call by call against section 2's budget: :mod:`bulkhead_lab.course.judges.retry_budget`). Every other
right answer is a model query on the notebook's own seeded runs, so checker, worked answer and notebook
agree.
"""

from __future__ import annotations

import inspect

import pandas as pd

from bulkhead_lab.course.judges import retry_budget
from bulkhead_lab.course.retries_and_budgets import views
from bulkhead_lab.course.ui.exercise import (
    Answer,
    Exercise,
    NotUnderstood,
    Wrong,
    judged,
    read_choice,
    read_code,
    read_number,
    run_trial,
    table,
)
from bulkhead_lab.course.ui.trial import Fault, build
from bulkhead_lab.live.orders import learners
from bulkhead_lab.live.orders.reading.retries import budget_line
from bulkhead_lab.live.sync import run_sync
from bulkhead_lab.retries.budgets import SRE_RETRY_RATIO, RatioBudget, RetryBudget
from bulkhead_lab.retries.experiments import every_call_refused_in_turn, fewest_calls
from bulkhead_lab.retries.seeded import (
    LOAD_CAP,
    SLOWDOWN,
    event_load,
    largest_ratio_under,
    own_budget_level,
    ratio_run,
    smallest_shared_ratio,
    tracking_gave_up,
)
from bulkhead_lab.retries.storm import retry_run

CLIENTS = 10  # exercise 3: Brooker's smallest client count (section 3 prints the largest, 50)
SLIDER = {  # exercise 2: the budget slider's ratio budgets, by whole percent
    round(b.ratio * 100): name for name, b in views.BUDGETS.items() if isinstance(b, RatioBudget)
}


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
        raise NotUnderstood(f"{value:g} is not a whole percent from 0 to 100, like 10 or 10%.")
    return int(value)


def slider_gave_up(percent: int) -> int:
    """Tracking's given-up requests through the slowdown with the slider's ``percent`` budget, shared."""
    setup = views.setup_of(budget=SLIDER[percent], scope=views.SCOPES[1])
    return retry_run(SLOWDOWN, setup).tracking.gave_up


def read_slider(answer: object) -> int:
    """One of the budget slider's ratios, in whole percent."""
    percent = read_ratio(answer)
    if percent not in SLIDER:
        on = ", ".join(f"{p}%" for p in SLIDER)
        raise NotUnderstood(f"{percent}% is not on the budget slider; choose one of {on}.")
    return percent


def smallest_slider_ratio() -> int:
    """The smallest of the slider's shared budgets at which tracking gives up no more than with its own."""
    return next(p for p in sorted(SLIDER) if slider_gave_up(p) <= own_budget_level())


def worst_case_with(candidate: object) -> float:
    """Calls per request when every call is refused, through notebook 06's retry loop (3 attempts),
    with the budget ``candidate(0.10)``: the cell's :class:`RetryBudget` gives 1.112."""

    async def check() -> float:
        return (await every_call_refused_in_turn(build(candidate, SRE_RETRY_RATIO))).load

    return float(run_trial(check))


def contention_at(clients: int = CLIENTS) -> pd.DataFrame:
    """Section 3's contention table at ``clients`` contending clients: calls and completion per strategy."""
    return views.contention().frame.xs(clients, level="clients")


def _worked_1(a: Answer) -> str:
    return (
        f"**{a.right}%**: the event flow makes {a.load:.3f} calls per request through the slowdown "
        f"({event_load(a.right + 1):.3f} at {a.right + 1}%). As the SRE book reasons, retries under a share "
        "r of all calls keep calls per request under 1 / (1 - r), 1.2 at r = 16.7%; the event compartment "
        "refuses so much that the budget, not the attempts, sets its load: worst case and measured load "
        "nearly agree."
    )


def _worked_2(a: Answer) -> str:
    shared_load = ratio_run(a.right, shared=True).event.load
    per_flow = ratio_run(None).event.load
    return (
        f"**{a.right}%**. With a budget of its own (10%), tracking gives up {a.target} through the slowdown. "
        "With one budget for the whole gateway, the event compartment's refusals spend it and deny "
        f"tracking's few retries until it reaches {smallest_shared_ratio()}% (whole percent; {a.right}% on "
        "the slider). By then it covers every retry of the event storm (the busy tracking flow's calls "
        f"count towards it too), so it no longer caps the storm: {shared_load:.2f} calls per event request, "
        f"against {per_flow:.2f} with the SRE 10% kept per flow. A shared budget cannot both protect the "
        "neighbour and cap the storm: keep a budget per compartment, the bulkhead's own rule."
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
    right=lambda: largest_ratio_under(LOAD_CAP),
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
    read=read_slider,
    right=smallest_slider_ratio,
    figures=lambda r: {"lost": slider_gave_up(r), "target": own_budget_level()},
    right_says="from {value}% shared, tracking gives up {lost}, as with a budget of its own.",
    wrong=(
        Wrong(
            lambda a: a.lost > a.target,
            "at {value}% shared, tracking gives up {lost} requests, not {target}.",
        ),
    ),
    otherwise="{value}% shared protects tracking ({lost}), but a smaller one on the slider does too.",
    hint="in section 4's panel set 'budget kept for' to 'both flows' and move the retry budget; the table "
    "under the figure gives 'tracking gave up' on the slowdown day.",
    worked=(
        _worked_2,
        lambda _: table(
            "shared retry budget",
            ["tracking gave up", "event calls/request"],
            {
                f"{r}%": [tracking_gave_up(r), round(ratio_run(r, True).event.load, 3)]
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
    right=lambda: fewest_calls(CLIENTS),
    figures=lambda s: {"calls": contention_at().loc[s, "calls"], "clients": CLIENTS},
    right_says="{value}, {calls:g} calls for {clients} clients.",
    otherwise="{value} makes {calls:g} calls for {clients} clients; one makes fewer.",
    hint="section 3's table is at 50 clients; run contention.at(10) for ten (the figure's lines overlap).",
    worked=(_worked_3, lambda _: views.contention().at(CLIENTS)),
    placeholder="a strategy, like equal jitter",
)


def _worked_budget(_: Answer) -> str:
    code = inspect.getsource(RetryBudget)
    return (
        f"Section 2's budget: through the worst case it lets {worst_case_with(RetryBudget):.3f} calls "
        "through per request, as a retry goes only while retries are under 10% of every call sent, "
        f"requests and retries, so calls stay under 1 / (1 - 0.1) per request.\n\n```python\n{code}```"
    )


#: Exercise 4's reader: the learner's class (or its name) judged by its contract, call by call against
#: section 2's RetryBudget over generated scenarios (:mod:`bulkhead_lab.course.judges.retry_budget`).
judge_budget = judged(retry_budget.check)


exercise_4 = write_budget = Exercise(  # exercise_4: its answer box, numbered as the others
    4,
    "Write a retry budget",
    read=judge_budget,
    hint="count every call sent, on_request() and on_retry() alike, and the retries among them, on self; "
    "can_retry() only compares: True while retries < ratio x calls, and it changes no count.",
    worked=(_worked_budget,),
    placeholder="your class's name",
    typed="MyBudget",
)


def live_budget(answer: object) -> str:
    """Section 7's SRE client live with the learner's budget (class or name) for the 10%, in one line: only
    a budget the checker calls Right goes live (one that hangs, raises or breaks the contract is its line)."""
    try:
        verdict = judge_budget(answer)
        if not verdict.ok:
            return f"Not run live: the checker says Not yet: {verdict.says}"
        candidate = read_code(answer, "class")
        return budget_line(run_sync(learners.budget_run(build(candidate, SRE_RETRY_RATIO))))
    except (NotUnderstood, Fault, learners.LearnersFault) as why:
        return f"Not run live: {why}"
