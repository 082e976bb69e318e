"""The fixes practitioners use against a storm that stays, each one change to a setup.

=================  ============================================================  ======================
fix                what changes                                                  source
=================  ============================================================  ======================
``bounded queue``  the dependency's queue holds 20 calls; the next is refused     AWS Builders' Library
``drop expired``   the dependency drops a call whose caller's deadline passed     (the half-fix)
``deadline drop``  ... and one that cannot finish before it                      AWS; gRPC deadlines
``adaptive LIFO``  newest first once a queue has stood 100 ms                    Fail at Scale
``CoDel-like``     a call may wait 5 ms once the queue has not emptied in 100 ms  Fail at Scale
``retry budget``   retries while under 10% of the calls (notebook 06's SRE)      SRE book ch. 21
``bulkhead``       8 calls in flight from the callers, 8 waiting, refuse beyond  notebooks 04 and 06
=================  ============================================================  ======================

:func:`with_fix` adds one to a setup, keeping what the setup already sets (a queue bound or a budget
chosen elsewhere stays).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal, get_args

from bulkhead_lab.queues.settings import SRE_BUDGET, WORKERS, Bulkhead, QueueTimeout, Setup
from bulkhead_lab.validation import check_choice

Fix = Literal[
    "no fix",
    "bounded queue",
    "drop expired",
    "deadline drop",
    "adaptive LIFO",
    "CoDel-like timeout",
    "retry budget",
    "bulkhead",
]
FIXES: tuple[Fix, ...] = get_args(Fix)  # in the order the Literal names them
TABLE: tuple[Fix, ...] = tuple(f for f in FIXES if f != "drop expired")  # section 3's rows
QUEUE_BOUND = 20  # calls: drains in 15 rounds at 1.33 a round, inside a 30-round timeout
BULKHEAD = Bulkhead(WORKERS, WORKERS)  # as many in flight as the dependency has workers, as many waiting


def with_fix(setup: Setup, fix: Fix) -> Setup:
    """``setup`` with ``fix`` added (``no fix``: as it is)."""
    check_choice("fix", fix, FIXES)
    d, c = setup.dependency, setup.callers
    if fix == "bounded queue":
        d = replace(d, queue=QUEUE_BOUND if d.queue is None else d.queue)
    elif fix == "drop expired":
        d = replace(d, deadline="expired")
    elif fix == "deadline drop":
        d = replace(d, deadline="cannot finish")
    elif fix == "adaptive LIFO":
        d = replace(d, order="adaptive lifo")
    elif fix == "CoDel-like timeout":
        d = replace(d, queue_timeout=QueueTimeout())
    elif fix == "retry budget":
        c = replace(c, budget=SRE_BUDGET if c.budget is None else c.budget)
    elif fix == "bulkhead":
        c = replace(c, bulkhead=BULKHEAD if c.bulkhead is None else c.bulkhead)
    return setup.with_(dependency=d, callers=c)
