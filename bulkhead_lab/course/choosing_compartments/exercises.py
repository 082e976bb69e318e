"""Notebook 08's exercises: predict, then run. Each right answer is computed by the package's models.

1. the wall's cost at a stricter target (section 1's slider); 2. which fleet shrinks a poison
tenant's blast radius more (section 2's sliders); 3. calls refused just after every caller timed
out (section 3's thread pool); 4. the slow-call threshold past which the breaker is blind
(section 4's slider); 5. which readings alert when the latency doubles at the busiest hour.
"""

from __future__ import annotations

import re
from functools import lru_cache

from bulkhead_lab import cache
from bulkhead_lab.compartments import isolation, shuffle
from bulkhead_lab.compartments.breaker import BreakerSettings, Layout, run_layout
from bulkhead_lab.course.choosing_compartments import views
from bulkhead_lab.course.ui.exercise import Exercise, Feedback, NotUnderstood, read_whole
from bulkhead_lab.pool.model import Params

# 1: the wall's cost at 0.1% instead of 1%
TARGET_1 = 0.001


def _judge_1(answer: object) -> Feedback:
    n = read_whole(answer, 0, 200, "the extra slots the wall costs")
    cost, lesson = isolation.equal_blocking(TARGET_1), isolation.equal_blocking()
    if n == cost.extra:
        return Feedback(
            True,
            f"Right: {cost.split_total} slots apart against {cost.together} together, "
            f"{cost.extra} more (at 1%: {lesson.extra}). Stricter targets cost more slots.",
        )
    if n == lesson.extra:
        return Feedback(False, f"Not yet: {n} is the cost at 1%; at 0.1% each pool needs more headroom.")
    if n in (cost.split_total, cost.together):
        return Feedback(False, f"Not yet: {n} is one layout's size; the cost is apart minus together.")
    return Feedback(False, f"Not yet: {n} is {'too many' if n > cost.extra else 'too few'}.")


exercise_1 = Exercise(
    1,
    "What the wall costs at 0.1%",
    judge=_judge_1,
    hint="the slots apart minus the slots together, both sized by Erlang-B for 0.1%; move the target slider.",
    answer=lambda: [views.cost_view(TARGET_1).sentence(), views.cost_by_target()],
    placeholder="extra slots",
)

# 2: 16 workers in shards of 2, or 8 workers in shards of 3?
FLEETS_2 = {"a": (16, 2), "b": (8, 3)}


def _read_fleet(answer: object) -> str:
    text = str(answer).strip().lower()
    if re.fullmatch(r"\(?a\)?|16.*|.*more workers.*|.*sixteen.*", text):
        return "a"
    if re.fullmatch(r"\(?b\)?|8.*|.*shards? of 3.*|.*bigger shards?.*|.*three.*", text):
        return "b"
    raise NotUnderstood(f"{answer!r} names neither (a) 16 workers in shards of 2 nor (b) 8 in shards of 3.")


def _smaller_2() -> str:
    share = {k: shuffle.overlap_shares(shuffle.Fleet(*v))[-1] for k, v in FLEETS_2.items()}
    return min(share, key=share.__getitem__)


def _judge_2(answer: object) -> Feedback:
    choice, right = _read_fleet(answer), _smaller_2()
    a, b = (views.shard_view(*FLEETS_2[k]) for k in ("a", "b"))
    said = (
        f"(a) leaves {a.deals[0].lose_every_worker:.2%} with no healthy worker ({a.deals[0].fleet.shards} "
        f"shards), (b) {b.deals[0].lose_every_worker:.2%} ({b.deals[0].fleet.shards} shards)."
    )
    if choice == right:
        return Feedback(True, f"Right: {said} More workers make more combinations than bigger shards do.")
    return Feedback(False, f"Not yet: {said}")


exercise_2 = Exercise(
    2,
    "More workers or bigger shards?",
    judge=_judge_2,
    hint="count the shards, C(workers, size): a poison tenant sinks one; set both fleets on the sliders.",
    answer=lambda: [views.shard_view(*FLEETS_2["a"]).sentence(), views.shard_view(*FLEETS_2["b"]).sentence()],
    placeholder="a or b",
)

# 3: four more calls, sent just after every caller of section 3's thread pool timed out
MORE_3 = 4


def refused_after_timeouts(settings: views.IsolationSettings = views.ISOLATION, more: int = MORE_3) -> int:
    """Calls refused by the pool when ``more`` arrive after the timeouts and before the latency ends:
    every thread is still in its call (a timeout frees the caller, not the thread)."""
    busy = min(settings.calls, settings.slots)
    return max(0, more - (settings.slots - busy))


def _judge_3(answer: object) -> Feedback:
    n = read_whole(answer, 0, MORE_3, f"how many of the {MORE_3} calls are refused")
    right = refused_after_timeouts()
    if n == right:
        return Feedback(
            True,
            f"Right: all {right}: the {views.ISOLATION.slots} threads are still in calls whose "
            "callers left; the semaphore would have admitted every one.",
        )
    if n == 0:
        return Feedback(
            False, "Not yet: that is the semaphore's answer; a timed-out caller frees a permit, not a thread."
        )
    return Feedback(
        False, f"Not yet: how many threads are free while the {views.ISOLATION.latency:g}-s calls run?"
    )


exercise_3 = Exercise(
    3,
    "After the timeouts",
    judge=_judge_3,
    hint="which slots does a timeout give back, in each isolation? Read 'held when all had answers'.",
    answer=lambda: [
        f"{refused_after_timeouts()} of {MORE_3}: every thread is busy until its call ends, "
        f"{views.ISOLATION.latency:g} s after it started, whatever its caller did at "
        f"{views.ISOLATION.timeout:g} s. Section 3's 'one more call then' column shows it."
    ],
    placeholder=f"refused, of {MORE_3}",
)

# 4: the smallest slow-call threshold at which the breaker never opens on the slowdown day
LAYOUT_4: Layout = "single pool + breaker"


@lru_cache(maxsize=1)
def blind_threshold() -> int:
    """The smallest ``slow_call`` (rounds) at which the single pool's breaker never opens that day."""
    day = Params(mode="slowdown")
    stream = cache.stream(day)
    blind = (
        t
        for t in range(1, 60)
        if run_layout(LAYOUT_4, day, BreakerSettings(slow_call=t), stream=stream).opens == 0
    )
    return next(blind)


def _judge_4(answer: object) -> Feedback:
    n = read_whole(answer, 1, 60, "a slow-call threshold in rounds")
    right = blind_threshold()
    if n == right:
        walled = views.breaker_runs(BreakerSettings(slow_call=right))[-1].counters.tracking_dropped
        return Feedback(
            True,
            f"Right: a call fails when it held its slot longer than the threshold; the slow calls hold "
            f"{right} rounds, so at {right} none is 'slow'. Behind the wall, tracking still drops {walled}.",
        )
    if n == right + 1:
        return Feedback(
            False, f"Not yet: {n} is blind too, but so is a smaller one: 'longer than', not 'as long as'."
        )
    return Feedback(
        False, f"Not yet: at {n} rounds the breaker {'is blind' if n > right else 'still opens'}."
    )


exercise_4 = Exercise(
    4,
    "A breaker that cannot see",
    judge=_judge_4,
    hint="lesson 000's slow events hold their slots 22 rounds; move 'slow call' and watch 'times opened'.",
    answer=lambda: [
        f"{blind_threshold()} rounds. The table at that threshold:",
        views.breaker_table(views.breaker_runs(BreakerSettings(slow_call=blind_threshold()))),
    ],
    placeholder="rounds",
)

# 5: which readings alert at the busiest hour with the event latency doubled
HOUR_5, SLOWER_5 = 15, 2.0
READINGS = ("saturation", "refusals", "queue wait", "SLO burn")
_WORDS = {
    "saturation": r"satur|full",
    "refusals": r"refus|reject",
    "queue wait": r"wait|queue",
    "SLO burn": r"burn|slo|budget",
}


def _read_alerts(answer: object) -> tuple[str, ...]:
    text = str(answer).lower()
    found = tuple(name for name in READINGS if re.search(_WORDS[name], text))
    if not found and not re.search(r"\bnone\b|nothing", text):
        raise NotUnderstood(f"{answer!r} names none of {', '.join(READINGS)} (or 'none').")
    return found


def _judge_5(answer: object) -> Feedback:
    said, r = set(_read_alerts(answer)), views.hour_readings(HOUR_5, SLOWER_5)
    right = set(r.firing(views.SLO))
    numbers = (
        f"saturation {r.saturation:.0%}, refusals {r.refusal_ratio:.1%}, p99 wait "
        f"{1000 * r.p99_wait:.0f} ms, burn {r.burn:.1f}"
    )
    if said == right:
        return Feedback(True, f"Right: {', '.join(sorted(right))} ({numbers}).")
    missing, extra = sorted(right - said), sorted(said - right)
    why = "; ".join(
        p
        for p in (
            f"missing {', '.join(missing)}" if missing else "",
            f"not {', '.join(extra)}" if extra else "",
        )
        if p
    )
    return Feedback(False, f"Not yet: {why}. Check with views.watched_hour({HOUR_5}, {SLOWER_5:g}).")


def _worked_5() -> str:
    r = views.hour_readings(HOUR_5, SLOWER_5)
    return (
        f"{', '.join(r.firing(views.SLO))}: twice the latency is twice the calls in flight, so "
        f"{r.refusal_ratio:.1%} are refused and the budget burns {r.burn:.1f} times too fast; the "
        f"compartment is full {r.saturation:.0%} of the time, under the alert's half, and its queue "
        f"wait ({1000 * r.p99_wait:.0f} ms at p99) stays short."
    )


exercise_5 = Exercise(
    5,
    "Which alerts fire?",
    judge=_judge_5,
    hint="twice the latency is twice the load in flight (Little's Law), in the same places as before.",
    answer=lambda: [_worked_5(), views.watched_hour(HOUR_5, SLOWER_5)],
    placeholder="e.g. refusals, SLO burn",
)
