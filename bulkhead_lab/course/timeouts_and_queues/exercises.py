"""Notebook 07's exercises: design a queue and a timeout that end the storm; predict whether dropping
only expired work does; the largest bulkhead limit an overload leaves room for.

Each checker runs what the learner chose in the model (kept runs of :mod:`bulkhead_lab.queues`),
so its verdict and its worked answer are always the notebook's numbers.
"""

from __future__ import annotations

import re

import pandas as pd

from bulkhead_lab.course.timeouts_and_queues import views
from bulkhead_lab.course.ui.exercise import Exercise, Feedback, NotUnderstood, read_whole
from bulkhead_lab.queues import limits, timeouts
from bulkhead_lab.queues.fixes import with_fix
from bulkhead_lab.queues.recovery import storm
from bulkhead_lab.queues.rounds import kept_run
from bulkhead_lab.queues.settings import WORKERS, Bulkhead, Callers, Dependency, Setup

WITHIN = 10  # exercise 1: rounds after the slowdown's end
SLO = 30  # exercise 1: the callers want an answer within 300 ms
REFUSED_AT_MOST = 0.01  # exercise 1: of the calls on a healthy day
ENOUGH = 0.9  # exercise 3: of what the dependency can answer
DESIGNS = ((2, 5, 10, 20, 32), (10, 30))  # exercise 1's worked answer: queue bounds, timeouts

# --- exercise 1: a queue and a timeout that end the storm ------------------------------------------


def read_design(answer: object) -> tuple[int, int]:
    """(queue bound, timeout) from what a learner typed: ``'10, 30'``, ``'bound 10 timeout 30'``, (10, 30)."""
    if isinstance(answer, (tuple, list)) and len(answer) == 2:
        parts: list[object] = list(answer)
    elif isinstance(answer, str) and len(found := re.findall(r"\d+(?:\.\d+)?", answer)) == 2:
        parts = list(found)
    else:
        raise NotUnderstood(
            f"I could not find a number for both the queue bound and the timeout in {answer!r:.40}; "
            "this asks for two, like 10, 30."
        )
    bound = read_whole(parts[0], 0, 1000, "a queue bound in calls (0..1000)")
    timeout = read_whole(parts[1], 1, SLO, f"a timeout in rounds, at most {SLO} (the callers' 300 ms)")
    return bound, timeout


def design(bound: int, timeout: int) -> Setup:
    return views.DEFAULT.with_(dependency=Dependency(queue=bound), callers=Callers(timeout=timeout))


def refused_share(bound: int, timeout: int) -> float:
    """The share of calls the dependency refuses on a healthy day with this design."""
    trace = kept_run(design(bound, timeout).healthy).trace
    return trace.total("refused") / max(1, trace.total("offered"))


def works(bound: int, timeout: int) -> bool:
    """Does this design refuse under 1% on a healthy day and recover within :data:`WITHIN` rounds?"""
    back = storm(design(bound, timeout)).recovery
    return refused_share(bound, timeout) <= REFUSED_AT_MOST and back is not None and back <= WITHIN


def a_right_design() -> tuple[int, int]:
    """The first design of the worked answer's table that works."""
    bounds, timeouts_ = DESIGNS
    return next((b, t) for t in timeouts_ for b in bounds if works(b, t))


def _judge_1(answer: object) -> Feedback:
    bound, timeout = read_design(answer)
    back, refused = storm(design(bound, timeout)).recovery, refused_share(bound, timeout)
    ran = f"queue {bound}, timeout {timeout}:"
    if refused > REFUSED_AT_MOST:
        return Feedback(False, f"Not yet: {ran} a healthy day refuses {refused:.1%} of the calls, over 1%.")
    if back is None:
        return Feedback(False, f"Not yet: {ran} the storm stays to the end of the run.")
    if back > WITHIN:
        return Feedback(False, f"Not yet: {ran} goodput is back {back} rounds after the end, not {WITHIN}.")
    return Feedback(
        True, f"Right: {ran} back {back} rounds after the end, {refused:.1%} refused when healthy."
    )


def design_table(
    bounds: tuple[int, ...] = DESIGNS[0], timeouts_: tuple[int, ...] = DESIGNS[1]
) -> pd.DataFrame:
    rows = [
        {
            "queue bound": b,
            "timeout": t,
            "longest queue in time": timeouts.longest_queue(views.DEFAULT.dependency, t),
            "healthy day: refused": f"{refused_share(b, t):.1%}",
            "rounds to recover": views._rounds(storm(design(b, t)).recovery),
        }
        for t in timeouts_
        for b in bounds
    ]
    return pd.DataFrame(rows).set_index(["timeout", "queue bound"])


def _answer_1() -> list[object]:
    d, (bound, timeout) = views.DEFAULT.dependency, a_right_design()
    return [
        "A queue that drains inside the timeout ends the storm: at most (timeout - service) x workers / "
        f"service calls may wait ({timeouts.longest_queue(d, SLO)} at {SLO} rounds), and the fewer wait, the "
        "sooner the queue full of abandoned calls is gone. A queue too short refuses calls on a normal day "
        "(its bursts need a few places). Any design in the table with at most 1% refused and a recovery "
        f"within {WITHIN} rounds is right, for example `{bound}, {timeout}`.",
        design_table(),
    ]


exercise_1 = Exercise(
    1,
    "A queue and a timeout that end the storm",
    judge=_judge_1,
    hint="the last call in a full queue waits about bound x service / workers rounds; it must be answered "
    "inside the timeout. Try your design in section 3's panel first.",
    answer=_answer_1,
    placeholder="bound, timeout",
)


# --- exercise 2: drop only what has expired ---------------------------------------------------------

_YES_NO = (("no", False), ("never", False), ("not", False), ("stays", False), ("yes", True), ("ends", True))


def read_yes_no(answer: object) -> bool:
    text = answer.strip().lower() if isinstance(answer, str) else ""
    words = re.findall(r"[a-z']+", text)
    for word, meaning in _YES_NO:
        if word in words:
            return meaning
    raise NotUnderstood("this asks for a prediction: yes (the storm ends) or no (it stays).")


def expired_only_ends() -> bool:
    return storm(with_fix(views.DEFAULT, "drop expired")).recovery is not None


def _judge_2(answer: object) -> Feedback:
    predicted, ends = read_yes_no(answer), expired_only_ends()
    run = storm(with_fix(views.DEFAULT, "drop expired"))
    said = "ends" if ends else "stays to the end of the run"
    if predicted == ends:
        return Feedback(
            True, f"Right: it {said}; it served {run.after('wasted')} calls for no one after the end."
        )
    return Feedback(False, f"Not yet: run it (the panel's fix 'drop expired'): the storm {said}.")


def _answer_2() -> list[object]:
    table = views.recovery_table(("no fix", "drop expired", "deadline drop"))
    return [
        "**No.** In a FIFO queue the next call served is the oldest one whose deadline has not passed: "
        "it is just about to pass. Served now, it finishes after its caller has gone, so every call served "
        "is still wasted, and every caller still times out and retries. Dropping what *cannot finish* in "
        "time (the deadline minus the service time) leaves only calls that will be answered in time: that "
        "ends it.",
        table,
    ]


exercise_2 = Exercise(
    2,
    "Drop only what has expired",
    judge=_judge_2,
    hint="think of which call a FIFO worker takes next once the expired ones are gone, and when it ends.",
    answer=_answer_2,
    placeholder="yes or no",
)


# --- exercise 3: the largest limit the overload leaves room for -------------------------------------


def goodput_share(limit: int) -> float:
    """Under section 4's overload, behind a fixed bulkhead ``limit``: goodput of the most it can answer."""
    setup = Setup(trigger=None, rate=limits.OVERLOAD, callers=Callers(bulkhead=Bulkhead(limit, 0)))
    return kept_run(setup).trace.total("goodput") / (views.DEFAULT.dependency.capacity * setup.rounds)


def largest_limit(low: int = WORKERS, high: int = 200) -> int:
    """The largest fixed limit that answers :data:`ENOUGH` of the most under the overload, between the
    knee (``low``, which does) and section 4's too-high limit (``high``, which does not), by bisection."""
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if goodput_share(middle) >= ENOUGH else (low, middle)
    return low


def _judge_3(answer: object) -> Feedback:
    limit = read_whole(answer, 1, 1000, "a bulkhead limit, in calls")
    here, above = goodput_share(limit), goodput_share(limit + 1)
    if here >= ENOUGH and above < ENOUGH:
        return Feedback(True, f"Right: {limit} answers {here:.0%}; {limit + 1} only {above:.0%}.")
    if here < ENOUGH:
        return Feedback(False, f"Not yet: a limit of {limit} answers {here:.0%} of what it can, under 90%.")
    return Feedback(
        False, f"Not yet: {limit} answers {here:.0%}, and {limit + 1} still {above:.0%}: go higher."
    )


def _answer_3() -> list[object]:
    d, timeout = views.DEFAULT.dependency, views.DEFAULT.callers.timeout
    queue = timeouts.longest_queue(d, timeout)
    edge = WORKERS + queue
    rows = [
        {"limit": n, "goodput of the most": f"{goodput_share(n):.0%}"}
        for n in (8, 16, 32, edge, edge + 1, 64)
    ]
    return [
        f"**{edge}**: the {WORKERS} workers plus the {queue} calls that may wait "
        f"and still be answered inside {timeout} rounds. One more in flight and the call at the back of the "
        "queue is always late: it times out, retries and the storm takes over. A fixed limit works while it "
        "sits between the knee and that edge; Vegas finds that band on its own.",
        pd.DataFrame(rows).set_index("limit"),
    ]


exercise_3 = Exercise(
    3,
    "The largest limit the overload leaves room for",
    judge=_judge_3,
    hint="the knee is the workers; past it each call waits; the timeout says how long a queue may be.",
    answer=_answer_3,
    placeholder="a limit, in calls",
)
