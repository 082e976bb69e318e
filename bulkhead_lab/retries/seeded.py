"""Notebook 06's seeded runs of retrying callers in lesson 000's rounds: their load over time on
both days, the storm after a slowdown's end, and the ratio budgets its exercises search.

Every run is :func:`~bulkhead_lab.retries.storm.retry_run`'s (kept, so a slider moved back and
forth replays nothing). A *layout* is a split (``None``: one pool).
"""

from __future__ import annotations

from dataclasses import dataclass

from bulkhead_lab.pool.arrivals import EVENT, TRACKING
from bulkhead_lab.pool.params import LESSON_SPLIT, MODES, Mode, Params
from bulkhead_lab.retries.budgets import SRE_BUDGET, RatioBudget
from bulkhead_lab.retries.drain import DRAIN_WITHIN, STORM_STOP, drain
from bulkhead_lab.retries.policy import SRE_MAX_ATTEMPTS, Backoff, RetryPolicy
from bulkhead_lab.retries.storm import FlowCounters, RetryRun, RetrySetup, retry_run
from bulkhead_lab.validation import check_int

LESSON = Params()
LESSON_POLICY = RetryPolicy(
    SRE_MAX_ATTEMPTS, Backoff()
)  # the AWS SDK's: 3 attempts, full jitter, 100 ms, 20 s
FLOWS = (TRACKING, EVENT)
BIN = 50  # rounds per point of the load over time (0.5 s)
STORM_BIN = 10  # rounds per point around the slowdown's end
STORM_BEFORE, STORM_AFTER = 200, 300  # rounds shown around the slowdown's end
LOAD_CAP = 1.2  # exercise 1: the event flow's calls per request through the slowdown
SLOWDOWN = LESSON.with_(split=LESSON_SPLIT, mode="slowdown")
RETRYING = RetrySetup(LESSON_POLICY)  # the panels' callers: 3 attempts, full jitter, no budget

Layout = int | None
Rates = dict[tuple[Layout, int], dict[str, tuple[float, ...]]]


def layouts(split: Layout) -> tuple[Layout, ...]:
    """One pool, and ``split`` beside it."""
    return (None,) if split is None else (None, split)


def run(split: Layout, mode: Mode, setup: RetrySetup, base: Params = LESSON) -> RetryRun:
    """One kept run with its trace (a healthy day never reads ``stop``: it shares the run without)."""
    if mode == "healthy" and setup.stop is not None:
        setup = setup.with_(stop=None)
    return retry_run(base.with_(split=split, mode=mode), setup, trace=True)


def per_request(*flows: FlowCounters) -> float:
    """Calls that reached the pool per original request, over ``flows`` (1.0: no retries)."""
    return sum(f.attempts for f in flows) / sum(f.requests for f in flows)


def per_second(series: tuple[int, ...], width: int, cycle: float) -> tuple[float, ...]:
    """``series`` summed over bins of ``width`` rounds, as a rate per second."""
    return tuple(sum(series[i : i + width]) * cycle / width for i in range(0, len(series), width))


@dataclass(frozen=True)
class RetryLoad:
    """One pool and a split, both days, with retrying callers. ``rates[(layout, flow)]`` holds per
    bin, in calls/s: requests, calls on the healthy and on the slowdown day, and requests given up
    on the slowdown day."""

    split: Layout
    setup: RetrySetup
    start: int  # the failure round
    time: tuple[float, ...]  # each bin's start, s
    rates: Rates
    runs: dict[tuple[Layout, Mode], RetryRun]

    @property
    def layouts(self) -> tuple[Layout, ...]:
        return layouts(self.split)


def _rates(h: RetryRun, y: RetryRun, flow: int) -> dict[str, tuple[float, ...]]:
    assert h.trace is not None and y.trace is not None
    requests = tuple(o - r for o, r in zip(y.trace.offered[flow], y.trace.retries[flow], strict=True))
    named = {"requests": requests, "healthy": h.trace.offered[flow], "slowdown": y.trace.offered[flow]}
    named["gave up"] = y.trace.gave_up[flow]
    return {k: per_second(v, BIN, LESSON.cycle) for k, v in named.items()}


def retry_load(split: Layout = LESSON_SPLIT, setup: RetrySetup = RETRYING) -> RetryLoad:
    """The single pool and ``split`` on both days with ``setup``'s callers, per flow over time."""
    runs = {(s, m): run(s, m, setup) for s in layouts(split) for m in MODES}
    rates = {
        (s, f): _rates(runs[(s, "healthy")], runs[(s, "slowdown")], f) for s in layouts(split) for f in FLOWS
    }
    time = tuple(t / LESSON.cycle for t in range(0, LESSON.rounds, BIN))
    return RetryLoad(split, setup, LESSON.start, time, rates, runs)


@dataclass(frozen=True)
class StormLoad:
    """A slowdown that ends at ``stop``: calls/s above the healthy day's around it, per layout and
    flow, and the rounds until each flow's load is back (:func:`~bulkhead_lab.retries.drain.drain`;
    ``None``: not within the run)."""

    split: Layout
    setup: RetrySetup
    stop: int
    rounds: tuple[int, ...]  # each bin's first round
    excess: dict[tuple[Layout, int], tuple[float, ...]]
    thresholds: dict[int, float]  # per flow, calls/s: what "back" allows (10% of its requests)
    backs: dict[tuple[Layout, int], int | None]

    @property
    def layouts(self) -> tuple[Layout, ...]:
        return layouts(self.split)

    def back(self, split: Layout) -> int | None:
        """Rounds after ``stop`` until every flow is back (``None``: not within the run)."""
        each = [self.backs[(split, f)] for f in FLOWS]
        return None if None in each else max(b for b in each if b is not None)


def storm_load(
    split: Layout = LESSON_SPLIT, setup: RetrySetup = RETRYING, stop: int = STORM_STOP
) -> StormLoad:
    """Both days of one pool and ``split`` with ``setup``'s callers, the slowdown ending at ``stop``."""
    check_int("stop", stop, LESSON.start, LESSON.rounds - STORM_AFTER)
    setup, first, last = setup.with_(stop=stop), stop - STORM_BEFORE, stop + STORM_AFTER
    excess: dict[tuple[Layout, int], tuple[float, ...]] = {}
    backs: dict[tuple[Layout, int], int | None] = {}
    for s in layouts(split):
        h, y = (run(s, mode, setup).trace for mode in MODES)
        assert h is not None and y is not None
        for f in FLOWS:
            above = (a - b for a, b in zip(y.offered[f][first:last], h.offered[f][first:last], strict=True))
            excess[(s, f)] = per_second(tuple(above), STORM_BIN, LESSON.cycle)
            backs[(s, f)] = drain(y, h, stop, flows=(f,))
    thresholds = {TRACKING: LESSON.tracking_rate * DRAIN_WITHIN, EVENT: LESSON.event_rate * DRAIN_WITHIN}
    return StormLoad(split, setup, stop, tuple(range(first, last, STORM_BIN)), excess, thresholds, backs)


# --- the exercises' searches: 24/8 through the slowdown with a whole-percent ratio budget ---------


def ratio_run(ratio: int | None, shared: bool = False) -> RetryRun:
    """24/8 through the slowdown with a ``ratio``% budget (None: the SRE book's 10%), per flow or shared."""
    if ratio is None:
        return retry_run(SLOWDOWN, RetrySetup(LESSON_POLICY, SRE_BUDGET))
    check_int("ratio", ratio, 0, 100)
    return retry_run(SLOWDOWN, RetrySetup(LESSON_POLICY, RatioBudget(ratio / 100), shared=shared))


def event_load(ratio: int) -> float:
    """24/8's event flow through the slowdown: calls per request with a ``ratio``% budget of its own."""
    return ratio_run(ratio).event.load


def largest_ratio_under(cap: float = LOAD_CAP) -> int:
    """The largest whole-percent budget (kept per flow) holding the event flow at or under ``cap``."""
    best = 0
    for ratio in range(101):  # the load grows with the ratio: stop at the first one over the cap
        if event_load(ratio) > cap:
            return best
        best = ratio
    return best


def tracking_gave_up(ratio: int, shared: bool = True) -> int:
    """24/8's tracking requests given up through the slowdown with a ``ratio``% budget."""
    return ratio_run(ratio, shared).tracking.gave_up


def own_budget_level() -> int:
    """Tracking's given-up requests under 24/8 through the slowdown with the SRE 10% kept per flow."""
    return ratio_run(None).tracking.gave_up


def smallest_shared_ratio() -> int:
    """The smallest whole-percent shared budget at which tracking gives up no more than with its own."""
    target = own_budget_level()
    return next(r for r in range(101) if tracking_gave_up(r) <= target)
