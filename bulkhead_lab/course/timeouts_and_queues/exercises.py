"""Notebook 07's exercises: design a queue and a timeout that end the storm; predict whether dropping
only expired work does; the largest bulkhead limit an overload leaves room for; write the deadline drop.

Each checker runs what the learner chose in the model (:mod:`bulkhead_lab.queues.design`), so its
verdict and its worked answer are always the notebook's numbers; the deadline drop the learner writes is
judged by its contract (:mod:`bulkhead_lab.course.judges.deadline_drop`).
"""

from __future__ import annotations

import re

import pandas as pd

from bulkhead_lab.course.judges import deadline_drop
from bulkhead_lab.course.timeouts_and_queues import views
from bulkhead_lab.course.ui import exercise as ui
from bulkhead_lab.course.ui.exercise import Answer, Exercise, NotUnderstood, Wrong, read_whole
from bulkhead_lab.course.ui.trial import a_function
from bulkhead_lab.pool.params import CYCLE
from bulkhead_lab.queues import design, timeouts
from bulkhead_lab.queues.settings import WORKERS

# --- exercise 1: a queue and a timeout that end the storm ------------------------------------------


_PART = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*(ms|s|sec|secs|seconds?|rounds?|calls?)?(?![a-z\d])", re.I)
_TO_ROUNDS = {"ms": 0.1, "s": CYCLE, "sec": CYCLE, "secs": CYCLE, "second": CYCLE, "seconds": CYCLE}


def _timeout_rounds(number: str, unit: str) -> object:
    """A typed timeout in rounds: bare or in rounds as typed, in ms or s converted (10 ms a round)."""
    unit = unit.lower()
    if unit in ("", "round", "rounds"):
        return number
    if unit.startswith("call"):
        raise NotUnderstood(
            f"the timeout is a time, not {number} {unit}: give it in rounds, like 30, or in ms."
        )
    rounds = float(number) * _TO_ROUNDS[unit]
    if abs(rounds - round(rounds)) > 1e-9:
        raise NotUnderstood(
            f"{number} {unit} is {rounds:g} rounds, not a whole number of rounds (a round is 10 ms)."
        )
    return round(rounds)


def read_design(answer: object) -> tuple[int, int]:
    """(queue bound in calls, timeout in rounds) from what a learner typed: ``'10, 30'``,
    ``'bound 10 timeout 30'``, ``'10, 300 ms'``, ``'10 calls, 0.3 s'``, (10, 30). A timeout in ms or s
    is converted at 10 ms a round; a bound is a number of calls, never a time."""
    if isinstance(answer, (tuple, list)) and len(answer) == 2:
        parts: list[object] = list(answer)
    elif isinstance(answer, str) and len(found := _PART.findall(answer)) == 2:
        (bound, bound_unit), (timeout, timeout_unit) = found
        if bound_unit and not bound_unit.lower().startswith("call"):
            raise NotUnderstood(
                f"the queue bound is a number of calls, not {bound} {bound_unit}; answer like 10, 30 "
                "(the bound in calls, then the timeout in rounds)."
            )
        parts = [bound, _timeout_rounds(timeout, timeout_unit)]
    else:
        raise NotUnderstood(
            f"I could not find a number for both the queue bound and the timeout in {answer!r:.40}; "
            "this asks for two, like 10, 30 (the bound in calls, then the timeout in rounds)."
        )
    bound = read_whole(parts[0], 0, 1000, "a queue bound in calls (0..1000)")
    timeout = read_whole(
        parts[1], 1, design.SLO, f"a timeout in rounds of 10 ms, at most {design.SLO} (the callers' 300 ms)"
    )
    return bound, timeout


def design_table() -> pd.DataFrame:
    bounds, timeouts_ = design.DESIGNS
    rows = [
        {
            "queue bound": b,
            "timeout": t,
            "longest queue in time": timeouts.longest_queue(views.DEFAULT.dependency, t),
            "healthy day: refused": f"{design.refused_share(b, t):.1%}",
            "rounds to recover": views.in_rounds(design.recovers(b, t)),
        }
        for t in timeouts_
        for b in bounds
    ]
    return pd.DataFrame(rows).set_index(["timeout", "queue bound"])


def _design_figures(value: tuple[int, int]) -> dict[str, object]:
    bound, timeout = value
    return {"bound": bound, "timeout": timeout, "ms": timeout * 1000 // CYCLE,
            "back": design.recovers(bound, timeout), "refused": design.refused_share(bound, timeout),
            "within": design.WITHIN}  # fmt: skip


def _worked_1(a: Answer) -> str:
    d, (bound, timeout) = views.DEFAULT.dependency, a.right
    return (
        "A queue that drains inside the timeout ends the storm: at most (timeout - service) x workers / "
        f"service calls may wait ({timeouts.longest_queue(d, design.SLO)} at {design.SLO} rounds), and the "
        "fewer wait, the sooner a queue of abandoned calls is gone; too short a queue refuses a normal "
        f"day's bursts. Any design in the table with at most 1% refused and back for good within "
        f"{design.WITHIN} rounds is right, for example `{bound}, {timeout}` ({bound} calls, {timeout} "
        "rounds)."
    )


exercise_1 = Exercise(
    1,
    "A queue and a timeout that end the storm",
    read=read_design,
    right=lambda: design.a_right_design(),
    right_when=lambda a: design.works(*a.value),
    figures=_design_figures,
    right_says="queue {bound} calls, timeout {timeout} rounds ({ms} ms): back for good {back} rounds "
    "after the end, {refused:.1%} refused when healthy.",
    wrong=(
        Wrong(
            lambda a: a.refused > design.REFUSED_AT_MOST,
            "queue {bound} calls, timeout {timeout} rounds ({ms} ms): a healthy day refuses {refused:.1%} of "
            "the calls, over 1%.",
        ),
        Wrong(
            lambda a: a.back is None,
            "queue {bound} calls, timeout {timeout} rounds ({ms} ms): goodput is not back for good in the "
            "run.",
        ),
    ),
    otherwise="queue {bound} calls, timeout {timeout} rounds ({ms} ms): goodput is back for good {back} "
    "rounds after the end, not within {within}.",
    hint="the last call in a full queue waits about bound x service / workers rounds; it must be answered "
    "inside the timeout. Try your design in section 3's panel first: its table shows both conditions.",
    worked=(_worked_1, lambda _: design_table()),
    placeholder="bound, timeout",
)


# --- exercise 2: drop only what has expired ---------------------------------------------------------

_YES_NO = (("no", False), ("never", False), ("not", False), ("stays", False), ("yes", True), ("ends", True))


def read_yes_no(answer: object) -> bool:
    words = re.findall(r"[a-z']+", answer.lower()) if isinstance(answer, str) else []
    for word, meaning in _YES_NO:
        if word in words:
            return meaning
    raise NotUnderstood("this asks for a prediction: yes (the storm ends) or no (it stays).")


exercise_2 = Exercise(
    2,
    "Drop only what has expired",
    read=read_yes_no,
    right=lambda: design.expired_only_ends(),
    figures=lambda _: {
        "said": "ends" if design.expired_only_ends() else "stays to the end of the run",
        "wasted": design.expired_only().after("wasted"),
    },
    right_says="it {said}; it served {wasted} calls for no one after the end.",
    otherwise="run it (the panel's fix 'drop expired'): the storm {said}.",
    hint="think of which call a FIFO worker takes next once the expired ones are gone, and when it ends.",
    worked=(
        "**No.** A FIFO worker next takes the oldest call whose deadline has not passed, about to pass: "
        "it finishes after its caller has gone, so every call served is still wasted and every caller "
        "still times out and retries. Dropping what *cannot finish* in time (deadline minus service "
        "time) leaves only calls answered in time: that ends it.",
        lambda _: views.recovery_table(("no fix", "drop expired", "deadline drop")),
    ),
    placeholder="yes or no",
)


# --- exercise 3: the largest limit the overload leaves room for -------------------------------------


def _worked_3(a: Answer) -> str:
    queue = timeouts.longest_queue(views.DEFAULT.dependency, views.DEFAULT.callers.timeout)
    return (
        f"**{a.right}**: the {WORKERS} workers plus the {queue} calls that may wait and still be answered "
        f"inside {views.DEFAULT.callers.timeout} rounds. One more in flight and the last call queued is "
        "always late: it times out, retries, and the storm takes over. A fixed limit works between the "
        "knee and that edge; Vegas finds that band on its own."
    )


def _limit_table(right: int) -> pd.DataFrame:
    rows = {n: [f"{design.goodput_share(n):.0%}"] for n in (WORKERS, 16, 32, right, right + 1, 64)}
    return pd.DataFrame.from_dict(rows, orient="index", columns=["goodput of the most"]).rename_axis("limit")


exercise_3 = Exercise(
    3,
    "The largest limit the overload leaves room for",
    read=lambda a: read_whole(a, 1, 1000, "a bulkhead limit, in calls"),
    right=lambda: design.largest_limit(),
    figures=lambda n: {"here": design.goodput_share(n), "above": design.goodput_share(n + 1), "next": n + 1},
    right_says="{value} answers {here:.0%}; {next} only {above:.0%}.",
    wrong=(
        Wrong(
            lambda a: a.here < design.ENOUGH,
            "a limit of {value} answers {here:.0%} of what it can, under 90%.",
        ),
    ),
    otherwise="{value} answers {here:.0%}, and {next} still {above:.0%}: go higher.",
    hint="the knee is the workers; past it each call waits; the timeout says how long a queue may be.",
    worked=(_worked_3, lambda a: _limit_table(a.right)),
    placeholder="a limit, in calls",
)


# --- exercise 4: write the deadline drop, judged step by step against the course's rule ---------------

# A Not yet's replay line runs the learner's step on a small queue beside the course's, in a cell:
# exercises.replay_step(my_take_next, [125, 126], now=120, service=6); queue_of builds such a queue.
replay_step = deadline_drop.replay_step
queue_of = deadline_drop.queue_of


exercise_4 = write_deadline_drop = Exercise(
    4,
    "Write the deadline drop",
    read=ui.judged(lambda step: deadline_drop.verdict(a_function(step, "check(my_take_next)")), "function"),
    hint="take calls off the front with popleft; a call started now is answered in round now + service, "
    "in time only if that is at most its deadline: drop the others, return the first that fits (None when "
    "none does, the queue empty included).",
    worked=(
        "**The course's own step** (section 2's `may_start`, rule *cannot finish*, one call at a time from "
        "the front of the queue):",
        ui.source(deadline_drop.take_next),
    ),
    placeholder="your function's name",
    typed="my_take_next",
)
