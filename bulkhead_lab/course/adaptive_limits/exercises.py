"""Notebook 05's exercises: tune AIMD to beat 24/8, and read Gradient2's drift off its figure.

Every right answer is computed from seeded runs memoised (:mod:`bulkhead_lab.memo`), so a
checker and its worked answer always agree with the notebook's numbers.

Exercise 1 searches AIMD's timeout. AIMD reads a round trip only through ``rtt > timeout``,
and in lesson 000's model every call's round trip is one of the holds (4 tracking, 6 event,
``slow`` in the slowdown); so the runs depend only on which holds a timeout is under, and
whole-round timeouts from 1 to the longest hold + 1 cover every behaviour (any longer
timeout behaves as that one). Each is run on both days, AIMD on both flows as in the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby

import pandas as pd

from bulkhead_lab.adaptive.pitfalls import gradient2_drift
from bulkhead_lab.adaptive.pool import model_spec, pool_run
from bulkhead_lab.course.adaptive_limits.views import LESSON
from bulkhead_lab.course.ui.exercise import (
    Answer,
    Exercise,
    NotUnderstood,
    Wrong,
    read_number,
    read_whole,
    table,
)
from bulkhead_lab.pool.arrivals import EVENT, TRACKING
from bulkhead_lab.pool.params import LESSON_SPLIT, Params
from bulkhead_lab.pool.rounds import counters

MAX_TIMEOUT = 1_000_000  # rounds a learner may type (about 2.8 model hours)
READING = 1.0  # rounds: how far a value read off the figure may be from the baseline


@dataclass(frozen=True)
class TimeoutResult:
    """AIMD on both flows with one timeout, against 24/8, on the lesson's two days."""

    timeout: int
    healthy_tracking: int
    healthy_event: int
    slowdown_tracking: int
    slowdown_event: int
    fixed_healthy_tracking: int  # 24/8's: the healthy day and the slowdown's tracking are the bars to beat
    fixed_healthy_event: int
    fixed_slowdown_tracking: int
    fixed_slowdown_event: int

    @property
    def drops(self) -> tuple[int, int, int, int]:
        """AIMD's drops: healthy tracking and event, then slowdown tracking and event."""
        return (self.healthy_tracking, self.healthy_event, self.slowdown_tracking, self.slowdown_event)

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
    """Both days with AIMD's ``timeout`` (rounds) on both flows, beside 24/8's drops."""
    params = base.with_(split=None)
    specs = [model_spec("AIMD", flow, params, timeout=timeout) for flow in (TRACKING, EVENT)]
    aimd = [pool_run(params.with_(mode=m), *specs).counters for m in ("healthy", "slowdown")]
    fixed = [counters(params.with_(split=LESSON_SPLIT, mode=m)) for m in ("healthy", "slowdown")]
    return TimeoutResult(timeout, *(n for c in aimd + fixed for n in (c.tracking_dropped, c.event_dropped)))


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
    last, rows = timeout_candidates(base)[-1], {}
    for _, same in groupby((timeout_result(t, base) for t in timeout_candidates(base)), lambda r: r.drops):
        runs = list(same)
        first, to = runs[0].timeout, runs[-1].timeout
        shown = f"{first} or more" if to == last else f"{first}" if first == to else f"{first}-{to}"
        rows[shown] = [*runs[0].drops, runs[0].beats_24_8]
    columns = [f"{day} {flow} dropped" for day in ("healthy", "slowdown") for flow in ("tracking", "event")]
    return table("AIMD timeout (rounds)", [*columns, "beats 24/8"], rows)


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
    def into_slowdown(self) -> int:
        """Rounds from the failure to ``back_at``."""
        return self.back_at - self.start

    @property
    def threshold(self) -> float:
        """The baseline from which a slow call no longer shrinks the limit: the gradient is 1 there."""
        return self.slow / self.tolerance

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


def _one_number(answer: object, what: str) -> float:
    if isinstance(answer, str) and "/" in answer:
        raise NotUnderstood(f"{answer.strip()!r} looks like a split or a ratio; this asks for {what}.")
    return read_number(answer, what)


def _timeout(answer: object) -> int:
    what = "one AIMD timeout in whole rounds (100 rounds = 1 s)"
    return read_whole(_one_number(answer, what), 1, MAX_TIMEOUT, what)


def _why_1(a: Answer) -> str:
    working = working_timeouts()
    return (
        f"Any timeout from {working[0]} to {working[-1]} rounds beats 24/8; the largest is **{a.right}**. "
        f"AIMD sees a round trip only when it is over the timeout: over the event flow's normal "
        f"{LESSON.hold_event} rounds (and the tracking flow's {LESSON.hold_tracking}) and under the "
        f"slowdown's {LESSON.slow}, every slow call backs the event limit off by 0.9 and no normal call "
        f"does. The event limit falls to 1: slowdown tracking dropped {a.slowdown_tracking} against 24/8's "
        f"{a.fixed_slowdown_tracking}, and the healthy day keeps the single pool's sharing "
        f"({a.healthy_tracking} tracking, {a.healthy_event} event dropped; 24/8: "
        f"{a.fixed_healthy_tracking} and {a.fixed_healthy_event})."
    )


def _cost_1(a: Answer) -> str:
    slower = LESSON.with_(slow=a.right - 1)  # a slowdown just under the timeout
    missed = timeout_result(a.right, slower)
    return (
        f"What it costs: the event flow drops {a.slowdown_event} on the slowdown day (24/8: "
        f"{a.fixed_slowdown_event}), and the setting is a guess about the failure. A slowdown of "
        f"{slower.slow} rounds is under a {a.right}-round timeout: it never fires, and tracking drops "
        f"{missed.slowdown_tracking} (24/8 still {missed.fixed_slowdown_tracking}). The fixed wall needs no "
        "such guess. A larger timeout leaves more room for a normal day's slower calls, which real services "
        "have."
    )


def _why_2(a: Answer) -> str:
    return (
        f"Why: Gradient2's baseline is a long average of *every* round trip (600 samples' window), the slow "
        f"ones included. So it creeps from {LESSON.hold_event} towards {a.slow}. Each sample sets the limit "
        f"to L x gradient + {a.queue_size:g} (smoothed), with gradient = {a.tolerance:g} x baseline / "
        f"{a.slow}: it settles where L = {a.queue_size:g} / (1 - gradient), and that point rises as the "
        f"baseline does. It is {a.level} once the baseline reaches (1 - {a.queue_size:g}/{a.level}) x "
        f"{a.slow} / {a.tolerance:g} = {a.settling_baseline:.2f} rounds; the limit trails its settling "
        f"point a little (smoothing 0.2), so it gets there at {a.baseline:.1f}. From a baseline of "
        f"{a.threshold:.2f} (gradient 1) nothing holds the limit down at all. The slowdown has become the "
        "new normal: the limiter cannot tell a dependency that got slow from one that is slow."
    )


SLOWDOWN_1 = "slowdown tracking dropped {slowdown_tracking} (24/8: {fixed_slowdown_tracking})"

exercise_1 = Exercise(
    1,
    "Tune AIMD to beat 24/8",
    read=_timeout,
    right=largest_working_timeout,
    figures=lambda t: timeout_result(min(t, timeout_candidates()[-1])),
    right_says="{value} rounds; " + SLOWDOWN_1 + ", the healthy day no worse than 24/8's.",
    wrong=(
        Wrong(
            lambda a: a.beats_24_8,
            "{value} rounds beats 24/8 (" + SLOWDOWN_1 + "), but a longer timeout does too.",
        ),
        Wrong(
            lambda a: not a.keeps_the_healthy_day,
            "{value} rounds fires on normal calls too: the healthy day drops {healthy_tracking} tracking, "
            "{healthy_event} event (24/8: {fixed_healthy_tracking}, {fixed_healthy_event}).",
        ),
    ),
    otherwise="{value} rounds does not fire on the slow calls: " + SLOWDOWN_1 + ".",
    hint="in section 4's panel choose AIMD, move its timeout down from 500 and compare its row with 24/8's; "
    "or call exercises.timeout_result(timeout).",
    worked=(_why_1, _cost_1, lambda _: timeout_table()),
    placeholder="timeout in rounds",
)

exercise_2 = Exercise(
    2,
    "Explain the drift with one number",
    read=lambda a: _one_number(a, "the baseline in rounds (a round trip, like 6 or 22)"),
    right=lambda: drift_return().baseline,
    tolerance=READING,
    figures=lambda _: drift_return(),
    right_when=lambda a: a.is_(a.right) or a.is_(a.threshold, 0.1),
    right_says=lambda a: (
        f"back at {a.level} in round {a.back_at}, baseline {a.baseline:.1f} rounds: a {a.slow}-round call "
        f"now looks only {a.slow / a.baseline:.2f}x slow, and from {a.threshold:.1f} ({a.slow} / "
        f"{a.tolerance:g}) on it no longer shrinks the limit at all."
    ),
    wrong=(
        Wrong(
            lambda a: a.value >= a.start / 2,
            "{value:g} looks like a round; this asks for the baseline's value then.",
        ),
        Wrong(
            lambda a: a.is_(LESSON.hold_event),
            "{value:g} is the baseline before the failure, a normal call's round trip.",
        ),
        Wrong(
            lambda a: a.is_(a.slow), "{value:g} is where the baseline ends up, long after the limit is back."
        ),
    ),
    otherwise=(
        "{value:g} rounds is too high for the baseline at that round.",
        "{value:g} rounds is too low for the baseline at that round.",
    ),
    hint="in section 5.1's figure (length 3000, tolerance 1.5) read the green baseline where the "
    "vermillion band crosses the middle panel.",
    worked=(
        "The event limit is back at {level} in round {back_at}, {into_slowdown} rounds into the slowdown, "
        "with Gradient2's baseline at **{baseline:.1f} rounds**.",
        _why_2,
        lambda _: table(
            "tolerance",
            [
                "back at round",
                "rounds into the slowdown",
                "baseline then (rounds)",
                "settling point for the limit (rounds)",
            ],
            {
                t: [r.back_at, r.into_slowdown, round(r.baseline, 2), round(r.settling_baseline, 2)]
                for t in (1.0, 1.5, 2.0)
                for r in [drift_return(t)]
            },
        ),
    ),
    placeholder="baseline in rounds",
)
