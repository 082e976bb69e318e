"""Notebook 01, exercise 4: Erlang-B of the learner's own, ``erlang_b(load, slots)``, judged by its contract
(Erlang's loss formula for pools of 0 to thousands of slots and loads of 0 to thousands of erlangs)."""

from writes import Candidates, changed

RIGHT = """def my_erlang_b(load, slots):
    # 1/B(n) = 1 + n/(A B(n-1)): the inverse recursion, never past 1/B
    if slots == 0:
        return 1.0
    if load == 0:
        return 0.0
    inverse = 1.0
    for n in range(1, slots + 1):
        inverse = 1.0 + inverse * n / load
    return 1.0 / inverse
"""

LOG_SPACE = """def my_erlang_b(load, slots):
    # B = (A^n / n!) / sum_k A^k / k!, every term in logarithms, summed from the largest
    if slots == 0:
        return 1.0
    if load == 0:
        return 0.0
    logs = [k * math.log(load) - math.lgamma(k + 1) for k in range(slots + 1)]
    top = max(logs)
    total = sum(math.exp(x - top) for x in logs)
    return math.exp(logs[-1] - top) / total
"""

NUMPY = """import numpy as np

def my_erlang_b(load, slots):
    if slots == 0:
        return np.float64(1.0)
    if load == 0:
        return np.float64(0.0)
    k = np.arange(1, int(slots) + 1)
    logs = np.concatenate(([0.0], np.cumsum(np.log(float(load) / k))))
    return np.exp(logs[-1] - np.logaddexp.reduce(logs))
"""

REDUCE = """from functools import reduce

my_erlang_b = lambda load, slots: reduce(
    lambda b, n: load * b / (n + load * b), range(1, slots + 1), 1.0
)
"""

CLASS_WITH_MEMO = """class ErlangB:
    def __init__(self):
        self.known = {}

    def __call__(self, load, slots):
        key = (float(load), int(slots))
        if key not in self.known:
            b, n = 1.0, 0
            while n < slots:
                n += 1
                b = load * b / (n + load * b)
            self.known[key] = b
        return self.known[key]

my_erlang_b = ErlangB()
"""

BACKWARD_SUM = """def my_erlang_b(load, slots):
    # 1/B = sum over j of n!/((n-j)! A^j): each term the last times (n-j+1)/A, from 1
    if load == 0:
        return 1.0 if slots == 0 else 0.0
    total, term = 1.0, 1.0
    for j in range(1, slots + 1):
        term *= (slots - j + 1) / load
        total += term
    return 1.0 / total
"""

FACTORIAL = """def my_erlang_b(load, slots):
    top = load**slots / math.factorial(slots)
    return top / sum(load**k / math.factorial(k) for k in range(slots + 1))
"""

RUNNING_TERMS = """def my_erlang_b(load, slots):
    term, total = 1.0, 1.0
    for k in range(1, slots + 1):
        term *= load / k
        total += term
    return term / total
"""

# Section 3's recursion, B(n) = A B(n-1) / (n + A B(n-1)): right as it stands; each broken one below
# changes it a little.
RECURSION = """def my_erlang_b(load, slots):
    b = 1.0
    for n in range(1, slots + 1):
        b = load * b / (n + load * b)
    return b
"""

POISSON_TAIL = """def my_erlang_b(load, slots):
    below = sum(math.exp(-load) * load**k / math.factorial(k) for k in range(slots))
    return 1 - below
"""

RECURSIVE = """def my_erlang_b(load, slots):
    if slots == 0:
        return 1.0
    b = my_erlang_b(load, slots - 1)
    return load * b / (slots + load * b)
"""

FLOAT32 = """import numpy as np

def my_erlang_b(load, slots):
    b = np.float32(1.0)
    for n in range(1, slots + 1):
        b = np.float32(load) * b / (np.float32(n) + np.float32(load) * b)
    return b
"""

PERCENT = changed(RECURSION, ("return b", "return 100 * b"))
POISSON_ABOVE = changed(POISSON_TAIL, ("range(slots)", "range(slots + 1)"))  # P(N > slots)
NO_RETURN = changed(RECURSION, ("    return b\n", ""))
ZERO_SLOTS = changed(RECURSION, ("    b = 1.0", "    if slots == 0:\n        return 0.0\n    b = 1.0"))
DIVIDES_BY_LOAD = changed(RECURSION, ("load * b / (n + load * b)", "b / (n / load + b)"))
SWAPPED = changed(RECURSION, ("(load, slots)", "(slots, load)"))
OFF_BY_ONE = changed(RECURSION, ("range(1, slots + 1)", "range(slots)"))
ROUNDED = changed(RECURSION, ("return b", "return round(b, 4)"))
INTS_ONLY = changed(
    RECURSION,
    ("    b = 1.0", "    if not isinstance(slots, int):\n        raise TypeError(slots)\n    b = 1.0"),
)
STOPS_EARLY = changed(RECURSION, ("load * b)\n", "load * b)\n        if b < 1e-9:\n            break\n"))
CARRIED = changed(RECURSION, ("return b", "return 1 - b"))
CAPPED = changed(RECURSION, ("range(1, slots + 1)", "range(1, min(slots, 1000) + 1)"))
ERLANG_C = changed(  # the share that waits, not the share refused
    RECURSION,
    (
        "    return b",
        "    if slots <= load:\n        return 1.0\n    return slots * b / (slots - load * (1 - b))",
    ),
)

CANDIDATES = Candidates(
    notebook="01_littles_law_sizing.ipynb",
    exercise="write_erlang_b",
    right=RIGHT,
    also_right=(LOG_SPACE, NUMPY, REDUCE, CLASS_WITH_MEMO, BACKWARD_SUM),
    template=(
        "Not yet: my_erlang_b(0.0, 0): it returned 0, where Erlang-B is 1: a pool of no slots refuses every "
        "call. Replay: my_erlang_b(0.0, 0), erlang_b(0, 0.0)"
    ),
    broken={
        FACTORIAL: "load**slots and slots! overflow a float",
        RUNNING_TERMS: "a running product load**k/k! overflows past 710 erlangs",
        PERCENT: "a percent, not a fraction",
        POISSON_TAIL: "the Poisson tail P(N>=slots)",
        POISSON_ABOVE: "the Poisson tail P(N>slots)",
        NO_RETURN: "returns None",
        ZERO_SLOTS: "no slots refuse nothing",
        DIVIDES_BY_LOAD: "divides by a load of 0",
        SWAPPED: "takes (slots, load)",
        RECURSIVE: "recursion past Python's limit at a thousand slots",
        OFF_BY_ONE: "the recursion starts at n = 0",
        ROUNDED: "rounded to 4 places",
        INTS_ONLY: "refuses numpy's integers",
        STOPS_EARLY: "stops once B is small",
        CARRIED: "the share carried, 1 - B",
        FLOAT32: "single precision",
        CAPPED: "stops at a thousand slots",
        ERLANG_C: "Erlang-C, the share that waits",
    },
)
