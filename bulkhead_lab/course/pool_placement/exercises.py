"""Notebook 03's exercises: a skipped call site's peak, the least a small pool costs, twice the shared slots.

Each right answer is computed by the package's rules (:func:`.views.expected_notification_peak`,
:func:`~bulkhead_lab.live.placement.batch.ideal_ms`, :func:`.views.expected_catalog_before`), the
rules the lesson's tables follow; the worked answers of exercises 1 and 3 then run one live
batch at the exercise's settings, so the learner sees the dependency count it. Checkers are
:class:`~bulkhead_lab.course.ui.exercise.Exercise` objects: anything typed gets one line back.
"""

from __future__ import annotations

import math

from bulkhead_lab.course.pool_placement import views
from bulkhead_lab.course.ui.exercise import Exercise, Feedback, read_number, read_whole
from bulkhead_lab.live.placement.batch import CALLS, CATALOG_LATENCY, NOTIFICATION_LATENCY, ideal_ms

SLOW_MS = round(NOTIFICATION_LATENCY * 1000)

# Exercise 1: pool per dependency 4 / 4, and 6 notification call sites that pass no pool.
NOTIF_1, CAT_1, SKIP_1 = 4, 4, 6
# Exercise 2: a notification pool of 2 slots (catalog keeps 4), no call site skipped.
NOTIF_2, CAT_2 = 2, 4
# Exercise 3: "twice the slots": one shared pool of 16 (the lesson's 8 + 8) instead of 4 / 4.
SHARED_3 = 16


HINT_1 = (
    "the pool lets its slots through; what does a call site that passes no pool add? Section 4's row "
    "is 4 + 8; try 'skipped call sites' = 6 in section 7's panel."
)
HINT_2 = (
    "calls go through a pool in waves of as many calls as it has slots; each wave lasts one call "
    "(300 ms). Section 3's 'ideal' table works the lesson's rows."
)
HINT_3 = (
    "who starts first, and how many calls does notification bring? Try 'single shared pool' with "
    "'shared pool slots' = 16 in section 7's panel and read 'catalog done before'."
)


def _not_yet(message: str, hint: str) -> Feedback:
    return Feedback(False, f"Not yet: {message} Hint: {hint}")


# --- exercise 1: the peak a skipped call site leaves -----------------------------------------


def peak_1() -> int:
    """The notification peak for pool per dependency 4 / 4 with 6 skipped call sites: 4 + 6."""
    return views.expected_notification_peak("separate", NOTIF_1, CAT_1, SKIP_1)


def _judge_1(answer: object) -> Feedback:
    n = read_whole(answer, 0, 10 * CALLS, "a number of concurrent notification calls")
    right = peak_1()
    if n == right:
        return Feedback(
            True,
            f"Right: the pool lets {NOTIF_1} through at once, the {SKIP_1} skipped call "
            f"sites add their own connections: {NOTIF_1} + {SKIP_1} = {right}.",
        )
    if n == NOTIF_1:
        return _not_yet(f"{n} is what the pool says; the dependency sees more than that.", HINT_1)
    if n == SKIP_1:
        return _not_yet(f"{n} counts only the skipped call sites; the pool's calls run too.", HINT_1)
    side = "too many" if n > right else "too few"
    return _not_yet(f"{n} is {side}.", HINT_1)


def _answer_1() -> list[object]:
    right = peak_1()
    result = views.run("separate", NOTIF_1, CAT_1, SKIP_1)
    return [
        f"**{NOTIF_1} + {SKIP_1} = {right}.** The pool holds its {NOTIF_1} slots; each skipped call site "
        "opens a connection of its own and never asks the pool, so the dependency sees both at once. "
        "Nothing in the pool's configuration says so: it still reads 4.",
        f"A live batch at these settings, just now: {views.batch_facts(result)}.",
    ]


exercise_1 = Exercise(
    1,
    "The peak a skipped call site leaves",
    judge=_judge_1,
    hint=HINT_1,
    answer=_answer_1,
    placeholder="notification peak",
)


# --- exercise 2: the least a small pool costs ------------------------------------------------


def least_ms_2() -> int:
    """The shortest a batch can take with 2 notification slots: ceil(40 / 2) x 300 ms."""
    return round(ideal_ms("separate", NOTIF_2, CAT_2))


def _judge_2(answer: object) -> Feedback:
    value = read_number(answer, "a duration in ms")
    right = least_ms_2()
    if value == right or (value < 100 and math.isclose(value * 1000, right)):
        return Feedback(
            True,
            f"Right: ceil({CALLS} / {NOTIF_2}) = {math.ceil(CALLS / NOTIF_2)} waves "
            f"x {SLOW_MS} ms = {right} ms at least.",
        )
    if value == round(ideal_ms("separate", CAT_2, CAT_2)):
        return _not_yet(f"{value:g} ms is what {CAT_2} slots need; {NOTIF_2} need more waves.", HINT_2)
    side = "more than the waves need" if value > right else "too short for forty calls"
    return _not_yet(f"{value:g} ms is {side}.", HINT_2)


def _answer_2() -> list[object]:
    right = least_ms_2()
    n = math.ceil(CALLS / NOTIF_2)
    return [
        f"**{right} ms.** Two slots send the forty notification calls in ceil({CALLS} / {NOTIF_2}) = {n} "
        f"waves of two, each {SLOW_MS} ms: {n} x {SLOW_MS} = {right} ms. Catalog's four slots finish its "
        f"forty calls in ceil({CALLS} / {CAT_2}) x {round(CATALOG_LATENCY * 1000)} ms alongside, so "
        "notification decides. A live batch takes a little longer (connections, scheduling), never less: "
        f"set 'notification slots' to {NOTIF_2} in section 7's panel and read 'duration ms' beside "
        "'ideal ms'.",
        views.ideal_worked("separate", NOTIF_2, CAT_2),
    ]


exercise_2 = Exercise(
    2,
    "The least a small pool costs",
    judge=_judge_2,
    hint=HINT_2,
    answer=_answer_2,
    placeholder="ms",
)


# --- exercise 3: twice the slots, shared -----------------------------------------------------


def catalog_before_3() -> int:
    """Catalog calls done before the first notification answer under one shared pool of 16."""
    return views.expected_catalog_before("single", SHARED_3 // 2, SHARED_3 // 2)


def _judge_3(answer: object) -> Feedback:
    n = read_whole(answer, 0, CALLS, f"a number of catalog calls, 0..{CALLS}")
    right = catalog_before_3()
    if n == right:
        return Feedback(
            True,
            f"Right: {right} / {CALLS}. Forty notification calls take all {SHARED_3} "
            "slots the moment the batch starts; catalog waits for the first answer.",
        )
    return _not_yet(
        f"{n} / {CALLS} would need a slot catalog gets before notification's first answer.", HINT_3
    )


def _answer_3() -> list[object]:
    right = catalog_before_3()
    result = views.run("single", SHARED_3 - SHARED_3 // 2, SHARED_3 // 2)
    separate = views.expected_catalog_before("separate", 4, 4)
    return [
        f"**{right} / {CALLS}.** The notification calls start first and there are {CALLS} of them: they take "
        f"all {SHARED_3} slots, so catalog, which answers in 5 ms, waits for the first 300-ms answer just "
        f"as it did with 8. More shared slots do not help while the slow stream has more calls than "
        f"slots; four slots of catalog's own do ({separate} / {CALLS}).",
        f"A live batch at these settings, just now: {views.batch_facts(result)}.",
    ]


exercise_3 = Exercise(
    3,
    "Twice the slots, shared",
    judge=_judge_3,
    hint=HINT_3,
    answer=_answer_3,
    placeholder="catalog calls",
)
