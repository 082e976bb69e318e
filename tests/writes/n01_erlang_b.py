"""Notebook 01, exercise 4: Erlang-B of the learner's own, ``erlang_b(load, slots)``, judged on a grid."""

from writes import Candidates

RIGHT = """def my_erlang_b(load, slots):
    b = 1.0  # no slots refuse every call
    for n in range(1, slots + 1):
        b = load * b / (n + load * b)
    return b
"""

FACTORIAL = """def my_erlang_b(load, slots):
    top = load**slots / math.factorial(slots)
    return top / sum(load**k / math.factorial(k) for k in range(slots + 1))
"""

PERCENT = """def my_erlang_b(load, slots):
    b = 1.0
    for n in range(1, slots + 1):
        b = load * b / (n + load * b)
    return 100 * b
"""

POISSON_TAIL = """def my_erlang_b(load, slots):
    below = sum(math.exp(-load) * load**k / math.factorial(k) for k in range(slots))
    return 1 - below
"""

POISSON_ABOVE = """def my_erlang_b(load, slots):
    upto = sum(math.exp(-load) * load**k / math.factorial(k) for k in range(slots + 1))
    return 1 - upto
"""

NO_RETURN = """def my_erlang_b(load, slots):
    b = 1.0
    for n in range(1, slots + 1):
        b = load * b / (n + load * b)
"""

ZERO_SLOTS = """def my_erlang_b(load, slots):
    if slots == 0:
        return 0.0
    b = 1.0
    for n in range(1, slots + 1):
        b = load * b / (n + load * b)
    return b
"""

DIVIDES_BY_LOAD = """def my_erlang_b(load, slots):
    b = 1.0
    for n in range(1, slots + 1):
        b = b / (n / load + b)
    return b
"""

SWAPPED = """def my_erlang_b(slots, load):
    b = 1.0
    for n in range(1, slots + 1):
        b = load * b / (n + load * b)
    return b
"""

CANDIDATES = Candidates(
    notebook="01_littles_law_sizing.ipynb",
    exercise="write_erlang_b",
    number=4,
    name="my_erlang_b",
    right=RIGHT,
    broken={
        FACTORIAL: "a factorial formula overflows at slots=200",
        PERCENT: "a percent, not a fraction",
        POISSON_TAIL: "the Poisson tail P(N>=slots)",
        POISSON_ABOVE: "the Poisson tail P(N>slots)",
        NO_RETURN: "returned None, not a number",
        ZERO_SLOTS: "at load=0, slots=0 you returned 0: a pool of no slots refuses every call, B = 1.",
        DIVIDES_BY_LOAD: "my_erlang_b(0.0, 1) raised ZeroDivisionError",
        SWAPPED: "your function takes (slots, load)",
    },
)
