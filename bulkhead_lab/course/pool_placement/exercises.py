"""Notebook 03's exercises: a skipped call site's peak, the least a small pool costs, twice the shared slots,
and a pool per dependency of the learner's own (judged by its contract over generated services, then one
live batch: :mod:`bulkhead_lab.course.judges.pool_per_dependency`).

Exercises 1 and 2 are predict-then-run: the check reads the prediction, runs the batch live at its
settings and puts the two side by side. Each right answer comes from the rules the lesson's tables
follow (:mod:`bulkhead_lab.live.placement.lesson`, :func:`~bulkhead_lab.live.placement.batch.ideal_ms`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from bulkhead_lab.course.judges import pool_per_dependency as judge
from bulkhead_lab.course.pool_placement import views
from bulkhead_lab.course.ui import exercise as ui
from bulkhead_lab.course.ui.exercise import Answer, Exercise, NotUnderstood, Wrong, read_duration, read_whole
from bulkhead_lab.live.placement.batch import CALLS, CATALOG_LATENCY, NOTIFICATION_LATENCY, ideal_ms

SLOW_MS = round(NOTIFICATION_LATENCY * 1000)
NOTIF_1, CAT_1, SKIP_1 = 4, 4, 6  # exercise 1: pool per dependency 4 / 4, 6 call sites pass no pool
NOTIF_2, CAT_2 = 2, 4  # exercise 2: a notification pool of 2 slots (catalog keeps 4), none skipped
SHARED_3 = 16  # exercise 3: "twice the slots": one shared pool of 16 (the lesson's 8 + 8) instead of 4 / 4


def peak_1() -> int:
    """The notification peak for pool per dependency 4 / 4 with 6 skipped call sites: 4 + 6."""
    return views.expected_notification_peak("separate", NOTIF_1, CAT_1, SKIP_1)


def least_ms_2() -> int:
    """The shortest a batch can take with 2 notification slots: ceil(40 / 2) x 300 ms."""
    return round(ideal_ms("separate", NOTIF_2, CAT_2))


def catalog_before_3() -> int:
    """Catalog calls done before the first notification answer under one shared pool of 16."""
    return views.expected_catalog_before("single", SHARED_3 // 2, SHARED_3 // 2)


def _live(*settings: object) -> Callable[[object], str]:
    """A worked answer's last part: one live batch at the exercise's settings, run when shown."""
    return lambda _: f"A live batch at these settings, just now: {views.batch_facts(views.run(*settings))}."


@dataclass(frozen=True)
class Predicted:
    """Exercise 1: the learner's prediction, and the peak a live batch at its settings counted."""

    predicted: int
    counted: int


def _predict_and_run_1(answer: object) -> Predicted:
    """Read the prediction first (a bad one runs nothing), then run the batch and read its count."""
    predicted = read_whole(answer, 0, 10 * CALLS, "a number of concurrent notification calls")
    return Predicted(predicted, views.run("separate", NOTIF_1, CAT_1, SKIP_1).notification)


exercise_1 = Exercise(
    1,
    "The peak a skipped call site leaves",
    read=_predict_and_run_1,
    right=peak_1,
    right_when=lambda a: a.value.predicted == a.value.counted,
    figures=lambda _: {"notif": NOTIF_1, "skip": SKIP_1},
    right_says="you predicted {value.predicted}, and the batch just run counted {value.counted}: the pool "
    "lets {notif} through at once, and the {skip} skipped call sites add their own connections.",
    wrong=(
        Wrong(
            lambda a: a.value.predicted == NOTIF_1,
            "you predicted {value.predicted}, what the pool says; the batch just run counted "
            "{value.counted}. Where do the others come from?",
        ),
        Wrong(
            lambda a: a.value.predicted == SKIP_1,
            "you predicted {value.predicted}, the skipped call sites alone; the batch just run counted "
            "{value.counted}. The pool's calls run too.",
        ),
    ),
    otherwise="you predicted {value.predicted}; the batch just run counted {value.counted}.",
    hint="the pool lets its slots through; what does a call site that passes no pool add? Section 4's row "
    "is 4 + 8; try 'skipped call sites' = 6 in section 7's panel.",
    worked=(
        "**{notif} + {skip} = {right}.** The pool holds its {notif} slots; each skipped call site opens a "
        "connection of its own and never asks the pool, so the dependency sees both at once. Nothing in the "
        "pool's configuration says so: it still reads 4.",
        _live("separate", NOTIF_1, CAT_1, SKIP_1),
    ),
    placeholder="notification peak",
)


@dataclass(frozen=True)
class Timed:
    """Exercise 2: the learner's prediction (ms), and what a live batch at its settings took and counted."""

    predicted: float
    took: float  # ms, measured
    peak: int  # the notification dependency's count


def _predict_and_run_2(answer: object) -> Timed:
    """Read the prediction first (a bad one runs nothing), then run the batch and time it."""
    predicted = read_duration(answer, "ms", "a duration in ms")
    if not 0 < predicted <= 60_000:  # a minute: ten times the answer
        raise NotUnderstood(
            f"{predicted:g} ms is no batch's duration here: predict one above 0, under a minute."
        )
    r = views.run("separate", NOTIF_2, CAT_2)
    return Timed(predicted, r.duration_ms, r.notification)


def _beside_the_run_2(a: Answer) -> str:
    """A wrong prediction beside the batch just run: longer than a low one, shorter than a high one."""
    t = a.value
    if t.predicted < a.right:
        return (
            f"you predicted {t.predicted:g} ms; the batch just run took longer than that: the dependency "
            f"counted at most {t.peak} at once."
        )
    if t.took < t.predicted:
        return f"you predicted {t.predicted:g} ms; the batch just run took less than that: count the waves."
    return (
        f"you predicted {t.predicted:g} ms, near the batch just run ({t.took:.0f} ms); the least is what the "
        "waves alone take, before connections and scheduling add their few milliseconds."
    )


exercise_2 = Exercise(
    2,
    "The least a small pool costs",
    read=_predict_and_run_2,
    right=least_ms_2,
    right_when=lambda a: abs(a.value.predicted - a.right) < 1e-6 and a.value.took >= a.right,
    unit="ms",
    figures=lambda _: (
        dict(calls=CALLS, notif=NOTIF_2, cat=CAT_2, waves=math.ceil(CALLS / NOTIF_2), slow=SLOW_MS)
        | dict(cat_slots_ms=round(ideal_ms("separate", CAT_2, CAT_2)), cat_ms=round(CATALOG_LATENCY * 1000))
    ),
    right_says="ceil({calls} / {notif}) = {waves} waves x {slow} ms = {right} ms at least, and the batch "
    "just run took no less, the dependency counting {value.peak} at once.",
    wrong=(
        Wrong(
            lambda a: abs(a.value.predicted - a.cat_slots_ms) < 1e-6,
            "you predicted {value.predicted:g} ms, what {cat} slots need; the batch just run took longer: "
            "{notif} slots need more waves.",
        ),
    ),
    otherwise=_beside_the_run_2,
    hint="calls go through a pool in waves of as many calls as it has slots; each wave lasts one call "
    "(300 ms). Section 3's 'ideal' table works the lesson's rows.",
    worked=(
        "**{right} ms.** Two slots send the forty notification calls in ceil({calls} / {notif}) = {waves} "
        "waves of two, each {slow} ms: {waves} x {slow} = {right} ms. Catalog's four slots finish its forty "
        "calls in ceil({calls} / {cat}) x {cat_ms} ms alongside, so notification decides. A live batch takes "
        "a little longer (connections, scheduling), never less: set 'notification slots' to {notif} in "
        "section 7's panel and read 'duration ms' beside 'ideal ms'.",
        lambda _: views.ideal_worked("separate", NOTIF_2, CAT_2),
    ),
    placeholder="ms",
)

exercise_3 = Exercise(
    3,
    "Twice the slots, shared",
    read=lambda a: read_whole(a, 0, CALLS, f"a number of catalog calls, 0..{CALLS}"),
    right=catalog_before_3,
    figures=lambda _: dict(calls=CALLS, shared=SHARED_3, own=views.expected_catalog_before("separate", 4, 4)),
    right_says="{right} / {calls}. Forty notification calls take all {shared} slots the moment the batch "
    "starts; catalog waits for the first answer.",
    otherwise="{value} / {calls} would need a slot catalog gets before notification's first answer.",
    hint="who starts first, and how many calls does notification bring? Try 'single shared pool' with "
    "'shared pool slots' = 16 in section 7's panel and read 'catalog done before'.",
    worked=(
        "**{right} / {calls}.** The notification calls start first and there are {calls} of them: they take "
        "all {shared} slots, so catalog, which answers in 5 ms, waits for the first 300-ms answer just as it "
        "did with 8. More shared slots do not help while the slow stream has more calls than slots; four "
        "slots of catalog's own do ({own} / {calls}).",
        _live("single", SHARED_3 - SHARED_3 // 2, SHARED_3 // 2),
    ),
    placeholder="catalog calls",
)


#: ``pool(n)`` for a replay in a cell: the pools it makes say their number and slots (``.made`` lists them).
toy_pool = judge.toy_pool


exercise_4 = write_pool_per_dependency = Exercise(
    4,
    "Write the pool per dependency",
    read=ui.judged(lambda make: judge.check(judge.a_maker(make)), "function"),
    hint="make one pool per dependency, of its own limit, once, before pool_for is returned (a dict "
    "{dependency: pool(slots)}); pool_for only looks its dependency's pool up, for every call site.",
    worked=(
        "**The course's own** (`pool_for_each`; section 2's `pools()` does it for two ports):",
        ui.source(judge.pool_for_each),
    ),
    placeholder="your function's name",
    typed="my_pool_for",
)
