"""Notebook 04's exercises: size a bulkhead's burst by hand, the last served order's wait, Little's Law.

Each right answer is computed by the rules the lesson's runs follow: a bulkhead serves at
most ``limit + waiting places`` of a burst and refuses the rest at once
(:func:`served_of_burst`); the served go through ``limit`` places in waves of Payment's
latency (:func:`~.reading.waves_needed`); the limit is Little's Law times a headroom
(:func:`bulkhead_lab.sizing.suggested_limit`). The worked answer of exercise 1 runs the
exercise's bulkhead live (with Payment slowed to 0.3 s: the counts do not depend on it),
so the learner sees the services count it. Checkers take anything typed.
"""

from __future__ import annotations

import math

from bulkhead_lab import sizing
from bulkhead_lab.course.fail_fast_queue import views
from bulkhead_lab.course.fail_fast_queue.views import lesson004
from bulkhead_lab.course.ui.exercise import Exercise, Feedback, read_number, read_whole

# Exercises 1 and 2: the lesson's burst and slowdown, another bulkhead.
ORDERS, SLOW_S, LIMIT_1, QUEUE_1 = lesson004.ORDERS, lesson004.SLOW_S, 4, 8
LIVE_LATENCY = 0.3  # s: the worked answer's live run (counts are the same at any latency)
# Exercise 3: a busier Payment than the lesson's.
RATE_3, HOLD_3, HEADROOM_3 = 50.0, 0.08, 2.5

HINT_1 = (
    "a bulkhead lets 'limit' calls run and 'waiting places' more wait; the rest of a burst is refused "
    "at once. Try it in section 8's panel: 'pools + bulkhead', running places 4, waiting places 8."
)
HINT_2 = (
    "the served orders go through the 4 running places in rounds; each round lasts one slow Payment "
    "call. Section 4's figure shows the lesson's two rounds of 3 s."
)
HINT_3 = "in flight = calls/s x seconds per call (section 6); then multiply by the headroom and round up."


def _not_yet(message: str, hint: str) -> Feedback:
    return Feedback(False, f"Not yet: {message} Hint: {hint}")


def served_of_burst(orders: int, limit: int, queue: int) -> int:
    """A burst of ``orders`` at once through a bulkhead: ``limit`` run, ``queue`` wait, the rest refused."""
    return min(orders, limit + queue)


# --- exercise 1: how many are refused --------------------------------------------------------


def refused_1() -> int:
    """20 orders at once, a bulkhead of 4 running + 8 waiting: the orders refused at once."""
    return ORDERS - served_of_burst(ORDERS, LIMIT_1, QUEUE_1)


def _judge_1(answer: object) -> Feedback:
    n = read_whole(answer, 0, 10 * ORDERS, f"a number of refused orders, 0..{ORDERS}")
    right, served = refused_1(), served_of_burst(ORDERS, LIMIT_1, QUEUE_1)
    if n == right:
        return Feedback(
            True,
            f"Right: {LIMIT_1} run and {QUEUE_1} wait, so {served} of the {ORDERS} are taken in and "
            f"{ORDERS} - {served} = {right} are refused at once with 503.",
        )
    if n == served:
        return _not_yet(f"{n} is how many are served; the question asks how many are refused.", HINT_1)
    if n == ORDERS - LIMIT_1:
        return _not_yet(f"{n} forgets the {QUEUE_1} waiting places: waiting orders are not refused.", HINT_1)
    if n > ORDERS:
        return _not_yet(f"only {ORDERS} orders are sent.", HINT_1)
    return _not_yet(f"{n} is {'too many' if n > right else 'too few'}.", HINT_1)


def _answer_1() -> list[object]:
    right, served = refused_1(), served_of_burst(ORDERS, LIMIT_1, QUEUE_1)
    r = views.run("limited", limit=LIMIT_1, queue=QUEUE_1, slow_latency=LIVE_LATENCY)
    return [
        f"**{right} refused.** The first {LIMIT_1} orders take the running places, the next {QUEUE_1} the "
        f"waiting places; both are full, so the remaining {ORDERS} - {LIMIT_1} - {QUEUE_1} = {right} are "
        f"refused at once (HTTP 503, 'busy, try again'). {served} are served.",
        f"The same bulkhead run live just now (Payment slowed to {LIVE_LATENCY:g} s: the counts do not "
        f"depend on the latency): {r.served} served, {r.refused} refused, Payment's peak "
        f"{r.payment.get('peak')}, /admin/bulkhead's rejected: {(r.bulkhead_after or {}).get('rejected')}.",
    ]


exercise_1 = Exercise(
    1, "How many are refused", judge=_judge_1, hint=HINT_1, answer=_answer_1, placeholder="orders refused"
)


# --- exercise 2: the last served order's wait --------------------------------------------------


def rounds_2() -> int:
    return views.waves_needed(served_of_burst(ORDERS, LIMIT_1, QUEUE_1), LIMIT_1)


def last_answer_2() -> float:
    """Seconds until the last served order is answered: its rounds x Payment's slow latency."""
    return rounds_2() * SLOW_S


def _judge_2(answer: object) -> Feedback:
    value = read_number(answer, "a time in seconds")
    seconds = value / 1000 if value > 100 else value  # '9000 ms' is 9 s
    right, rounds = last_answer_2(), rounds_2()
    if math.isclose(seconds, right, abs_tol=0.25):
        return Feedback(
            True,
            f"Right: {served_of_burst(ORDERS, LIMIT_1, QUEUE_1)} served orders through {LIMIT_1} places "
            f"are {rounds} rounds of {SLOW_S:g} s: the last is answered after about {right:g} s.",
        )
    if math.isclose(seconds, SLOW_S * views.waves_needed(ORDERS, LIMIT_1), abs_tol=0.25):
        return _not_yet(f"{seconds:g} s would serve all {ORDERS}; the refused ones never wait.", HINT_2)
    if math.isclose(seconds, SLOW_S, abs_tol=0.25):
        return _not_yet(f"{seconds:g} s is one round: only the first {LIMIT_1} are answered then.", HINT_2)
    return _not_yet(f"{seconds:g} s is {'too long' if seconds > right else 'too short'}.", HINT_2)


def _answer_2() -> list[object]:
    served, rounds, right = served_of_burst(ORDERS, LIMIT_1, QUEUE_1), rounds_2(), last_answer_2()
    return [
        f"**About {right:g} s.** {served} orders are served through {LIMIT_1} running places: "
        f"ceil({served} / {LIMIT_1}) = {rounds} rounds, each one slow Payment call of {SLOW_S:g} s, so "
        f"{rounds} x {SLOW_S:g} = {right:g} s (a few milliseconds more, never less). The {refused_1()} "
        f"refused orders were answered in milliseconds. Without the bulkhead, a pool of {LIMIT_1} would "
        f"serve all {ORDERS} in {views.waves_needed(ORDERS, LIMIT_1)} rounds: the last after "
        f"{views.waves_needed(ORDERS, LIMIT_1) * SLOW_S:g} s. Check it in section 8's panel with Payment's "
        f"latency at {SLOW_S:g} s.",
    ]


exercise_2 = Exercise(
    2,
    "The last served order's wait",
    judge=_judge_2,
    hint=HINT_2,
    answer=_answer_2,
    placeholder="seconds",
)


# --- exercise 3: Little's Law for a busier Payment ----------------------------------------------


def limit_3() -> int:
    """The limit Little's Law suggests for 50 calls/s at 0.08 s with a headroom of 2.5."""
    return sizing.suggested_limit(RATE_3, HOLD_3, HEADROOM_3)


def _judge_3(answer: object) -> Feedback:
    n = read_whole(answer, 0, 10_000, "a limit (a whole number of running places)")
    right, load = limit_3(), sizing.in_flight(RATE_3, HOLD_3)
    if n == right:
        return Feedback(
            True,
            f"Right: {RATE_3:g} calls/s x {HOLD_3:g} s = {load:g} in flight; x {HEADROOM_3:g} = {right}.",
        )
    if n == round(load):
        return _not_yet(f"{n} is the calls in flight on a normal day, with no headroom for bursts.", HINT_3)
    return _not_yet(f"{n} is {'too many' if n > right else 'too few'}.", HINT_3)


def _answer_3() -> list[object]:
    right, load = limit_3(), sizing.in_flight(RATE_3, HOLD_3)
    return [
        f"**{right}.** Little's Law: {RATE_3:g} calls/s x {HOLD_3:g} s = {load:g} calls in progress on a "
        f"normal day. With {HEADROOM_3:g}x headroom for bursts: ceil({load:g} x {HEADROOM_3:g}) = {right}. "
        f"Keep the waiting area small, and watch /admin/bulkhead's rejected: refusals on a normal day "
        f"mean the limit is too small.",
    ]


exercise_3 = Exercise(
    3, "Little's Law for a busier Payment", judge=_judge_3, hint=HINT_3, answer=_answer_3, placeholder="limit"
)
