"""Notebook 09, exercise 4: a soft partition of the learner's own, judged answer by answer against section
1's rule in every reachable state of many pools."""

from writes import Candidates, changed

# The partition itself a class: built with (reserved, total), each instance is the rule.
A_CLASS = """class my_soft_partition:
    def __init__(self, reserved, total):
        self.reserved = list(reserved)
        self.total = total

    def __call__(self, flow, busy):
        free = self.total - sum(busy)
        if busy[flow] < self.reserved[flow]:
            return free > 0
        others_unused = sum(
            max(0, r - b) for f, (r, b) in enumerate(zip(self.reserved, busy)) if f != flow
        )
        return free - others_unused >= 1
"""

# Past its own reserve a call needs a free slot that is no other flow's unused reserve.
RIGHT = """def my_soft_partition(reserved, total):
    def admits(flow, busy):
        if busy[flow] < reserved[flow]:
            return True
        free = total - sum(busy)
        kept = sum(r - b for f, (b, r) in enumerate(zip(busy, reserved)) if f != flow and b < r)
        return free > kept

    return admits
"""

# A class whose instances are the rule (__call__), counting the shared slots left.
CALLABLE = """class SoftRule:
    def __init__(self, reserved, total):
        self.reserved, self.shared = tuple(reserved), total - sum(reserved)

    def __call__(self, flow, busy):
        if busy[flow] < self.reserved[flow]:
            return True
        lent = 0
        for held, kept in zip(busy, self.reserved):
            lent += max(0, held - kept)
        return self.shared - lent > 0

def my_soft_partition(reserved, total):
    return SoftRule(reserved, total)
"""

# numpy: what each flow holds past its reserve, summed; it answers numpy's bool.
NUMPY = """def my_soft_partition(reserved, total):
    import numpy as np

    kept = np.array(reserved)
    shared = total - kept.sum()

    def admits(flow, busy):
        held = np.array(busy)
        return (held[flow] < kept[flow]) | (np.maximum(held - kept, 0).sum() < shared)

    return admits
"""

# One lambda over functools.partial of a module-level rule; it answers 1 or 0.
PARTIAL = """import functools

def _soft(reserved, total, flow, busy):
    over = [b - r if b > r else 0 for b, r in zip(busy, reserved)]
    return int(busy[flow] < reserved[flow] or sum(over) + sum(reserved) < total)

def my_soft_partition(reserved, total):
    return functools.partial(_soft, tuple(reserved), total)
"""

# The two flows by name: this flow's and the other's room, as the notebook's prose tells it.
TWO_FLOWS = """def my_soft_partition(reserved, total):
    shared = total - reserved[0] - reserved[1]

    def admits(flow, busy):
        other = 1 - flow
        if busy[flow] < reserved[flow]:
            return True
        mine = busy[flow] - reserved[flow]
        theirs = max(0, busy[other] - reserved[other])
        return mine + theirs < shared

    return admits
"""

# Each flow may take its reserve plus the whole shared rest, whatever the other flow borrowed.
WHOLE_REST_EACH = """def my_soft_partition(reserved, total):
    shared = total - sum(reserved)

    def admits(flow, busy):
        return busy[flow] < reserved[flow] + shared

    return admits
"""

# The shared rest split fairly: each flow may borrow only its half of it, so the other half stands idle.
HALF_EACH = changed(WHOLE_REST_EACH, ("+ shared\n", "+ shared // len(reserved)\n"))
RESERVES_ONLY = changed(WHOLE_REST_EACH, (" + shared\n", "\n"))  # a hard split that never lends the rest
# Any free slot: the single pool, no reserve kept (the template).
ONE_POOL = changed(WHOLE_REST_EACH, ("busy[flow] < reserved[flow] + shared", "sum(busy) < total"))

# The rule takes the slot itself (busy[flow] += 1): the pool then counts the call twice.
TAKES_THE_SLOT = """def my_soft_partition(reserved, total):
    shared = total - sum(reserved)

    def admits(flow, busy):
        borrowed = sum(max(0, b - r) for b, r in zip(busy, reserved))
        if busy[flow] < reserved[flow] or borrowed < shared:
            busy[flow] += 1
            return True
        return False

    return admits
"""

# The pool kept in module globals: a second rule built overwrites the first one's reserves.
GLOBAL_POOL = """POOL = {}

def _admits(flow, busy):
    reserved, shared = POOL["reserved"], POOL["shared"]
    if busy[flow] < reserved[flow]:
        return True
    return sum(max(0, b - r) for b, r in zip(busy, reserved)) < shared

def my_soft_partition(reserved, total):
    POOL["reserved"], POOL["shared"] = reserved, total - sum(reserved)
    return _admits
"""

# Returns the answer for an empty pool instead of a rule.
NOT_A_RULE = """def my_soft_partition(reserved, total):
    return total - sum(reserved) > 0
"""

# Section 1's numbers written in: 21/7 reserved of 32, whatever it is given.
LESSON_WRITTEN_IN = """def my_soft_partition(reserved, total):
    def admits(flow, busy):
        if busy[flow] < (21, 7)[flow]:
            return True
        return max(0, busy[0] - 21) + max(0, busy[1] - 7) < 4

    return admits
"""

# It counts what it admitted itself instead of reading busy: its answers hang on the questions asked before.
COUNTS_ITSELF = """def my_soft_partition(reserved, total):
    held = [0, 0]
    shared = total - sum(reserved)

    def admits(flow, busy):
        lent = sum(max(0, h - r) for h, r in zip(held, reserved))
        if held[flow] < reserved[flow] or lent < shared:
            held[flow] += 1
            return True
        return False

    return admits
"""

# Past its own reserve, a call borrows while the flows' borrowing is under the shared rest: right as it
# stands; each broken one below changes it a little.
BORROWS = """def my_soft_partition(reserved, total):
    shared = total - sum(reserved)

    def admits(flow, busy):
        if busy[flow] < reserved[flow]:
            return True
        borrowed = sum(max(0, b - r) for b, r in zip(busy, reserved))
        return borrowed < shared

    return admits
"""
OWN = "busy[flow] < reserved[flow]"
OFF_BY_ONE = changed(BORROWS, ("borrowed < shared", "borrowed <= shared"))  # a borrow from another's reserve
RESERVE_AT_MOST = changed(BORROWS, (OWN, "busy[flow] <= reserved[flow]"))  # one past its reserve let in
OTHER_RESERVE = changed(BORROWS, (OWN, "busy[flow] < reserved[1 - flow]"))  # the other flow's reserve
NO_OWN_RESERVE = changed(BORROWS, (f"if {OWN}:\n            return True\n        ", ""))
NEGATIVE_BORROWING = changed(BORROWS, ("max(0, b - r)", "b - r"))  # an unused reserve borrows negatively
# Its own borrowing under the shared rest, and a slot free: together they leave the other's reserve alone.
OWN_BORROWING_ONLY = changed(
    BORROWS,
    ("sum(max(0, b - r) for b, r in zip(busy, reserved))", "busy[flow] - reserved[flow]"),
    ("borrowed < shared", "borrowed < shared and sum(busy) < total"),
)
OTHERS_BORROWING_ONLY = changed(  # a flow may borrow the last shared slot again and again
    BORROWS,
    ("sum(max(0, b - r) for b, r in zip(busy, reserved))", "max(0, busy[1 - flow] - reserved[1 - flow])"),
)

CAPPED = f"""{RIGHT}
soft = my_soft_partition

def capped(reserved, total):
    return soft(tuple(min(r, 3) for r in reserved), total)

my_soft_partition = capped
"""  # a reserve capped at 3: found in a larger pool
LOOPS_INSIDE = """def my_soft_partition(reserved, total):
    def admits(flow, busy):
        while True:
            pass

    return admits
"""
RAISES = """def raises(reserved, total):
    def admits(flow, busy):
        raise LookupError("no such flow")

    return admits

my_soft_partition = raises
"""
AT_0 = "Not yet: admits = my_soft_partition((0, 0), 0), asked admits(0, [0, 0]): "  # the first question

CANDIDATES = Candidates(
    notebook="09_sharing_compartments.ipynb",
    exercise="write_soft_partition",
    right=RIGHT,
    also_right=(CALLABLE, NUMPY, PARTIAL, TWO_FLOWS, OWN_BORROWING_ONLY, A_CLASS),
    template=(
        "Not yet: admits = my_soft_partition((0, 1), 1), asked admits(0, [0, 0]): it answered True, where "
        "section 1's rule answers False: flow 0 holds 0 with 0 reserved and no slot is shared: the free slot "
        "is flow 1's reserve. Replay: my_soft_partition((0, 1), 1)(0, [0, 0])"
    ),
    said_labels=True,
    lines={
        CAPPED: (
            "Not yet: admits = capped((0, 4), 4), asked admits(0, [0, 0]): it answered True, where section "
            "1's rule answers False: flow 0 holds 0 with 0 reserved and no slot is shared: the 4 free slots "
            "are flow 1's reserve. Replay: capped((0, 4), 4)(0, [0, 0])"
        ),
        GLOBAL_POOL: "Not yet: with two rules built, a = my_soft_partition((0, 0), 0); b = ",
        LOOPS_INSIDE: "Not yet: it was still running after 2 s.",
        RAISES: (
            "Not yet: admits = raises((0, 0), 0), asked admits(0, [0, 0]): raised LookupError: no such flow, "
            "where the rule answers True or False. Replay: raises((0, 0), 0)(0, [0, 0])"
        ),
        "my_soft_partition = lambda reserved, total: 1 / 0": (
            "Not yet: my_soft_partition((0, 0), 0): raised ZeroDivisionError: "
        ),
        "my_soft_partition = lambda reserved, total: None": (
            "Not yet: my_soft_partition((0, 0), 0): returned None, where it"
        ),
        "my_soft_partition = lambda reserved, total: lambda flow, busy: 'yes'": (
            AT_0 + "it answered 'yes', where section 1's"
        ),
        "my_soft_partition = lambda reserved, total: lambda flow, busy: None": (
            "Not yet: admits = my_soft_partition((0, 0), 1), asked admits(0, [0, 0]): it answered None, where"
        ),
    },
    broken={
        OFF_BY_ONE: "where section 1's rule answers False",
        HALF_EACH: "shared slots is free",
        RESERVES_ONLY: "shared slots is free",
        NO_OWN_RESERVE: "so a slot of its own reserve is free",
        WHOLE_REST_EACH: "slot is busy",
        ONE_POOL: "the free slot is flow 1's reserve",
        RESERVE_AT_MOST: "where section 1's rule answers False",
        NEGATIVE_BORROWING: "where section 1's rule answers False",
        TAKES_THE_SLOT: "it changed busy",
        GLOBAL_POOL: "with two rules built",
        NOT_A_RULE: "where it returns a rule",
        LESSON_WRITTEN_IN: "where section 1's rule answers",
        OTHER_RESERVE: "where section 1's rule answers",
        COUNTS_ITSELF: "an answer hangs on the flow and busy alone",
        OTHERS_BORROWING_ONLY: "its one slot is busy",
    },
)
