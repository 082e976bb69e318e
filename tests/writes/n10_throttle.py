"""Notebook 10, exercise 2: the SRE book's client-side adaptive throttle, judged against the course's
AdaptiveThrottle over boundaries and generated scenarios (several instances, fractional k)."""

from writes import Candidates

RIGHT = """class MyThrottle:
    def __init__(self, k=2.0):
        self.k = k
        self.requests = 0
        self.accepts = 0

    def on_request(self):
        self.requests += 1

    def on_accept(self):
        self.accepts += 1

    def probability(self):
        return max(0.0, (self.requests - self.k * self.accepts) / (self.requests + 1))
"""

FRACTIONS = """from fractions import Fraction


class MyThrottle:
    def __init__(self, k):
        self.k, self.counts = Fraction(k), {"requests": 0, "accepts": 0}

    def on_request(self):
        self.counts["requests"] += 1

    def on_accept(self):
        self.counts["accepts"] += 1

    def probability(self):
        r, a = self.counts["requests"], self.counts["accepts"]
        excess = r - self.k * a
        return float(excess / (r + 1)) if excess > 0 else 0.0
"""

LOG = """import numpy as np


class MyThrottle:
    \"\"\"Every request logged: 1 when the backend accepted it; numpy sums them.\"\"\"

    def __init__(self, k: float) -> None:
        self.k = np.float64(k)
        self.log: list[int] = []

    def on_request(self) -> None:
        self.log.append(0)

    def on_accept(self) -> None:
        self.log[self.log.index(0)] = 1

    def probability(self):
        seen = np.array(self.log, dtype=np.int64)
        return np.maximum(0.0, (seen.size - self.k * seen.sum()) / (seen.size + 1))
"""

DATACLASS = """class MyThrottle:
    __slots__ = ("k", "requests", "accepts")

    def __init__(self, k: float = 2.0) -> None:
        self.k, self.requests, self.accepts = k, 0, 0

    def on_request(self) -> None:
        self.requests += 1

    def on_accept(self) -> None:
        self.accepts += 1

    def probability(self) -> float:
        if self.requests <= self.k * self.accepts:
            return 0
        return (self.requests - self.k * self.accepts) / (self.requests + 1)
"""

SHAPE = """class MyThrottle:
    def __init__(self, k):
        self.k, self.requests, self.accepts = k, 0, 0

    def on_request(self):
        self.requests += 1

    def on_accept(self):
        self.accepts += 1

    def probability(self):
        return {probability}
"""


def _broken(probability: str) -> str:
    return SHAPE.format(probability=probability)


CLASS_COUNTS = """class MyThrottle:
    requests = [0]
    accepts = [0]

    def __init__(self, k):
        self.k = k

    def on_request(self):
        self.requests[0] += 1

    def on_accept(self):
        self.accepts[0] += 1

    def probability(self):
        r, a = self.requests[0], self.accepts[0]
        return max(0.0, (r - self.k * a) / (r + 1))
"""

ASKING_COUNTS = """class MyThrottle:
    def __init__(self, k):
        self.k, self.requests, self.accepts = k, 0, 0

    def on_request(self):
        pass

    def on_accept(self):
        self.accepts += 1

    def probability(self):
        self.requests += 1
        return max(0.0, (self.requests - self.k * self.accepts) / (self.requests + 1))
"""

CANDIDATES = Candidates(
    notebook="10_your_own_stack.ipynb",
    exercise="write_throttle",
    right=RIGHT,
    also_right=(FRACTIONS, LOG, DATACLASS),
    template=(
        "Not yet: after the calls of the replay: probability() returned 0.0, where the contract expects "
        "max(0, (1 - 2 x 0) / (1 + 1)) = 0.5 after 1 request, 0 accepted. Replay: a = MyThrottle(2.0); "
    ),
    broken={
        _broken("(self.requests - self.k * self.accepts) / (self.requests + 1)"): "no max(0, ...): negative",
        _broken("max(0.0, (self.requests - self.k * self.accepts) / self.requests)"): "divides by requests",
        _broken("max(0.0, (self.requests - 2 * self.accepts) / (self.requests + 1))"): "k ignored",
        _broken("max(0.0, (self.k * self.requests - self.accepts) / (self.requests + 1))"): "k on requests",
        _broken("100 * max(0.0, (self.requests - self.k * self.accepts) / (self.requests + 1))"): "a percent",
        _broken("max(0.0, (self.requests - self.k * self.accepts) // (self.requests + 1))"): "floor division",
        _broken("min(1.0, (self.requests - self.k * self.accepts) / (self.requests + 1))"): "min, not max",
        _broken("max(0.0, 1 - self.k * self.accepts / max(1, self.requests))"): "1 - k a / r",
        CLASS_COUNTS: "counts shared by every instance",
        ASKING_COUNTS: "probability() counts a request",
    },
)
