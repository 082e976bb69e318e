"""Notebook 06's exercises: cap the event storm, bulkhead the budget too, and the backoff that
makes the fewest calls.

Every right answer is computed here from seeded runs kept by :mod:`bulkhead_lab.cache` (or
from :func:`bulkhead_lab.retries.policy.contention_table`), so a checker and its worked answer always
agree with the notebook's numbers. The callers are the notebook's: 3 attempts with full
jitter (the AWS SDK's 100 ms base and 20 s cap) on lesson 000's slowdown day under 24/8; a
*ratio budget* lets a retry go while retries are under that share of the calls of the last
10 s, kept for each flow or shared by both (one budget for the whole gateway).
"""

from __future__ import annotations

import pandas as pd

from bulkhead_lab import cache
from bulkhead_lab.course.retries_and_budgets import views
from bulkhead_lab.course.ui.exercise import Exercise, Feedback, NotUnderstood, read_number
from bulkhead_lab.pool.model import LESSON_SPLIT, Params
from bulkhead_lab.retries.policy import SRE_BUDGET, RatioBudget
from bulkhead_lab.retries.storm import RetryRun, RetrySetup
from bulkhead_lab.validation import check_int, check_real

LOAD_CAP = 1.2  # exercise 1: the event flow's calls per request through the slowdown
CLIENTS = 10  # exercise 3: Brooker's smallest client count (section 3 prints the largest, 50)
SLOWDOWN = Params(split=LESSON_SPLIT, mode="slowdown")


def _run(ratio: int, shared: bool, split: int | None = LESSON_SPLIT) -> RetryRun:
    check_int("ratio", ratio, 0, 100)
    setup = RetrySetup(views.LESSON_POLICY, RatioBudget(ratio / 100), shared=shared)
    return cache.retry_run(SLOWDOWN.with_(split=split), setup)


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


# --- exercise 1: cap the event storm -------------------------------------------------------


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


def event_load_table(ratios: range = range(10, 21)) -> pd.DataFrame:
    """The event flow's calls per request per ratio, beside the worst case 1 / (1 - ratio)."""
    rows = [
        {
            "retry budget": f"{r}%",
            "event calls/request (24/8, slowdown)": round(event_load(r), 3),
            "worst case 1/(1 - ratio)": round(1 / (1 - r / 100), 3),
        }
        for r in ratios
    ]
    return pd.DataFrame(rows).set_index("retry budget")


def _judge_1(answer: object) -> Feedback:
    ratio = read_ratio(answer)
    right, load = largest_ratio_under(), event_load(ratio)
    if ratio == right:
        return Feedback(True, f"Right: {ratio}% holds the event flow at {load:.3f} calls per request.")
    if load > LOAD_CAP:
        return Feedback(
            False, f"Not yet: {ratio}% lets the event flow reach {load:.3f} calls per request, over 1.2."
        )
    return Feedback(
        False, f"Not yet: {ratio}% holds it at {load:.3f}, under 1.2; a larger budget still does."
    )


def _answer_1() -> list[object]:
    right = largest_ratio_under()
    return [
        f"**{right}%**: the event flow makes {event_load(right):.3f} calls per request through the slowdown "
        f"({event_load(right + 1):.3f} at {right + 1}%). The SRE book's reasoning predicts it: when retries "
        "stay under a share r of all calls, the calls per request stay under 1 / (1 - r), which is 1.2 at "
        "r = 16.7%. The event compartment refuses so much through the slowdown that the budget, not the "
        "attempts, sets its load: the worst case and the measured load nearly agree.",
        event_load_table(),
    ]


exercise_1 = Exercise(
    1,
    "Cap the event storm",
    judge=_judge_1,
    hint="with retries under a share r of all calls, calls per request stay under 1 / (1 - r); "
    "check a few ratios with exercises.event_load(ratio).",
    answer=_answer_1,
    placeholder="budget ratio, %",
)


# --- exercise 2: bulkhead the budget too -----------------------------------------------------


def tracking_gave_up(ratio: int, shared: bool = True) -> int:
    """24/8's tracking requests given up through the slowdown with a ``ratio``% budget."""
    return _run(ratio, shared).tracking.gave_up


def own_budget_level() -> int:
    """Tracking's given-up requests under 24/8 through the slowdown with the SRE 10% kept per flow."""
    return cache.retry_run(SLOWDOWN, RetrySetup(views.LESSON_POLICY, SRE_BUDGET)).tracking.gave_up


def smallest_shared_ratio() -> int:
    """The smallest whole-percent shared budget at which tracking gives up no more than with its own."""
    target = own_budget_level()
    return next(r for r in range(101) if tracking_gave_up(r) <= target)


def shared_budget_table(ratios: tuple[int, ...] = (5, 10, 15, 20, 21, 22, 23, 24, 25, 30)) -> pd.DataFrame:
    """24/8 through the slowdown with one budget for both flows: what tracking loses, what events cost."""
    rows = [
        {
            "shared retry budget": f"{r}%",
            "tracking gave up": tracking_gave_up(r),
            "event calls/request": round(_run(r, shared=True).event.load, 3),
        }
        for r in ratios
    ]
    return pd.DataFrame(rows).set_index("shared retry budget")


def _judge_2(answer: object) -> Feedback:
    ratio = read_ratio(answer)
    right, target, lost = smallest_shared_ratio(), own_budget_level(), tracking_gave_up(ratio)
    if ratio == right:
        return Feedback(
            True, f"Right: from {ratio}% shared, tracking gives up {lost}, as with a budget of its own."
        )
    if lost > target:
        return Feedback(
            False, f"Not yet: at {ratio}% shared, tracking gives up {lost} requests, not {target}."
        )
    return Feedback(
        False, f"Not yet: {ratio}% shared protects tracking ({lost}), but a smaller share does too."
    )


def _answer_2() -> list[object]:
    right, own = smallest_shared_ratio(), own_budget_level()
    shared_load = _run(right, shared=True).event.load
    per_flow = cache.retry_run(SLOWDOWN, RetrySetup(views.LESSON_POLICY, SRE_BUDGET)).event.load
    return [
        f"**{right}%**. With a budget of its own, tracking gives up {own} through the slowdown (at 10%). "
        "With one budget for the whole gateway the event compartment's refusals spend it, and tracking's "
        f"few retries are denied until the shared budget reaches {right}%. By then it covers every retry "
        "the event storm makes (the busy tracking flow's calls count towards the shared budget too), so it "
        f"no longer caps the storm: {shared_load:.2f} calls per event request, against {per_flow:.2f} with "
        "the SRE 10% kept per flow. A shared budget cannot both protect the neighbour and cap the storm: "
        "keep a budget per compartment, the bulkhead's own rule.",
        shared_budget_table(),
    ]


exercise_2 = Exercise(
    2,
    "Bulkhead the budget too",
    judge=_judge_2,
    hint="in section 5's panel set the budget kept for 'both flows' and move the budget; or compare "
    "exercises.tracking_gave_up(ratio) with exercises.own_budget_level().",
    answer=_answer_2,
    placeholder="shared ratio, %",
)


# --- exercise 3: the backoff that makes the fewest calls ---------------------------------------

_STRATEGY_WORDS = (  # what a learner may type, checked in this order
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


def read_strategy(answer: object) -> str:
    """One of Brooker's strategies from what a learner typed: 'full', 'Full Jitter', 'no jitter' ..."""
    text = str(answer).strip().lower() if isinstance(answer, str) else ""
    for word, strategy in _STRATEGY_WORDS:
        if word in text:
            return strategy
    raise NotUnderstood(
        "this asks for a strategy: full, equal or decorrelated jitter, no jitter, or no backoff."
    )


def fewest_calls(clients: int = CLIENTS) -> str:
    """The strategy whose ``clients`` contending clients make the fewest calls (mean of 10 seeds)."""
    at = views.contention_view().frame.xs(clients, level="clients")
    return str(at["calls"].idxmin())


def _judge_3(answer: object) -> Feedback:
    strategy = read_strategy(answer)
    at = views.contention_view().frame.xs(CLIENTS, level="clients")
    right, calls = fewest_calls(), at.loc[strategy, "calls"]
    if strategy == right:
        return Feedback(True, f"Right: {strategy}, {calls:g} calls for {CLIENTS} clients.")
    return Feedback(
        False, f"Not yet: {strategy} makes {calls:g} calls for {CLIENTS} clients; one makes fewer."
    )


def _answer_3() -> list[object]:
    view = views.contention_view()
    right = fewest_calls()
    at = view.frame.xs(CLIENTS, level="clients")
    soonest = str(at.loc[at.index != "no backoff", "completion"].idxmin())
    return [
        f"**{right}**: {at.loc[right, 'calls']:g} calls for {CLIENTS} clients. Without jitter the losers "
        f"stay in lockstep: {CLIENTS} x {CLIENTS + 1} / 2 = {CLIENTS * (CLIENTS + 1) // 2} calls "
        f"whatever the backoff. Among the backoffs {soonest} finishes soonest (step "
        f"{at.loc[soonest, 'completion']:g}). With 50 clients the fewest calls are "
        f"{fewest_calls(50)}'s: which jitter does least work depends on how many clients contend.",
        view.at(CLIENTS),
    ]


exercise_3 = Exercise(
    3,
    "The backoff with the fewest calls",
    judge=_judge_3,
    hint="read section 3's table and figure, the calls made at 50 clients.",
    answer=_answer_3,
    placeholder="a strategy, like equal jitter",
)
