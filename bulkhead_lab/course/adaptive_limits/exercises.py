"""Notebook 05's exercises: tune AIMD to beat 24/8, and read Gradient2's drift off its figure.

Every right answer is computed from seeded runs kept by :mod:`bulkhead_lab.cache`, so a
checker and its worked answer always agree with the notebook's numbers.

Exercise 1 searches AIMD's timeout. AIMD reads a round trip only through ``rtt > timeout``,
and in lesson 000's model every call's round trip is one of the holds (4 tracking, 6 event,
``slow`` in the slowdown); so the runs depend only on which holds a timeout is under, and
whole-round timeouts from 1 to the longest hold + 1 cover every behaviour (any longer
timeout behaves as that one). Each is run on both days, AIMD on both flows as in the table.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from bulkhead_lab import cache
from bulkhead_lab.adaptive.pitfalls import gradient2_drift
from bulkhead_lab.adaptive.pool import model_spec
from bulkhead_lab.course.adaptive_limits.views import LESSON
from bulkhead_lab.course.ui.exercise import Exercise, Feedback, NotUnderstood, read_number, read_whole
from bulkhead_lab.pool.model import EVENT, LESSON_SPLIT, TRACKING, Params

MAX_TIMEOUT = 1_000_000  # rounds a learner may type (about 2.8 model hours)


# --- exercise 1: a timeout that beats 24/8 --------------------------------------------------------


@dataclass(frozen=True)
class TimeoutResult:
    """AIMD on both flows with one timeout, against 24/8, on the lesson's two days."""

    timeout: int
    healthy_tracking: int
    healthy_event: int
    slowdown_tracking: int
    slowdown_event: int
    fixed_healthy_tracking: int  # 24/8's, the bars to beat
    fixed_slowdown_tracking: int
    fixed_healthy_event: int  # 24/8's, for the worked answer
    fixed_slowdown_event: int

    @property
    def keeps_the_healthy_day(self) -> bool:
        """No more healthy-day drops than 24/8 in either flow."""
        return (
            self.healthy_tracking <= self.fixed_healthy_tracking
            and self.healthy_event <= self.fixed_healthy_event
        )

    @property
    def beats_24_8(self) -> bool:
        """Fewer slowdown tracking drops than 24/8, without losing the healthy day."""
        return self.slowdown_tracking < self.fixed_slowdown_tracking and self.keeps_the_healthy_day


def timeout_result(timeout: int, base: Params = LESSON) -> TimeoutResult:
    """Both days with AIMD's ``timeout`` (rounds) on both flows, beside 24/8's tracking drops."""
    params = base.with_(split=None)
    specs = [model_spec("AIMD", flow, params, timeout=timeout) for flow in (TRACKING, EVENT)]
    healthy, slowdown = (
        cache.pool_run(params.with_(mode=m), *specs).counters for m in ("healthy", "slowdown")
    )
    fixed = [cache.counters(params.with_(split=LESSON_SPLIT, mode=m)) for m in ("healthy", "slowdown")]
    return TimeoutResult(
        timeout,
        healthy.tracking_dropped,
        healthy.event_dropped,
        slowdown.tracking_dropped,
        slowdown.event_dropped,
        fixed[0].tracking_dropped,
        fixed[1].tracking_dropped,
        fixed[0].event_dropped,
        fixed[1].event_dropped,
    )


def timeout_candidates(base: Params = LESSON) -> range:
    """Every whole-round timeout that behaves differently: 1 .. the longest hold + 1."""
    return range(1, max(base.hold_tracking, base.hold_event, base.slow) + 2)


def working_timeouts(base: Params = LESSON) -> tuple[int, ...]:
    """The whole-round timeouts with which AIMD beats 24/8 (see :attr:`TimeoutResult.beats_24_8`)."""
    return tuple(t for t in timeout_candidates(base) if timeout_result(t, base).beats_24_8)


def largest_working_timeout(base: Params = LESSON) -> int:
    """Exercise 1's answer: the longest whole-round timeout with which AIMD beats 24/8."""
    working = working_timeouts(base)
    if not working:
        raise ValueError("timeout must beat 24/8 for some value (no whole-round timeout does here)")
    if working[-1] == timeout_candidates(base)[-1]:
        raise ValueError("timeout has no largest value here: every timeout over the longest hold beats 24/8")
    return working[-1]


def timeout_table(base: Params = LESSON) -> pd.DataFrame:
    """Every behaviour a whole-round timeout gives, consecutive timeouts with the same runs in one row."""
    candidates = timeout_candidates(base)
    groups: list[list[TimeoutResult]] = []
    for t in candidates:
        r = timeout_result(t, base)
        if groups and _same(groups[-1][0], r):
            groups[-1].append(r)
        else:
            groups.append([r])
    rows = []
    for group in groups:
        first, last = group[0].timeout, group[-1].timeout
        r = group[0]
        shown = f"{first}" if first == last else f"{first}-{last}"
        if last == candidates[-1]:
            shown = f"{first} or more"
        rows.append(
            {
                "AIMD timeout (rounds)": shown,
                "healthy tracking dropped": r.healthy_tracking,
                "healthy event dropped": r.healthy_event,
                "slowdown tracking dropped": r.slowdown_tracking,
                "slowdown event dropped": r.slowdown_event,
                "beats 24/8": r.beats_24_8,
            }
        )
    return pd.DataFrame(rows).set_index("AIMD timeout (rounds)")


def _same(a: TimeoutResult, b: TimeoutResult) -> bool:
    return (a.healthy_tracking, a.healthy_event, a.slowdown_tracking, a.slowdown_event) == (
        b.healthy_tracking,
        b.healthy_event,
        b.slowdown_tracking,
        b.slowdown_event,
    )


def _one_number(answer: object, what: str) -> None:
    if isinstance(answer, str) and "/" in answer:
        raise NotUnderstood(f"{answer.strip()!r} looks like a split or a ratio; this asks for {what}.")


def _judge_1(answer: object) -> Feedback:
    what = "one AIMD timeout in whole rounds (100 rounds = 1 s)"
    _one_number(answer, what)
    timeout = read_whole(answer, 1, MAX_TIMEOUT, what)
    right = largest_working_timeout()
    r = timeout_result(min(timeout, timeout_candidates()[-1]))
    slowdown = f"slowdown tracking dropped {r.slowdown_tracking} (24/8: {r.fixed_slowdown_tracking})"
    if timeout == right:
        return Feedback(True, f"Right: {timeout} rounds; {slowdown}, the healthy day no worse than 24/8's.")
    if r.beats_24_8:
        return Feedback(
            False, f"Not yet: {timeout} rounds beats 24/8 ({slowdown}), but a longer timeout does too."
        )
    if not r.keeps_the_healthy_day:
        return Feedback(
            False,
            f"Not yet: {timeout} rounds fires on normal calls too: the healthy day drops "
            f"{r.healthy_tracking} tracking, {r.healthy_event} event "
            f"(24/8: {r.fixed_healthy_tracking}, {r.fixed_healthy_event}).",
        )
    return Feedback(False, f"Not yet: {timeout} rounds does not fire on the slow calls: {slowdown}.")


def _answer_1() -> list[object]:
    right = largest_working_timeout()
    working = working_timeouts()
    r = timeout_result(right)
    slower = LESSON.with_(slow=right - 1)  # a slowdown just under the timeout
    missed = timeout_result(right, slower)
    return [
        f"Any timeout from {working[0]} to {working[-1]} rounds beats 24/8; the largest is **{right}**. "
        f"AIMD sees a round trip only when it is over the timeout: over the event flow's normal "
        f"{LESSON.hold_event} rounds (and the tracking flow's {LESSON.hold_tracking}) and under the "
        f"slowdown's {LESSON.slow}, every slow call backs the event limit off by 0.9 and no normal call "
        f"does. The event limit falls to 1: slowdown tracking dropped {r.slowdown_tracking} against 24/8's "
        f"{r.fixed_slowdown_tracking}, and the healthy day keeps the single pool's sharing "
        f"({r.healthy_tracking} tracking, {r.healthy_event} event dropped; 24/8: "
        f"{r.fixed_healthy_tracking} and {r.fixed_healthy_event}).",
        f"What it costs: the event flow drops {r.slowdown_event} on the slowdown day (24/8: "
        f"{r.fixed_slowdown_event}), and the "
        f"setting is a guess about the failure. A slowdown of {slower.slow} rounds is under a "
        f"{right}-round timeout: it never fires, and tracking drops {missed.slowdown_tracking} "
        f"(24/8 still {missed.fixed_slowdown_tracking}). The fixed wall needs no such guess. "
        f"A larger timeout leaves more room for a normal day's slower calls, which real services have.",
        timeout_table(),
    ]


exercise_1 = Exercise(
    1,
    "Tune AIMD to beat 24/8",
    judge=_judge_1,
    hint="in section 4's panel choose AIMD, move its timeout down from 500 and compare its row with 24/8's; "
    "or call exercises.timeout_result(timeout).",
    answer=_answer_1,
    placeholder="timeout in rounds",
)


# --- exercise 2: the drift, read off its figure --------------------------------------------------


@dataclass(frozen=True)
class DriftReturn:
    """When Gradient2's event limit is back at its pre-failure level, and its baseline then."""

    back_at: int  # the round
    start: int
    level: int  # the limit it is back at
    baseline: float  # the long average round trip at ``back_at``, in rounds
    slow: int
    tolerance: float
    queue_size: float

    @property
    def gradient(self) -> float:
        """tolerance x baseline / slow round trip, at ``back_at`` (clamped as Gradient2 does)."""
        return max(0.5, min(1.0, self.tolerance * self.baseline / self.slow))

    @property
    def settling_baseline(self) -> float:
        """The baseline at which the limit settles at ``level``: L = L x gradient + queue_size."""
        return (1 - self.queue_size / self.level) * self.slow / self.tolerance


def drift_return(tolerance: float = 1.5, base: Params = LESSON) -> DriftReturn:
    """Exercise 2's answer: the lesson's slowdown lasting to the end, Gradient2 on the event flow."""
    drift = gradient2_drift(base.rounds - base.start, base, tolerance=tolerance)
    if drift.back_at is None:
        raise ValueError(f"tolerance must let the limit climb back within the run (got {tolerance!r})")
    queue = model_spec("Gradient2", EVENT, base).get("queue_size")
    return DriftReturn(
        drift.back_at, drift.start, drift.before, drift.baseline[drift.back_at], base.slow, tolerance, queue
    )


READING = 1.0  # rounds: how far a value read off the figure may be from the baseline


def _judge_2(answer: object) -> Feedback:
    what = "the baseline in rounds (a round trip, like 6 or 22)"
    _one_number(answer, what)
    value = read_number(answer, what)
    r = drift_return()
    if abs(value - r.baseline) <= READING:
        return Feedback(
            True,
            f"Right: back at {r.level} in round {r.back_at}, baseline {r.baseline:.1f} rounds: "
            f"a {r.slow}-round call now looks only {r.slow / r.baseline:.2f}x slow.",
        )
    if value >= r.start / 2:
        return Feedback(
            False, f"Not yet: {value:g} looks like a round; this asks for the baseline's value then."
        )
    if abs(value - LESSON.hold_event) <= READING:
        return Feedback(
            False, f"Not yet: {value:g} is the baseline before the failure, a normal call's round trip."
        )
    if abs(value - r.slow) <= READING:
        return Feedback(
            False, f"Not yet: {value:g} is where the baseline ends up, long after the limit is back."
        )
    side = "high" if value > r.baseline else "low"
    return Feedback(False, f"Not yet: {value:g} rounds is too {side} for the baseline at that round.")


def _answer_2() -> list[object]:
    r = drift_return()
    rows = []
    for tolerance in (1.0, 1.5, 2.0):
        t = drift_return(tolerance)
        rows.append(
            {
                "tolerance": tolerance,
                "back at round": t.back_at,
                "rounds into the slowdown": t.back_at - t.start,
                "baseline then (rounds)": round(t.baseline, 2),
                "settling point for the limit (rounds)": round(t.settling_baseline, 2),
            }
        )
    return [
        f"The event limit is back at {r.level} in round {r.back_at}, {r.back_at - r.start} rounds into the "
        f"slowdown, with Gradient2's baseline at **{r.baseline:.1f} rounds**.",
        f"Why: Gradient2's baseline is a long average of *every* round trip (600 samples' window), the slow "
        f"ones included. So it creeps from {LESSON.hold_event} towards {r.slow}. Each sample sets the limit "
        f"to L x gradient + {r.queue_size:g} (smoothed), with gradient = {r.tolerance:g} x baseline / "
        f"{r.slow}: it settles where L = {r.queue_size:g} / (1 - gradient), and that point rises as the "
        f"baseline does. "
        f"It is {r.level} once the baseline reaches (1 - {r.queue_size:g}/{r.level}) x {r.slow} / "
        f"{r.tolerance:g} = {r.settling_baseline:.2f} rounds; the limit trails its settling point a little "
        f"(smoothing 0.2), so it gets there at {r.baseline:.1f}. From a baseline of "
        f"{r.slow / r.tolerance:.2f} (gradient 1) nothing holds the limit down at all. The slowdown has "
        f"become the new normal: the limiter cannot tell a dependency that got slow from one that is slow.",
        pd.DataFrame(rows).set_index("tolerance"),
    ]


exercise_2 = Exercise(
    2,
    "Explain the drift with one number",
    judge=_judge_2,
    hint="in section 5.1's figure (length 3000, tolerance 1.5) read the green baseline where the "
    "vermillion band crosses the middle panel.",
    answer=_answer_2,
    placeholder="baseline in rounds",
)
