"""Notebook 05, exercise 3: an AIMD limiter of the learner's own, judged against the course's AIMDLimit
over the stated boundaries and generated sample sequences (bulkhead_lab.course.judges.aimd)."""

from writes import Candidates, changed

RIGHT = """class MyAIMD:
    def __init__(self, initial, min_limit, max_limit):
        self.limit, self.min_limit, self.max_limit = initial, min_limit, max_limit

    def on_sample(self, rtt, inflight, dropped):
        if dropped or rtt > 500:
            self.limit = int(self.limit * 0.9)
        elif inflight * 2 >= self.limit:
            self.limit += 1
        self.limit = min(self.max_limit, max(self.min_limit, self.limit))
        return self.limit
"""

NUMPY = """import numpy as np


class MyAIMD:
    def __init__(self, initial, min_limit, max_limit):
        self.bounds = np.array([min_limit, max_limit], dtype=np.int64)
        self.now = np.int64(initial)

    def on_sample(self, rtt, inflight, dropped):
        lost = bool(dropped) or rtt > 500
        busy = np.int64(inflight) * 2 >= self.now
        if lost:
            self.now = np.int64(np.floor(self.now * 0.9))
        elif busy:
            self.now = self.now + 1
        self.now = np.clip(self.now, *self.bounds)
        return self.now  # a numpy integer: a number all the same
"""

INTEGERS = """class MyAIMD:
    __slots__ = ("limit", "low", "high")

    def __init__(self, limit, low, high):
        self.limit, self.low, self.high = limit, low, high

    def on_sample(self, rtt, inflight, dropped):
        if dropped or rtt > 500:
            new = self.limit * 9 // 10  # integer arithmetic: the same as int(limit * 0.9)
        elif inflight >= (self.limit + 1) // 2:  # half, rounded up
            new = self.limit + 1
        else:
            new = self.limit
        self.limit = sorted((self.low, new, self.high))[1]
        return self.limit
"""

CLOSURE = """import math
from types import SimpleNamespace


def MyAIMD(initial, min_limit, max_limit):
    limit = initial

    def on_sample(rtt, inflight, dropped=False):
        nonlocal limit
        loss = dropped or rtt > 500
        grow = not loss and 2 * inflight >= limit
        limit = math.floor(limit * 0.9) if loss else limit + grow
        limit = max(min_limit, min(limit, max_limit))
        return limit

    return SimpleNamespace(on_sample=on_sample)
"""

HISTORY = """class MyAIMD:
    TIMEOUT_MS = 500
    BACKOFF = 0.9

    def __init__(self, initial, min_limit, max_limit):
        self.history = [initial]  # every limit so far, the current one last
        self.floor, self.ceiling = min_limit, max_limit

    @property
    def limit(self):
        return self.history[-1]

    def on_sample(self, rtt, inflight, dropped=False):
        limit = self.limit
        if dropped or rtt > self.TIMEOUT_MS:
            limit = float(int(limit * self.BACKOFF))  # a float, whole: 19.0 is the limit 19
        elif inflight / limit >= 0.5:
            limit += 1.0
        if limit > self.ceiling:
            limit = self.ceiling
        if limit < self.floor:
            limit = self.floor
        self.history.append(limit)
        return limit
"""

AT_500 = RIGHT.replace("rtt > 500", "rtt >= 500")
STRICT_HALF = RIGHT.replace("inflight * 2 >= self.limit", "inflight > self.limit / 2")
FLOOR_HALF = RIGHT.replace("inflight * 2 >= self.limit", "inflight >= self.limit // 2")
FULL_NOT_HALF = RIGHT.replace("inflight * 2 >= self.limit", "inflight >= self.limit")
ROUNDED = RIGHT.replace("int(self.limit * 0.9)", "round(self.limit * 0.9)")
ROUNDED_UP = RIGHT.replace("int(self.limit * 0.9)", "self.limit - self.limit // 10")
SECONDS = RIGHT.replace("rtt > 500", "rtt > 0.5")
NO_MIN = RIGHT.replace("max(self.min_limit, self.limit)", "self.limit")
NO_MAX = changed(
    RIGHT, ("min(self.max_limit, max(self.min_limit, self.limit))", "max(self.min_limit, self.limit)")
)
NO_RETURN = changed(RIGHT, ("        return self.limit\n", ""))
ASYNC = changed(RIGHT, ("def on_sample", "async def on_sample"))
GLOBAL = "LIMIT = {}\n\n" + RIGHT.replace("self.limit", 'LIMIT["now"]')  # one limit for every limiter
CLASS_ATTRIBUTE = RIGHT.replace("self.limit", "MyAIMD.limit")  # on the class: every limiter shares it
TWICE = changed(  # a drop that was slow too backs off twice
    RIGHT,
    (
        "if dropped or rtt > 500:",
        "if dropped:\n            self.limit = int(self.limit * 0.9)\n        if rtt > 500:",
    ),
    ("elif inflight", "elif not dropped and inflight"),
)
GROWS_AFTER_A_LOSS = changed(RIGHT, ("elif inflight", "if inflight"))  # a busy drop backs off, then grows
FLOAT_LIMIT = changed(  # kept unrounded: 18.9 drifts from AIMD's 18
    RIGHT, ("int(self.limit * 0.9)", "self.limit * 0.9"), ("return self.limit", "return int(self.limit)")
)
CACHED = "import functools\n\n" + changed(  # the same sample twice is not learnt twice
    RIGHT, ("    def on_sample", "    @functools.lru_cache(maxsize=None)\n    def on_sample")
)
BIG_LIMITS = changed(RIGHT, ("min(self.max_limit,", "min(self.max_limit, 1000,"))  # "no service needs more"
EXITS = "import sys\n\n" + changed(
    RIGHT,
    (
        "        if dropped or",
        "        if self.limit <= self.min_limit and dropped:\n"
        "            sys.exit(1)\n"
        "        if dropped or",
    ),
)


SHARED_DEFAULT = """class MyAIMD:
    def __init__(self, initial, min_limit, max_limit, state={}):
        self.state = state  # the default dict is made once, for every limiter
        self.state.setdefault("limit", initial)
        self.min_limit, self.max_limit = min_limit, max_limit

    def on_sample(self, rtt, inflight, dropped):
        limit = self.state["limit"]
        if dropped or rtt > 500:
            limit = int(limit * 0.9)
        elif inflight * 2 >= limit:
            limit += 1
        self.state["limit"] = min(self.max_limit, max(self.min_limit, limit))
        return self.state["limit"]
"""


NO_BACKOFF = """class MyAIMD:
    def __init__(self, initial, min_limit, max_limit):
        self.limit, self.min_limit, self.max_limit = initial, min_limit, max_limit

    def on_sample(self, rtt, inflight, dropped):
        if inflight * 2 >= self.limit and not dropped:
            self.limit = min(self.max_limit, self.limit + 1)
        return self.limit
"""

IDLE_IS_A_LOSS = """class MyAIMD:
    def __init__(self, initial, min_limit, max_limit):
        self.limit, self.min_limit, self.max_limit = initial, min_limit, max_limit

    def on_sample(self, rtt, inflight, dropped):
        if dropped or rtt > 500 or inflight * 2 < self.limit:  # an idle sample taken for a loss
            self.limit = max(self.min_limit, int(self.limit * 0.9))
        else:
            self.limit = min(self.max_limit, self.limit + 1)
        return self.limit
"""


CANDIDATES = Candidates(
    notebook="05_adaptive_limits.ipynb",
    exercise="write_aimd",
    right=RIGHT,
    also_right=(NUMPY, INTEGERS, CLOSURE, HISTORY),
    template=(
        "Not yet: MyAIMD(20, 15, 22) given (80, 12, False): the last on_sample returned 20, the contract "
        "expects 21: a success with 12 in flight, at least half of 20: 21. Replay: a = MyAIMD(20, 15, 22); "
    ),
    broken={
        NO_BACKOFF: "never backs off",
        AT_500: "a round trip of exactly 500 ms taken as over 500 ms",
        STRICT_HALF: "exactly half the limit in flight not taken as at least half",
        FLOOR_HALF: "half of an odd limit rounded down",
        FULL_NOT_HALF: "grows only when the whole limit is in flight",
        ROUNDED: "the back-off rounded to nearest, not down",
        ROUNDED_UP: "the back-off rounded up",
        SECONDS: "the timeout read in seconds",
        NO_MIN: "no floor at min_limit",
        NO_MAX: "no ceiling at max_limit",
        GLOBAL: "the limit in a module global, shared by every limiter",
        CLASS_ATTRIBUTE: "the limit in a class attribute, shared by every limiter",
        SHARED_DEFAULT: "the limit in a mutable default argument, shared by every limiter",
        TWICE: "a slow drop backs off twice",
        GROWS_AFTER_A_LOSS: "a busy loss backs off, then grows",
        FLOAT_LIMIT: "the limit kept unrounded, drifting",
        CACHED: "on_sample cached: a repeated sample not learnt",
        BIG_LIMITS: "a ceiling of its own at 1000",
        IDLE_IS_A_LOSS: "an idle success backs off",
        NO_RETURN: "returns None",
        ASYNC: "an async def on_sample",
        EXITS: "sys.exit on a drop at the floor",
    },
)
