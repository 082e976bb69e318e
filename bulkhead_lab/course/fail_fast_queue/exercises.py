"""Notebook 04's exercises: size a bulkhead's burst by hand, the last served order's wait, Little's Law.

Each right answer is computed by the rules the lesson's runs follow: a bulkhead serves at
most ``limit + waiting places`` of a burst and refuses the rest at once
(:func:`served_of_burst`); the served go through ``limit`` places in waves of Payment's
latency (:func:`~.reading.waves_needed`); the limit is Little's Law times a headroom
(:func:`bulkhead_lab.sizing.suggested_limit`). The worked answer of exercise 1 runs the
exercise's bulkhead live (with Payment slowed to 0.3 s: the counts do not depend on it),
so the learner sees the services count it.
"""

from __future__ import annotations

from bulkhead_lab import sizing
from bulkhead_lab.course.fail_fast_queue import views
from bulkhead_lab.course.fail_fast_queue.views import lesson004
from bulkhead_lab.course.ui.exercise import Exercise, Wrong, read_duration, read_whole

ORDERS, SLOW_S, LIMIT_1, QUEUE_1 = lesson004.ORDERS, lesson004.SLOW_S, 4, 8  # exercises 1, 2: the burst
LIVE_LATENCY = 0.3  # s: the worked answer's live run (counts are the same at any latency)
RATE_3, HOLD_3, HEADROOM_3 = 50.0, 0.08, 2.5  # exercise 3: a busier Payment than the lesson's


def served_of_burst(orders: int, limit: int, queue: int) -> int:
    """A burst of ``orders`` at once through a bulkhead: ``limit`` run, ``queue`` wait, the rest refused."""
    return min(orders, limit + queue)


def refused_1() -> int:
    """20 orders at once, a bulkhead of 4 running + 8 waiting: the orders refused at once."""
    return ORDERS - served_of_burst(ORDERS, LIMIT_1, QUEUE_1)


def last_answer_2() -> float:
    """Seconds until the last served order is answered: its waves x Payment's slow latency."""
    return views.waves_needed(served_of_burst(ORDERS, LIMIT_1, QUEUE_1), LIMIT_1) * SLOW_S


def limit_3() -> int:
    """The limit Little's Law suggests for 50 calls/s at 0.08 s with a headroom of 2.5."""
    return sizing.suggested_limit(RATE_3, HOLD_3, HEADROOM_3)


def _burst(_: object = None) -> dict[str, float]:
    """The names exercises 1 and 2 say: the burst, the bulkhead, and its waves of Payment's latency."""
    served = served_of_burst(ORDERS, LIMIT_1, QUEUE_1)
    waves, all_waves = views.waves_needed(served, LIMIT_1), views.waves_needed(ORDERS, LIMIT_1)
    burst = dict(orders=ORDERS, limit=LIMIT_1, queue=QUEUE_1, served=served, refused=ORDERS - served)
    return burst | dict(slow=SLOW_S, waves=waves, all_waves=all_waves, all_served=all_waves * SLOW_S)


def _live_1(_: object) -> str:
    r = views.run("limited", limit=LIMIT_1, queue=QUEUE_1, slow_latency=LIVE_LATENCY)
    return (
        f"The same bulkhead run live just now (Payment slowed to {LIVE_LATENCY:g} s: the counts do not "
        f"depend on the latency): {r.served} served, {r.refused} refused, Payment's peak "
        f"{r.payment.peak}, /admin/bulkhead's rejected: {(r.bulkhead_after or {}).get('rejected')}."
    )


exercise_1 = Exercise(
    1,
    "How many are refused",
    read=lambda a: read_whole(a, 0, 10 * ORDERS, f"a number of refused orders, 0..{ORDERS}"),
    right=refused_1,
    figures=_burst,
    right_says="{limit} run and {queue} wait, so {served} of the {orders} are taken in and "
    "{orders} - {served} = {right} are refused at once with 503.",
    wrong=(
        Wrong(
            lambda a: a.is_(a.served),
            "{value} is how many are served; the question asks how many are refused.",
        ),
        Wrong(
            lambda a: a.is_(a.orders - a.limit),
            "{value} forgets the {queue} waiting places: waiting orders are not refused.",
        ),
        Wrong(lambda a: a.value > a.orders, "only {orders} orders are sent."),
    ),
    hint="a bulkhead lets 'limit' calls run and 'waiting places' more wait; the rest of a burst is refused "
    "at once. Try it in section 8's panel: 'pools + bulkhead', running places 4, waiting places 8.",
    worked=(
        "**{right} refused.** The first {limit} orders take the running places, the next {queue} the waiting "
        "places; both are full, so the remaining {orders} - {limit} - {queue} = {right} are refused at once "
        "(HTTP 503, 'busy, try again'). {served} are served.",
        _live_1,
    ),
    placeholder="orders refused",
)

exercise_2 = Exercise(
    2,
    "The last served order's wait",
    read=lambda a: read_duration(a, "s", "a time in seconds"),
    right=last_answer_2,
    tolerance=0.25,
    unit="s",
    figures=_burst,
    right_says="{served} served orders through {limit} places are {waves} waves of {slow:g} s: the last "
    "is answered after about {right:g} s.",
    wrong=(
        Wrong(
            lambda a: a.is_(a.all_served),
            "{shown} would serve all {orders}; the refused ones never wait.",
        ),
        Wrong(lambda a: a.is_(a.slow), "{shown} is one wave: only the first {limit} are answered then."),
    ),
    otherwise=("{shown} is too long.", "{shown} is too short."),
    hint="the served orders go through the 4 running places in waves; each wave lasts one slow Payment "
    "call. Section 4's figure shows the lesson's two waves of 3 s (its 'rounds of 3 seconds').",
    worked=(
        "**About {right:g} s.** {served} orders are served through {limit} running places: ceil({served} / "
        "{limit}) = {waves} waves, each one slow Payment call of {slow:g} s, so {waves} x {slow:g} = "
        "{right:g} s (a few milliseconds more, never less). The {refused} refused orders were answered in "
        "milliseconds. Without the bulkhead, a pool of {limit} would serve all {orders} in {all_waves} "
        "waves: the last after {all_served:g} s. Check it in section 8's panel with Payment's latency at "
        "{slow:g} s.",
    ),
    placeholder="seconds",
)

exercise_3 = Exercise(
    3,
    "Little's Law for a busier Payment",
    read=lambda a: read_whole(a, 0, 10_000, "a limit (a whole number of running places)"),
    right=limit_3,
    figures=lambda _: dict(
        rate=RATE_3, hold=HOLD_3, headroom=HEADROOM_3, load=sizing.in_flight(RATE_3, HOLD_3)
    ),
    right_says="{rate:g} calls/s x {hold:g} s = {load:g} in flight; x {headroom:g} = {right}.",
    wrong=(
        Wrong(
            lambda a: a.is_(round(a.load)),
            "{value} is the calls in flight on a normal day, with no headroom for bursts.",
        ),
    ),
    hint="in flight = calls/s x seconds per call (section 6); then multiply by the headroom and round up.",
    worked=(
        "**{right}.** Little's Law: {rate:g} calls/s x {hold:g} s = {load:g} calls in progress on a normal "
        "day. With {headroom:g}x headroom for bursts: ceil({load:g} x {headroom:g}) = {right}. Keep the "
        "waiting area small, and watch /admin/bulkhead's rejected: refusals on a normal day mean the limit "
        "is too small.",
    ),
    placeholder="limit",
)
