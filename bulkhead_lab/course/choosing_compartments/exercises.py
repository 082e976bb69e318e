"""Notebook 08's exercises, one per section: predict, then run; and a shuffle shard of the learner's own,
judged by its contract over generated fleets and deals (:mod:`bulkhead_lab.course.judges.shuffle_shard`).
Each right answer is computed by the package's models."""

from __future__ import annotations

import math
import re

from bulkhead_lab.compartments import breaker, hours, isolation_cost, production, shuffle
from bulkhead_lab.compartments.breaker import BreakerSettings
from bulkhead_lab.course.choosing_compartments import views
from bulkhead_lab.course.judges import shuffle_shard
from bulkhead_lab.course.ui import exercise as ui
from bulkhead_lab.course.ui.exercise import Answer, Exercise, NotUnderstood, Wrong, read_choice, read_whole

# 1: the wall's cost at 0.1% instead of 1%
TARGET_1 = 0.001


def _cost_1(_: object) -> dict[str, int]:
    cost, lesson = isolation_cost.equal_blocking(TARGET_1), isolation_cost.equal_blocking()
    return {"apart": cost.split_total, "together": cost.together, "at_1": lesson.extra}


exercise_1 = Exercise(
    1,
    "What the wall costs at 0.1%",
    read=lambda a: read_whole(a, 0, 200, "the extra slots the wall costs"),
    right=lambda: isolation_cost.equal_blocking(TARGET_1).extra,
    figures=_cost_1,
    right_says="{apart} slots apart against {together} together, {right} more (at 1%: {at_1}). Stricter "
    "targets cost more slots.",
    wrong=(
        Wrong(lambda a: a.is_(a.at_1), "{value} is the cost at 1%; at 0.1% each pool needs more headroom."),
        Wrong(
            lambda a: a.value in (a.apart, a.together),
            "{value} is one layout's size; the cost is apart minus together.",
        ),
    ),
    hint="the slots apart minus the slots together, both sized by Erlang-B for 0.1%; move the target slider.",
    worked=(lambda a: views.cost_view(TARGET_1).sentence(), lambda a: views.cost_by_target()),
    placeholder="extra slots",
)

# 2: from 16 workers in pairs, double the fleet (32 in pairs) or widen the shard (16 in shards of 3)?
FLEETS_2 = {"a": (32, 2), "b": (16, 3)}
FLEET_WORDS = (
    *((word, "a") for word in ("(a)", "32", "thirty", "more workers", "double")),
    *((word, "b") for word in ("(b)", "of 3", "bigger", "wider", "three")),
)


def _read_fleet(answer: object) -> str:
    text = answer.strip().lower() if isinstance(answer, str) else ""
    if text in ("a", "b"):
        return text
    return read_choice(answer, FLEET_WORDS, "(a) 32 workers in pairs, or (b) 16 workers in shards of 3")


def _none_left(fleet: str) -> float:
    """The share of other tenants a poison tenant leaves with no healthy worker, by the formula."""
    return shuffle.overlap_shares(shuffle.Fleet(*FLEETS_2[fleet]))[-1]


def _fleets_2(_: object) -> dict[str, object]:
    (na, ka), (nb, kb) = FLEETS_2["a"], FLEETS_2["b"]
    some = {k: 1 - shuffle.overlap_shares(shuffle.Fleet(*v))[0] for k, v in FLEETS_2.items()}
    return {
        "a": f"C({na}, {ka}) = {math.comb(na, ka)}",
        "b": f"C({nb}, {kb}) = {math.comb(nb, kb)}",
        "none_a": _none_left("a"),
        "none_b": _none_left("b"),
        "some_a": some["a"],
        "some_b": some["b"],
        "times": f"({nb} - {ka}) / ({ka} + 1) = {(nb - ka) / (ka + 1):.2f}",
        "double": f"{math.comb(na, ka) / math.comb(nb, ka):.2f}",
    }


def _sentence_2(fleet: str) -> str:
    return f"({fleet}) " + views.shard_view(*FLEETS_2[fleet]).sentence()


exercise_2 = Exercise(
    2,
    "More workers or bigger shards?",
    read=_read_fleet,
    right=lambda: min(FLEETS_2, key=_none_left),
    figures=_fleets_2,
    right_says="(b) makes {b} shards, (a) {a}: one poison tenant leaves {none_b:.2%} of the others with no "
    "healthy worker, against {none_a:.2%}. One more worker per shard multiplies the count by {times}; "
    "doubling the fleet, by {double}. It costs no hardware, but widens each tenant's blast: {some_b:.0%} "
    "of the others lose a worker, against {some_a:.0%}.",
    otherwise="(a) makes {a} shards, (b) {b}: one poison tenant leaves {none_a:.2%} of the others with no "
    "healthy worker under (a), {none_b:.2%} under (b). Count C(workers, size), not the workers.",
    hint="count the shards, C(workers, size): a poison tenant sinks one; set both fleets on the sliders.",
    worked=(lambda a: _sentence_2("a"), lambda a: _sentence_2("b"), lambda a: views.shard_counts()),
    placeholder="a or b",
)

# 3: four more calls, sent just after every caller of section 3's thread pool timed out
MORE_3 = 4


def refused_after_timeouts() -> int:
    """Calls the pool refuses when :data:`MORE_3` arrive after the timeouts and before the latency ends:
    every thread is still in its call (a timeout frees the caller, not the thread)."""
    s = views.ISOLATION
    return max(0, MORE_3 - (s.slots - min(s.calls, s.slots)))


POOL_3 = {name: getattr(views.ISOLATION, name) for name in ("slots", "latency", "timeout")}

exercise_3 = Exercise(
    3,
    "After the timeouts",
    read=lambda a: read_whole(a, 0, MORE_3, f"how many of the {MORE_3} calls are refused"),
    right=refused_after_timeouts,
    figures=lambda _: POOL_3,
    right_says="all {right}: the {slots} threads are still in calls whose callers left; the semaphore would "
    "have admitted every one.",
    wrong=(
        Wrong(
            lambda a: a.value == 0,
            "that is the semaphore's answer; a timed-out caller frees a permit, not a thread.",
        ),
    ),
    otherwise="how many threads are free while the {latency:g}-s calls run?",
    hint="which slots does a timeout give back, in each isolation? Read 'held when all had answers'.",
    worked=(
        "{right} of " + str(MORE_3) + ": each thread is in its call for the whole {latency:g} s, whatever "
        "its caller did at {timeout:g} s (section 3's 'one more call then' column).",
    ),
    placeholder=f"refused, of {MORE_3}",
)

# 4: the smallest slow-call threshold at which the breaker never opens on the slowdown day


def _walled_4(_: object) -> dict[str, int]:
    runs = breaker.day_runs(BreakerSettings(slow_call=breaker.blind_threshold()))
    return {"walled": runs[-1].counters.tracking_dropped}


exercise_4 = Exercise(
    4,
    "A breaker that cannot see",
    read=lambda a: read_whole(a, 1, 60, "a slow-call threshold in rounds"),
    right=lambda: breaker.blind_threshold(),
    figures=_walled_4,
    right_says="a call fails when it held its slot longer than the threshold; the slow calls hold {right} "
    "rounds, so at {right} none is 'slow'. Behind the wall, tracking still drops {walled}.",
    wrong=(
        Wrong(
            lambda a: a.value == a.right + 1,
            "{value} is blind too, but so is a smaller one: 'longer than', not 'as long as'.",
        ),
    ),
    otherwise=(
        "at {value} rounds the breaker is blind, but so it is at fewer.",
        "at {value} rounds the breaker still opens.",
    ),
    hint="lesson 000's slow events hold their slots 22 rounds; move 'slow call' and watch 'times opened'.",
    worked=(
        "{right} rounds. The table at that threshold:",
        lambda a: views.breaker_table(breaker.day_runs(BreakerSettings(slow_call=a.right))),
    ),
    placeholder="rounds",
)

# 5: which alerts are on at the end of the busiest hour, its event latency doubled all hour
HOUR_5, SLOWER_5 = 15, 2.0
_WORDS = {  # each reading that may alert, and what a learner may type for it
    "saturation": r"satur|full",
    "refusals": r"refus|reject",
    "queue wait": r"wait|queue",
    "SLO burn": r"burn|slo|budget|page",
}
READINGS = tuple(_WORDS)


def _read_alerts(answer: object) -> tuple[str, ...]:
    text = answer.lower() if isinstance(answer, str) else ""
    found = tuple(name for name in READINGS if re.search(_WORDS[name], text))
    if not found and not re.search(r"\bnone\b|nothing", text):
        raise NotUnderstood(f"{answer!r} names none of {', '.join(READINGS)} (or 'none').")
    return found


def _hour_5() -> hours.HourRun:
    return production.event_hour(HOUR_5, SLOWER_5, production.MINUTES)


def _firing_5() -> tuple[str, ...]:
    return _hour_5().firing(views.ALERTS)


def _readings_5(_: object) -> dict[str, object]:
    run, alerts = _hour_5(), views.ALERTS
    return {
        "r": run.readings(),
        "wait": 1000 * run.readings().p99_wait,
        "line": 1000 * alerts.wait_share * views.SLO.latency,
        "short": run.burn(alerts.short_window),
        "long": run.burn(alerts.long_window),
        "page": alerts.burn,
        "fired": ", ".join(_firing_5()) or "none",
    }


def _differs_5(a: Answer) -> str:
    said, right = set(a.value), set(a.right)
    gaps = (("missing", right - said), ("not", said - right))
    parts = [f"{word} {', '.join(sorted(names))}" for word, names in gaps if names]
    return "; ".join(parts) + f". Check with views.watched_hour({HOUR_5}, {SLOWER_5:g})."


exercise_5 = Exercise(
    5,
    "Which alerts fire?",
    read=_read_alerts,
    right=_firing_5,
    right_when=lambda a: set(a.value) == set(a.right),
    figures=_readings_5,
    right_says="{fired} (last 5 minutes: saturation {r.saturation:.0%}, refusals {r.refusal_ratio:.1%}, p99 "
    "wait {wait:.0f} ms; burn {short:.1f} over 5 minutes and {long:.1f} over the hour, under the page's "
    "{page:g}).",
    otherwise=_differs_5,
    hint="twice the latency is twice the calls in flight (Little's Law), in the same places and waiting "
    "places as before; compare each reading with its line.",
    worked=(
        "{fired}. Twice the latency is twice the calls in flight, so {r.refusal_ratio:.1%} of the last 5 "
        "minutes' calls are refused (the line: 1%); the compartment is full {r.saturation:.0%} of the time "
        "(the line: half) and its p99 wait is {wait:.0f} ms (the line: {line:.0f} ms). The budget burns "
        "{long:.1f} times too fast over the hour: not the page's {page:g}, so nobody is woken yet; the "
        "workbook's slower page (6 over 6 hours and 30 minutes) is the line for a burn like this, once it "
        "has lasted some hours.",
        lambda a: views.watched_hour(HOUR_5, SLOWER_5),
    ),
    placeholder="e.g. refusals, SLO burn",
)

# 6: write the shuffle shard: its contract over generated fleets, tenants and seeds

exercise_6 = write_shuffle_shard = Exercise(
    6,
    "Write the shuffle shard",
    read=ui.judged(shuffle_shard.check, "function"),
    hint="seed a random.Random with the seed and the tenant (numbers, or a string made of them, never "
    "hash() of a string: Python salts it per process), and sample size workers of range(workers): sample "
    "never repeats one, and each tenant gets its own combination (section 2's cell).",
    worked=(
        "**The course's own shard** (section 2's cell, `bulkhead_lab.compartments.shuffle`):",
        ui.source(shuffle.shuffle_shard),
    ),
    placeholder="your function's name",
    typed="my_shard",
)
