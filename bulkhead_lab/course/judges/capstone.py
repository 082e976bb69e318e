"""Notebook 10's capstone, judged: the verdict on one live run of the learner's stack
(:class:`~bulkhead_lab.live.stack.capstone.StackRun`): Right, or the first wall that did not hold, in one
line.

In this order: Payment's calls stayed within the learner's limit and the limit within what Payment
takes (:data:`~bulkhead_lab.live.stack.capstone.CAPACITY`); nothing waited without bound (no request
open at the cutoff, a pool and a read timeout set); Payment's retries stayed within its own budget
(its ratio of its own calls: a shared budget lets Inventory's successes pay for Payment's retries);
Inventory kept its SLO (time the machine stalled the run's own event loop is not counted against it:
:meth:`~bulkhead_lab.live.stack.capstone.Compartment.late`); and the compartment's counters showed the
failure while it happened.
"""

from __future__ import annotations

from bulkhead_lab.course.judges.contract import Verdict
from bulkhead_lab.live.stack.capstone import CAPACITY, CUTOFF, SLO, SLOW_AT, StackRun


def judge(run: StackRun) -> Verdict:
    """The verdict on ``run``: the first broken promise, or what held."""
    pay, inv = run.compartments["payment"], run.compartments["inventory"]
    limit = pay.limit
    if limit is None:
        return Verdict(
            False,
            f"no limit: Payment held {run.payment_peak} calls at once, where its owners "
            f"take {CAPACITY}; give its client httpx.Limits(max_connections=...)",
        )
    if limit > CAPACITY or run.payment_peak > limit:
        return Verdict(
            False,
            f"Payment held {run.payment_peak} calls at once under a limit of {limit} "
            f"(httpx's default pool is 100), where its owners take {CAPACITY}",
        )
    still = run.open_at_cutoff["payment"] + run.open_at_cutoff["inventory"]
    if still or pay.waits_without_bound:
        return Verdict(
            False,
            f"a limit without a timeout: {still} requests were still waiting "
            f"{CUTOFF - SLOW_AT:g} s after the slowdown began; give each client "
            "httpx.Timeout(seconds), which bounds the wait for the pool too",
        )
    allowed = pay.budget.ratio * (pay.requests + pay.retries) + 1
    if pay.retries > allowed:
        return Verdict(
            False,
            f"a shared budget: Payment retried {pay.retries} times, over the "
            f"{int(allowed)} that {pay.budget.ratio:g} of its own {pay.requests + pay.retries} "
            "calls allows: Inventory's successes paid for them; give each a budget",
        )
    late = inv.late(SLO)
    if inv.failed or late > inv.requests // 100:  # the SLO: 99% within it, none failed
        said = (
            f"Inventory missed its SLO: {inv.failed} of {inv.requests} failed and {late} "
            f"took over {SLO * 1000:.0f} ms (the SLO allows 1%; time the machine stalled the run is not "
            "counted) while Payment was slow"
        )
        if run.busy and not inv.failed:  # late, not failed: a starved machine makes requests late too
            said += f", but {run.busy}: run it again before you change the stack"
        return Verdict(False, said)
    if not any(failed for _, _, failed in run.samples):
        return Verdict(
            False,
            "the compartment's counters never showed Payment failing during the "
            "slowdown, so no alert could fire: does its timeout end its calls?",
        )
    return Verdict(
        True,
        f"with Payment slowed by 3 s, it held at most {run.payment_peak} calls (your "
        f"limit {limit}, its owners' {CAPACITY}); every request ended by its timeout; "
        f"Payment retried {pay.retries} times within its own budget; Inventory kept its "
        f"SLO ({inv.requests} requests, none failed, 99% within {SLO * 1000:.0f} ms); "
        f"the counters showed Payment's {pay.failed_calls} failed calls as they happened",
    )
