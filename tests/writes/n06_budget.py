"""Notebook 06, exercise 4: a retry budget of the learner's own, judged call by call against section 2's
RetryBudget over generated scenarios (ratios 0 to 2, several instances, long runs, section 2's loop)."""

from writes import Candidates, changed

RIGHT = """class MyBudget:
    def __init__(self, ratio):
        self.ratio = ratio
        self.calls = 0  # every call sent: requests and retries
        self.retries = 0  # the retries among them

    def on_request(self):
        self.calls += 1

    def can_retry(self):
        return self.retries < self.ratio * self.calls

    def on_retry(self):
        self.calls += 1
        self.retries += 1
"""

REQUESTS_AND_RETRIES_APART = """class MyBudget:
    def __init__(self, ratio: float) -> None:
        self.ratio, self.requests, self.retries = ratio, 0, 0

    def on_request(self) -> None:
        self.requests += 1

    def on_retry(self) -> None:
        self.retries += 1

    def can_retry(self) -> bool:
        sent = self.requests + self.retries
        return sent > 0 and self.retries / sent < self.ratio
"""

NUMPY_LOG = """import numpy as np

class MyBudget:
    \"\"\"Every call sent, logged: 0 a request, 1 a retry; numpy counts them (and answers its bool).\"\"\"

    def __init__(self, ratio):
        self.ratio = np.float64(ratio)
        self.log = []

    def on_request(self):
        self.log.append(0)

    def on_retry(self):
        self.log.append(1)

    def can_retry(self):
        sent = np.array(self.log, dtype=np.int64)
        return sent.sum() < self.ratio * sent.size
"""

EXACT_FRACTIONS = """from collections import Counter
from fractions import Fraction

class MyBudget:
    def __init__(self, ratio):
        self.share = Fraction(str(ratio))  # 0.1 as 1/10 exactly: no rounding at a tie
        self.sent = Counter()

    def on_request(self):
        self.sent["request"] += 1

    def on_retry(self):
        self.sent["retry"] += 1

    def can_retry(self):
        return int(self.sent["retry"] < self.share * self.sent.total())  # 1 or 0
"""

CLOSURES = """class MyBudget:
    def __init__(self, ratio):
        calls = retries = 0

        def on_request():
            nonlocal calls
            calls += 1

        def on_retry():
            nonlocal calls, retries
            calls, retries = calls + 1, retries + 1

        self.on_request, self.on_retry = on_request, on_retry
        self.can_retry = lambda: retries < ratio * calls
"""

SEEDED_COIN = """import random

class MyBudget:
    def __init__(self, ratio):
        self.ratio, self.coin = ratio, random.Random(6)

    def on_request(self):
        pass

    def can_retry(self):
        return self.coin.random() < self.ratio  # about ratio of the refused calls go again

    def on_retry(self):
        pass
"""

QUOTA_NEVER_REFILLS = """class MyBudget:
    def __init__(self, ratio):
        self.left = ratio * 100  # retries for the first hundred requests

    def on_request(self):
        pass

    def can_retry(self):
        return self.left >= 1

    def on_retry(self):
        self.left -= 1
"""

WINDOW_OF_100 = """from collections import deque

class MyBudget:
    def __init__(self, ratio):
        self.ratio, self.sent = ratio, deque(maxlen=100)  # only the last 100 calls count

    def on_request(self):
        self.sent.append(False)

    def can_retry(self):
        return sum(self.sent) < self.ratio * len(self.sent)

    def on_retry(self):
        self.sent.append(True)
"""

COUNTS_ON_THE_CLASS = """class MyBudget:
    calls = 0
    retries = 0

    def __init__(self, ratio):
        self.ratio = ratio

    def on_request(self):
        MyBudget.calls += 1

    def can_retry(self):
        return MyBudget.retries < self.ratio * MyBudget.calls

    def on_retry(self):
        MyBudget.calls += 1
        MyBudget.retries += 1
"""

CAN_RETRY_COUNTS = """class MyBudget:
    def __init__(self, ratio):
        self.ratio, self.calls, self.retries = ratio, 0, 0

    def on_request(self):
        self.calls += 1

    def can_retry(self):
        if self.retries < self.ratio * self.calls:
            self.calls += 1  # counted when asked: is every call asked about sent?
            self.retries += 1
            return True
        return False

    def on_retry(self):
        pass
"""

RATIO_ZERO_RAISES = """class MyBudget:
    def __init__(self, ratio):
        self.every = round(1 / ratio)  # one retry every `every` calls
        self.calls = self.retries = 0

    def on_request(self):
        self.calls += 1

    def can_retry(self):
        return self.retries * self.every < self.calls

    def on_retry(self):
        self.calls += 1
        self.retries += 1
"""

CAN_RETRY_RAISES = """class MyBudget:
    def __init__(self, ratio):
        self.ratio = ratio

    def on_request(self):
        pass

    def can_retry(self):
        return self.retries < self.ratio * self.calls  # never set in __init__

    def on_retry(self):
        pass
"""

RULE = "return self.retries < self.ratio * self.calls"
RATIO_IGNORED = changed(RIGHT, ("self.ratio * self.calls", "0.1 * self.calls"))  # the SRE book's 10%
AT_THE_BOUNDARY = changed(RIGHT, (RULE, RULE.replace("<", "<=")))
NEVER = changed(RIGHT, (RULE, RULE.replace("<", ">")))
ROUNDED_DOWN = changed(RIGHT, ("self.ratio * self.calls", "int(self.ratio * self.calls)"))
FLOAT_NOT_THE_RULE = changed(RIGHT, (RULE, "return self.ratio * self.calls - self.retries"))  # what is left
OF_REQUESTS = changed(RIGHT, ("        self.calls += 1\n        self.retries", "        self.retries"))
RETRIES_NOT_COUNTED = changed(RIGHT, ("        self.retries += 1\n", ""))
ASYNC_CAN_RETRY = changed(RIGHT, ("def can_retry", "async def can_retry"))
EXITS_WHEN_SPENT = "import sys\n" + changed(
    RIGHT, (RULE, f"if not ({RULE[7:]}):\n            sys.exit(1)\n        return True")
)

CANDIDATES = Candidates(
    notebook="06_retries_and_budgets.ipynb",
    exercise="write_budget",
    right=RIGHT,
    also_right=(REQUESTS_AND_RETRIES_APART, NUMPY_LOG, EXACT_FRACTIONS, CLOSURES),
    template=(
        "Not yet: a = MyBudget(0.1), after 1 call sent, 0 of them retries, then a.can_retry(): it returned "
        "False, where the contract expects True: 0 retries are under 0.1 x 1 call = 0.1. Replay: "
        "a = MyBudget(0.1); a.on_request(); a.can_retry()"
    ),
    lines={  # at a ratio binary holds: 0.5 x 2 calls is exactly 1
        AT_THE_BOUNDARY: (
            "Not yet: a = MyBudget(0.5), after 2 calls sent, 1 of them a retry, then a.can_retry(): it "
            "returned True, where the contract expects False: 1 retry is not under 0.5 x 2 calls = 1."
        ),
    },
    broken={
        RATIO_IGNORED: "ignores its ratio",
        AT_THE_BOUNDARY: "allows a retry at the boundary (<=)",
        OF_REQUESTS: "a share of requests, not of every call",
        RETRIES_NOT_COUNTED: "a retry not counted as a retry",
        SEEDED_COIN: "a seeded coin",
        QUOTA_NEVER_REFILLS: "a quota that never refills",
        WINDOW_OF_100: "a window of the last 100 calls",
        COUNTS_ON_THE_CLASS: "counts shared by every instance",
        CAN_RETRY_COUNTS: "can_retry counts the retry",
        FLOAT_NOT_THE_RULE: "a float whose truth is not the rule",
        RATIO_ZERO_RAISES: "ratio 0 raises",
        ROUNDED_DOWN: "rounded down to whole retries",
        ASYNC_CAN_RETRY: "an async def can_retry",
        EXITS_WHEN_SPENT: "sys.exit in can_retry",
        NEVER: "the comparison turned round",
        CAN_RETRY_RAISES: "raises AttributeError",
    },
)
