"""Notebook 05's exercises: predict, then run AIMD's timeout and Gradient2's drift; write an AIMD limiter.

Exercises 1 and 2 run the learner's choice on the seeded model, so checker, worked answer and notebook
agree. Exercise 3 judges the learner's class by AIMD's contract over the stated boundaries and generated
sample sequences, the course's AIMDLimit the oracle (:mod:`bulkhead_lab.course.judges.aimd`), and names
the smallest failing case with a line that replays it.
"""

from __future__ import annotations

import contextlib
from numbers import Integral, Number
from typing import Any

from bulkhead_lab.adaptive.compare import timeout_result, working_timeouts
from bulkhead_lab.adaptive.limits import AIMDLimit
from bulkhead_lab.adaptive.pitfalls import gradient2_drift, longest_confined
from bulkhead_lab.course.adaptive_limits import views
from bulkhead_lab.course.judges.aimd import judge_aimd, make
from bulkhead_lab.course.ui.exercise import (
    Exercise,
    NotUnderstood,
    Wrong,
    judged,
    read_code,
    read_number,
    read_whole,
    run_trial,
    source,
)
from bulkhead_lab.course.ui.trial import call
from bulkhead_lab.live.orders import learners
from bulkhead_lab.live.sync import run_sync
from bulkhead_lab.pool.params import SLOW, Params

SLOWDOWN = (
    "slowdown tracking dropped {aimd.slowdown.tracking_dropped} (24/8: {fixed.slowdown.tracking_dropped})"
)
HEALTHY = "healthy day {aimd.healthy.tracking_dropped} tracking, {aimd.healthy.event_dropped} event dropped"


def _whole(answer: object, high: int, what: str) -> int:
    if isinstance(answer, str) and "/" in answer:
        raise NotUnderstood(f"{answer.strip()!r} looks like a split or a ratio; this asks for {what}.")
    return read_whole(answer, 1, high, what)


exercise_1 = Exercise(
    1,
    "Predict, then tune AIMD's timeout",
    read=lambda a: _whole(a, 1_000_000, "one AIMD timeout in whole rounds (100 rounds = 1 s)"),
    right=lambda: working_timeouts()[-1],
    figures=lambda t: timeout_result(t),
    right_when=lambda a: a.beats_24_8,
    right_says=lambda a: (
        f"{a.value} rounds beats 24/8 for tracking: {SLOWDOWN.format_map(a)}, {HEALTHY.format_map(a)}. "
        + _price(a)
    ),
    wrong=(
        Wrong(
            lambda a: not a.keeps_the_healthy_day,
            "{value} rounds fires on normal calls too: " + HEALTHY + " (24/8: "
            "{fixed.healthy.tracking_dropped} and {fixed.healthy.event_dropped}).",
        ),
    ),
    otherwise="{value} rounds never fires on the slow calls: " + SLOWDOWN + ".",
    hint="in section 4's panel choose AIMD and move its timeout until the slow calls (22 rounds) are over it "
    "and the normal ones (4 and 6) are not.",
    worked=(
        lambda a: (
            f"Every whole timeout from {working_timeouts()[0]} to {a.right} rounds beats 24/8: over the "
            "normal holds and under the slow one, each slow call backs the event limit off and no normal "
            "call does."
        ),
        lambda a: _price(timeout_result(a.right)),
        lambda a: (
            f"It assumes the failure is slower than the timeout: against {a.right}-round slow calls a "
            f"{a.right}-round timeout never fires, and tracking drops {_missed(a.right)} again "
            f"(24/8: {a.fixed.slowdown.tracking_dropped})."
        ),
    ),
    placeholder="timeout in rounds",
)


def _price(run: Any) -> str:
    """What a timeout that fires on every slow call costs the event flow (``run``: a TimeoutResult, or an
    answer reading one)."""
    pinned = run.event_pinned_from
    stays = (
        f"stays there to the end of the run (from round {pinned})"
        if pinned is not None
        else "comes back up only as slow calls stop"
    )
    return (
        f"The event flow pays for it: every slow call backs its limit off, so it falls to {run.event_lowest} "
        f"and {stays}, and events drop {run.aimd.slowdown.event_dropped} on the slowdown day "
        f"(24/8: {run.fixed.slowdown.event_dropped})."
    )


def _missed(timeout: int) -> int:
    """Tracking's slowdown drops under AIMD with ``timeout`` when the slow calls take just that long."""
    return timeout_result(timeout, Params().with_(slow=timeout)).aimd.slowdown.tracking_dropped


THRESHOLD = SLOW / 1.5  # the baseline from which a slow call no longer shrinks Gradient2's limit


def _length(answer: object) -> int:
    """A slowdown length; the threshold the worked answer cites (14.7, or 22 / 1.5) is named as that."""
    typed = answer.replace(" ", "") if isinstance(answer, str) else answer
    if typed == f"{SLOW}/1.5" or (isinstance(typed, (int, float, str)) and _near(typed, THRESHOLD)):
        raise NotUnderstood(
            f"{THRESHOLD:.1f} rounds ({SLOW} / 1.5) is the baseline from which a slow call no longer "
            "shrinks the limit: why it comes back. This asks how long the slowdown lasts, in rounds, "
            "before the baseline gets there."
        )
    return _whole(answer, 3000, "a slowdown length in rounds (1..3000)")


def _near(typed: object, value: float) -> bool:
    try:
        return abs(read_number(typed) - value) < 0.1
    except NotUnderstood:
        return False


exercise_2 = Exercise(
    2,
    "Predict, then find the longest slowdown Gradient2 confines",
    read=_length,
    right=lambda: longest_confined(1.5),
    figures=lambda n: {"back_at": gradient2_drift(n, tolerance=1.5).back_at},
    right_when=lambda a: a.back_at is None and a.value > a.right - 20,
    right_says="{value} rounds: the event limit is still below 28 when the slowdown ends; 20 rounds more "
    "and it is back, because the baseline has caught up with the slow calls.",
    wrong=(
        Wrong(lambda a: a.back_at is None, "{value} rounds stays confined, and so does a longer slowdown."),
    ),
    otherwise=lambda a: (
        f"{a.value} rounds is too long: the limit is back at 28 in round {a.back_at}, "
        f"{a.back_at - 1000} rounds in."
    ),
    hint="in section 5.1's panel keep the tolerance at 1.5 and move the slowdown's length; watch for the "
    "vermillion band (the limit back at 28).",
    worked=(
        "The longest slowdown (in steps of 20 rounds) that Gradient2 keeps confined is **{right}** rounds.",
        "Why it ends: Gradient2's baseline is a long average of every round trip, the slow ones included. "
        f"Once the baseline is near {SLOW} / 1.5 = {THRESHOLD:.1f} rounds, a slow call no longer shrinks the "
        "limit, and it climbs back.",
    ),
    placeholder="slowdown in rounds",
)


# --- exercise 3: write an AIMD limiter ----------------------------------------------------------


exercise_3 = write_aimd = Exercise(
    3,
    "Write an AIMD limiter",
    read=judged(judge_aimd),
    hint="back off (x 0.9, rounded down) on a drop or a round trip over 500 ms; add one when at least half "
    "the limit is in flight (inflight * 2 >= limit); then keep the limit within min and max. Keep the "
    "limit on self, so two limiters never share it.",
    worked=(
        "The section 2 cell's `AIMDLimit` passes, at its defaults backoff 0.9 and timeout 500 ms:",
        source(AIMDLimit),
    ),
    placeholder="your class's name",
    typed="MyAIMD",
)


LIVE = (20, 1, 200)  # section 6's live settings: initial, min_limit, max_limit
DRY_RUN: list[tuple[float, int, bool]] = [(80, 12, False), (500, 10, False), (0, 9, True), (900, 10, False)]


def live_aimd(answer: object) -> object:
    """Section 6's live slowdown with the learner's limiter (class or name): the phases, or one line."""
    try:
        candidate = read_code(answer, "class")
        run_trial(lambda: _tried(candidate))  # raises, hangs, is no limiter: not live
        load = views.slowdown_load(views.LIVE_SLOW_FOR)
        run = run_sync(learners.limiter_run(python_numbers(candidate), LIVE, load))
        return views.live_table(views.live_view(run, views.LIVE_SLOW_FOR))
    except (NotUnderstood, learners.LearnersFault) as why:
        return f"Not run live: {why}"


def _tried(candidate: object) -> None:
    """The learner's limiter, built with :data:`LIVE`, given :data:`DRY_RUN`: a :class:`Fault` (one line)
    when it is no class, has no plain ``on_sample``, raises, or returns a coroutine."""
    on_sample = make(candidate, LIVE)
    for sample in DRY_RUN:
        call(on_sample, *sample)


def python_numbers(candidate: Any) -> Any:
    """``candidate`` as the live Order Service takes it: a maker of limiters whose ``on_sample`` returns any
    real number (numpy's too) as a Python one (the service takes ``int`` and ``float`` only), and whose
    exit (``sys.exit()``, ``KeyboardInterrupt``) is an Exception of that name the service names as a fault,
    not an exit of the service."""

    class Limiter:
        def __init__(self, *settings: int) -> None:
            self.learner = candidate(*settings)

        def on_sample(self, rtt: float, inflight: int, dropped: bool) -> object:
            try:
                got = self.learner.on_sample(rtt, inflight, dropped)
            except (SystemExit, KeyboardInterrupt, GeneratorExit) as exc:
                raise type(type(exc).__name__, (Exception,), {})(*exc.args) from None
            if isinstance(got, bool) or not isinstance(got, Number):
                return got
            if isinstance(got, Integral):
                return int(got)
            with contextlib.suppress(TypeError):  # a complex is no limit: the service says so
                return float(got)  # type: ignore[arg-type]
            return got

    return Limiter
