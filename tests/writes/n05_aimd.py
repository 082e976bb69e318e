"""Notebook 05, exercise 3: an AIMD limiter of the learner's own, replayed on the hand-worked trace."""

from writes import Candidates

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

NO_MAX = """class MyAIMD:
    def __init__(self, initial, min_limit, max_limit):
        self.limit, self.min_limit = initial, min_limit

    def on_sample(self, rtt, inflight, dropped):
        if dropped or rtt > 500:
            self.limit = max(self.min_limit, int(self.limit * 0.9))
        elif inflight * 2 >= self.limit:
            self.limit += 1
        return self.limit
"""

NO_RETURN = """class MyAIMD:
    def __init__(self, initial, min_limit, max_limit):
        self.limit, self.min_limit, self.max_limit = initial, min_limit, max_limit

    def on_sample(self, rtt, inflight, dropped):
        if dropped or rtt > 500:
            self.limit = int(self.limit * 0.9)
        elif inflight * 2 >= self.limit:
            self.limit += 1
        self.limit = min(self.max_limit, max(self.min_limit, self.limit))
"""

CANDIDATES = Candidates(
    notebook="05_adaptive_limits.ipynb",
    exercise="write_aimd",
    number=3,
    name="MyAIMD",
    right=RIGHT,
    broken={
        NO_BACKOFF: "after sample 5 (a drop at limit 22) the limit should be 19",
        IDLE_IS_A_LOSS: "after sample 4 (a success with only 4 in flight at limit 22) the limit should be 22",
        NO_MAX: "after sample 3 (a success at the max, 22) the limit should be 22",
        NO_RETURN: "on_sample returned None: return the new limit",
    },
)
