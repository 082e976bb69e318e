"""Notebook 04's exercises, as data (:class:`~bulkhead_lab.course.ui.exercise.Exercise`).

Exercise 1's check runs the learner's bulkhead live (Payment slowed to 0.5 s: the counts do not
depend on it) and judges what the services counted; exercise 4's checks the learner's class against the
bulkhead's contract, schedule by schedule beside section 4's (:mod:`bulkhead_lab.course.judges.bulkhead`),
in a trial; :func:`replay` prints a schedule a verdict names, step by step, in a cell.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bulkhead_lab import sizing
from bulkhead_lab.course.fail_fast_queue import views
from bulkhead_lab.course.judges import bulkhead as bulkhead_judge
from bulkhead_lab.course.ui.exercise import (
    Exercise,
    Wrong,
    judged,
    read_duration,
    read_whole,
    source,
)
from bulkhead_lab.live.bulkhead import Bulkhead
from bulkhead_lab.live.orders.load import OrdersLoad
from bulkhead_lab.live.orders.service import SLOW_LATENCY

ORDERS = OrdersLoad().orders  # the lesson's burst: 20 orders at once
LIMIT_1, REFUSED_1, LATENCY_1 = 4, 6, 0.5  # exercise 1: Payment takes 4 at once; the burst should lose 6
LIMIT_2, QUEUE_2 = 4, 8  # exercise 2: a bulkhead of 4 running + 8 waiting, Payment slow at 3 s
LOAD_3, BLOCKING_3 = 20.0, 0.01  # exercise 3: 200 calls/s x 0.1 s, at most 1% refused


@dataclass(frozen=True)
class Burst:
    """What a live run of the lesson's burst counted through ``LIMIT_1`` running and ``queue`` waiting."""

    queue: int
    served: int
    refused: int
    peak: int


def queue_1() -> int:
    """The waiting places that leave exactly ``REFUSED_1`` of the burst refused: orders - limit - refused."""
    return ORDERS - LIMIT_1 - REFUSED_1


def _burst(answer: object) -> Burst:
    queue = read_whole(answer, 0, 20, "a number of waiting places, 0..20")
    r = views.run("limited", limit=LIMIT_1, queue=queue, slow_latency=LATENCY_1, stock_checks=0)
    return Burst(queue, r.served, r.refused, r.payment.peak)


exercise_1 = Exercise(
    1,
    "Size the waiting places",
    read=_burst,
    right=queue_1,
    right_when=lambda a: a.value.refused == REFUSED_1 and a.value.peak <= LIMIT_1,
    right_says="{value.queue} waiting places: the run served {value.served}, refused {value.refused} at "
    "once with 503, and Payment never held more than {value.peak}.",
    wrong=(
        Wrong(
            lambda a: a.value.queue == ORDERS - REFUSED_1,
            "{value.queue} waiting places refused {value.refused}: the 4 running places take orders too.",
        ),
    ),  # fmt: skip
    otherwise=lambda a: (
        f"{a.value.queue} waiting places: the run refused {a.value.refused} at once, not {REFUSED_1}."
    ),
    hint="the first orders take the 4 running places, the next ones the waiting places, and the rest are "
    "refused at once; try it in section 9's panel first.",
    worked=(
        f"**{queue_1()} waiting places.** {ORDERS} orders arrive at once: {LIMIT_1} take the running "
        f"places, {queue_1()} the waiting places, and {ORDERS} - {LIMIT_1} - {queue_1()} = {REFUSED_1} "
        "are refused at once (HTTP 503, 'busy, try again'). The queue decides how many are served; the "
        f"limit alone decides how many calls Payment holds ({LIMIT_1}).",
    ),
    placeholder="waiting places",
)


def _waves_2(served: int = min(ORDERS, LIMIT_2 + QUEUE_2)) -> dict[str, float]:
    return dict(served=served, waves=math.ceil(served / LIMIT_2), all_waves=math.ceil(ORDERS / LIMIT_2),
                slow=SLOW_LATENCY, limit=LIMIT_2, orders=ORDERS)  # fmt: skip


def last_answer_2() -> float:
    """Seconds until the last served order is answered: its waves x Payment's slow latency."""
    return _waves_2()["waves"] * SLOW_LATENCY


exercise_2 = Exercise(
    2,
    "The last served order's wait",
    read=lambda a: read_duration(a, "s", "a time in seconds"),
    right=last_answer_2,
    tolerance=0.25,
    unit="s",
    figures=lambda _: _waves_2(),
    right_says="{served} served orders through {limit} places are {waves} waves of {slow:g} s: the last "
    "is answered after about {right:g} s.",
    wrong=(
        Wrong(
            lambda a: a.is_(a.all_waves * a.slow), "{shown} would serve all {orders}; the refused never wait."
        ),
        Wrong(lambda a: a.is_(a.slow), "{shown} is one wave: only the first {limit} are answered then."),
    ),  # fmt: skip
    otherwise=("{shown} is too long.", "{shown} is too short."),
    hint="the served orders go through the 4 running places in waves; each wave lasts one slow Payment "
    "call. Section 5's figure shows the lesson's two waves of 3 s.",
    worked=(
        "**About {right:g} s.** {served} orders are served through {limit} running places: ceil({served} / "
        "{limit}) = {waves} waves of one slow Payment call each, {waves} x {slow:g} s = {right:g} s (a few "
        "milliseconds more, never less). The refused orders were answered in milliseconds.",
    ),
    placeholder="seconds",
)


def limit_3() -> int:
    """The fewest places that refuse at most 1% of 20 calls in flight (Erlang-B, no waiting places)."""
    return sizing.smallest_pool(LOAD_3, BLOCKING_3)


def _refuses(limit: int) -> dict[str, object]:
    """What ``limit`` places refuse at exercise 3's load, and one place fewer; the rule of thumb's limit."""
    b = sizing.erlang_b(limit, LOAD_3)
    over = "more than 1%." if b > BLOCKING_3 else "at most 1%, but fewer places do too."
    return dict(b=b, fewer=limit - 1, b_fewer=sizing.erlang_b(limit - 1, LOAD_3), ratio=limit / LOAD_3,
                rule=math.ceil(2.5 * LOAD_3), small=sizing.smallest_pool(2, BLOCKING_3), load=LOAD_3,
                over=over)  # fmt: skip


exercise_3 = Exercise(
    3,
    "The headroom at ten times the load",
    read=lambda answer: read_whole(answer, 1, 1000, "a limit, 1..1000 running places"),
    right=limit_3,
    figures=_refuses,
    right_says="{value} places refuse {b:.2%} of calls at {load:g} in flight, {fewer} would refuse "
    "{b_fewer:.2%}: {ratio:.1f} times the load, where 2 in flight need {small} (3.5 times).",
    wrong=(
        Wrong(
            lambda a: a.value == a.rule,
            "{value} is the 2.5x rule: it refuses {b:.4%}, far under 1%; the headroom a limit needs shrinks "
            "as the load grows.",
        ),
    ),
    otherwise="{value} places refuse {b:.2%} at {load:g} in flight: {over}",
    hint="the headroom needed is not a fixed ratio: section 7's table gives the limit for 2, 5, 50 and "
    "100 in flight, and 20 lies between 5 and 50; try numbers between 20 and 50.",
    worked=(
        "**{right}.** Erlang-B (bulkhead_lab.sizing.smallest_pool) for {load:g} calls in flight: {right} "
        "places refuse {b:.2%}, {fewer} refuse {b_fewer:.2%}. That is {ratio:.1f} times the load; the 2.5x "
        "rule would ask for {rule}. Random arrivals spread around their mean by about its square root, so "
        "the spare places a limit needs grow like the square root of the load, shrinking relative to it.",
    ),
    placeholder="running places",
)


replay = bulkhead_judge.replay  # exercises.replay(MyBulkhead, 1, 1, "arrive | arrive | cancel 2 | arrive")


write_bulkhead = Exercise(
    4,
    "Write your own bulkhead",
    read=judged(bulkhead_judge.judge),
    hint="keep a running count and a deque of waiting futures; refuse at once when both are full; give the "
    "place back in a finally (whatever the call raised, cancelled too), to the oldest waiter; a waiter "
    "cancelled leaves the line, and passes on a place handed to it just then (section 4's cell).",
    worked=(
        "**The course's own bulkhead** (section 4's cell, which the Order Service runs):",
        source(Bulkhead),
    ),
    placeholder="your class's name",
    typed="MyBulkhead",
)
exercise_4 = write_bulkhead
