"""How long a retry storm outlives its trigger: a slowdown that ends, and the rounds until the
offered load is back to the healthy day's (:mod:`bulkhead_lab.retries.storm`'s traces, both days
on the same stream, setup and seeds)."""

from __future__ import annotations

from itertools import accumulate

from bulkhead_lab.pool.arrivals import EVENT, TRACKING
from bulkhead_lab.retries.storm import RetryTrace

STORM_STOP = 2000  # our choice: the slowdown of round 1000 (lesson 000's start) ends 10 s later
DRAIN_WINDOW = 100  # rounds (1 s) the drain measure sums over
DRAIN_WITHIN = 0.10  # "back": the excess load is at most 10% of the originals


def drain(
    trace: RetryTrace,
    healthy: RetryTrace,
    stop: int,
    *,
    flows: tuple[int, ...] = (TRACKING, EVENT),
    window: int = DRAIN_WINDOW,
    within: float = DRAIN_WITHIN,
) -> int | None:
    """Rounds from ``stop`` (the trigger's end) until the offered load is back to the healthy day's.

    ``healthy`` is the same run on the healthy day (same stream, setup, seeds): the load
    without the trigger. It is *back* at round ``r`` when over the ``window`` rounds from
    ``r`` the calls offered exceed the healthy day's by at most ``within`` times the
    originals (``flows`` summed). The first such ``r >= stop``, minus ``stop``, or ``None``."""
    rounds = len(trace.offered[0])
    excess, originals = [0] * (rounds - stop), [0] * (rounds - stop)  # from ``stop`` on only
    for f in flows:
        seen, calm, again = trace.offered[f][stop:], healthy.offered[f][stop:], healthy.retries[f][stop:]
        excess = [x + a - b for x, a, b in zip(excess, seen, calm, strict=True)]
        originals = [x + b - r for x, b, r in zip(originals, calm, again, strict=True)]
    e_sum, o_sum = [0, *accumulate(excess)], [0, *accumulate(originals)]
    for r in range(rounds - stop - window + 1):
        if e_sum[r + window] - e_sum[r] <= within * (o_sum[r + window] - o_sum[r]):
            return r
    return None
