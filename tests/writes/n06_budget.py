"""Notebook 06, exercise 4: a retry budget of the learner's own, through section 2's loop, all refused."""

from writes import Candidates

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

RETRIES_NOT_COUNTED = """class MyBudget:
    def __init__(self, ratio):
        self.ratio, self.calls, self.retries = ratio, 0, 0

    def on_request(self):
        self.calls += 1

    def can_retry(self):
        return self.retries < self.ratio * self.calls

    def on_retry(self):
        self.calls += 1  # the retry is a call, but is it counted as a retry?
"""

NEVER = """class MyBudget:
    def __init__(self, ratio):
        self.ratio, self.calls, self.retries = ratio, 0, 0

    def on_request(self):
        self.calls += 1

    def can_retry(self):
        return self.retries > self.ratio * self.calls  # the comparison turned round

    def on_retry(self):
        self.calls += 1
        self.retries += 1
"""

TWICE_THE_RATIO = """class MyBudget:
    def __init__(self, ratio):
        self.ratio, self.calls, self.retries = ratio, 0, 0

    def on_request(self):
        self.calls += 1

    def can_retry(self):
        return self.retries < self.ratio * self.calls * 2  # 10% of what?

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

CANDIDATES = Candidates(
    notebook="06_retries_and_budgets.ipynb",
    exercise="write_budget",
    number=4,
    name="MyBudget",
    right=RIGHT,
    broken={
        RETRIES_NOT_COUNTED: "your budget let every retry through",
        NEVER: "your budget let no retry through",
        TWICE_THE_RATIO: "calls per request through, over 10% retries",
        CAN_RETRY_RAISES: "it raised AttributeError",
    },
)
