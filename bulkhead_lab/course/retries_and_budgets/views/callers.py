"""Notebook 06's callers: the sliders' choices as a :class:`~bulkhead_lab.retries.storm.RetrySetup`,
kept runs, and the seeded tables of sections 4 and 5 (retrying callers in one pool and in 24/8;
a budget kept per flow or shared by both)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from bulkhead_lab.pool.arrivals import EVENT, TRACKING
from bulkhead_lab.pool.params import LESSON_SPLIT, MODES, Mode, Params, split_label
from bulkhead_lab.retries.budgets import AWS_QUOTA, ENVOY_BUDGET, SRE_BUDGET, Budget, RatioBudget
from bulkhead_lab.retries.policy import BASE_ROUNDS, CAP_ROUNDS, SRE_MAX_ATTEMPTS, Backoff, RetryPolicy
from bulkhead_lab.retries.policy import JITTERS as JITTER_KINDS
from bulkhead_lab.retries.storm import FlowCounters, RetryRun, RetrySetup, retry_run
from bulkhead_lab.validation import check_choice, check_int

LESSON = Params()
LESSON_POLICY = RetryPolicy(
    SRE_MAX_ATTEMPTS, Backoff()
)  # the AWS SDK's: 3 attempts, full jitter, 100 ms, 20 s
FLOWS = ((TRACKING, "tracking"), (EVENT, "event"))

# The panels' choices, as a learner reads them.
JITTERS = ("at once", "none", "full", "equal", "decorrelated")  # "at once": no backoff, the next round
BASES = (1, 2, 5, 10, 20, 50)  # backoff base in rounds (10 rounds = 100 ms, the AWS SDK's)
BUDGETS: dict[str, Budget | None] = {
    "none": None,
    "5%": RatioBudget(0.05),
    "10% (SRE)": SRE_BUDGET,
    "20%, at least 3 (Envoy)": ENVOY_BUDGET,
    "30%": RatioBudget(0.30),
    "50%": RatioBudget(0.50),
    "AWS quota": AWS_QUOTA,
}
SCOPES = ("each flow", "both flows")  # whose books a budget keeps: per flow, or one for the client


@dataclass(frozen=True)
class WideTable:
    """A table whose text cells show in full: a notebook shows a bare frame with its cells cut at
    50 characters, and the sources' sentences are longer."""

    frame: pd.DataFrame

    def __repr__(self) -> str:
        return self.frame.to_string()

    def _repr_html_(self) -> str:
        return self.frame.to_html()


def jitter_label(jitter: str) -> str:
    """How a jitter choice reads in a table: "retry at once", "no jitter", "full jitter" ..."""
    return "retry at once" if jitter == "at once" else "no jitter" if jitter == "none" else f"{jitter} jitter"


def setup_of(
    attempts: int = SRE_MAX_ATTEMPTS,
    jitter: str = "full",
    base: float = BASE_ROUNDS,
    budget: str = "none",
    scope: str = SCOPES[0],
    stop: int | None = None,
) -> RetrySetup:
    """The callers the sliders describe: attempts, jitter (or "at once"), base, budget, its scope."""
    check_int("attempts", attempts, 1, 100)
    check_choice("jitter", jitter, JITTERS)
    check_choice("budget", budget, tuple(BUDGETS))
    check_choice("scope", scope, SCOPES)
    backoff = (
        None
        if jitter == "at once"
        else Backoff(base, max(CAP_ROUNDS, base), check_choice("jitter", jitter, JITTER_KINDS))
    )
    return RetrySetup(RetryPolicy(attempts, backoff), BUDGETS[budget], stop, shared=scope == SCOPES[1])


def run(split: int | None, mode: str, setup: RetrySetup, base: Params = LESSON) -> RetryRun:
    """One kept run with its trace (a healthy day never reads ``stop``: it shares the run without)."""
    if mode == "healthy" and setup.stop is not None:
        setup = setup.with_(stop=None)
    return retry_run(base.with_(split=split, mode=mode), setup, trace=True)


def calls_per_request(*flows: FlowCounters) -> float:
    """Calls that reached the pool per original request, over ``flows`` (1.0: no retries)."""
    return sum(f.attempts for f in flows) / sum(f.requests for f in flows)


def per_second(series: tuple[int, ...], width: int, cycle: float) -> tuple[float, ...]:
    """``series`` summed over bins of ``width`` rounds, as a rate per second."""
    scale = cycle / width
    return tuple(sum(series[i : i + width]) * scale for i in range(0, len(series), width))


# --- 4. retrying callers in lesson 000's rounds ---------------------------------------------

CALLERS: dict[str, RetrySetup] = {
    "no retries": RetrySetup(),
    "3 attempts, full jitter": RetrySetup(LESSON_POLICY),
    "3 attempts, full jitter, SRE 10%": RetrySetup(LESSON_POLICY, SRE_BUDGET),
}


def _gave_up_row(setup: RetrySetup, split: int | None) -> dict[str, object]:
    h, y = (run(split, mode, setup) for mode in MODES)
    return {
        "healthy: tracking gave up": h.tracking.gave_up,
        "slowdown: tracking gave up": y.tracking.gave_up,
        "slowdown: tracking calls/request": round(y.tracking.load, 3),
        "healthy: event gave up": h.event.gave_up,
        "slowdown: event gave up": y.event.gave_up,
        "slowdown: event calls/request": round(y.event.load, 3),
    }


def retry_table(callers: dict[str, RetrySetup] | None = None) -> pd.DataFrame:
    """Requests given up and calls per request, per flow, one pool against 24/8, for a few callers."""
    rows = [
        {"callers": name, "layout": split_label(split), **_gave_up_row(setup, split)}
        for name, setup in (callers or CALLERS).items()
        for split in (None, LESSON_SPLIT)
    ]
    return pd.DataFrame(rows).set_index(["callers", "layout"])


def seeded_budget_fact() -> str:
    """The budget holding the slowdown's load near 1.1x, in the seeded rounds."""
    free, sre = (CALLERS[k] for k in list(CALLERS)[1:])
    bulk = [run(LESSON_SPLIT, "slowdown", c).event.load for c in (free, sre)]
    single = [calls_per_request(r.tracking, r.event) for r in (run(None, "slowdown", c) for c in (free, sre))]
    return (
        f"through the slowdown the SRE 10% budget holds 24/8's event flow at {bulk[1]:.3f}x its "
        f"requests ({bulk[0]:.3f}x without) and the single pool at {single[1]:.3f}x "
        f"({single[0]:.3f}x without)"
    )


@dataclass(frozen=True)
class FlowSeries:
    """One flow in one layout over the run, per bin, in calls per second."""

    time: tuple[float, ...]  # each bin's start, s
    requests: tuple[float, ...]  # the lesson's arrivals (the same on both days)
    healthy: tuple[float, ...]  # calls offered on the healthy day (requests and retries)
    slowdown: tuple[float, ...]  # calls offered on the slowdown day
    gave_up: tuple[float, ...]  # requests given up on the slowdown day


BIN = 50  # rounds per point of the time figure (0.5 s)


@dataclass(frozen=True)
class RetryView:
    """The single pool and a split, both days, with retrying callers: what the retry panel draws."""

    split: int | None
    setup: RetrySetup
    start: int  # the failure round
    cycle: float
    runs: dict[tuple[int | None, Mode], RetryRun]
    series: dict[tuple[int | None, int], FlowSeries]
    frame: pd.DataFrame  # index (layout, day)

    @property
    def layouts(self) -> tuple[int | None, ...]:
        return (None,) if self.split is None else (None, self.split)

    def sentence(self, split: int | None) -> str:
        """What the slowdown day costs one layout: requests given up per flow."""
        y = self.runs[(split, "slowdown")]
        return f"{split_label(split)} tracking {y.tracking.gave_up}, event {y.event.gave_up}"


def _series(h: RetryRun, y: RetryRun, flow: int, width: int, cycle: float) -> FlowSeries:
    assert h.trace is not None and y.trace is not None
    requests = tuple(o - r for o, r in zip(y.trace.offered[flow], y.trace.retries[flow], strict=True))
    rounds = len(requests)
    return FlowSeries(
        tuple(t / cycle for t in range(0, rounds, width)),
        per_second(requests, width, cycle),
        per_second(h.trace.offered[flow], width, cycle),
        per_second(y.trace.offered[flow], width, cycle),
        per_second(y.trace.gave_up[flow], width, cycle),
    )


def retry_view(
    split: int | None = LESSON_SPLIT,
    setup: RetrySetup = CALLERS["3 attempts, full jitter"],
    base: Params = LESSON,
) -> RetryView:
    """The single pool and ``split`` on both days with ``setup``'s callers, per flow over time."""
    layouts = (None,) if split is None else (None, split)
    runs = {(s, m): run(s, m, setup, base) for s in layouts for m in MODES}
    series = {
        (s, f): _series(runs[(s, "healthy")], runs[(s, "slowdown")], f, BIN, base.cycle)
        for s in layouts
        for f, _ in FLOWS
    }
    rows = []
    for (s, mode), r in runs.items():
        rows.append(
            {
                "layout": split_label(s, base.total),
                "day": mode,
                "tracking gave up": r.tracking.gave_up,
                "tracking calls/request": round(r.tracking.load, 3),
                "event gave up": r.event.gave_up,
                "event calls/request": round(r.event.load, 3),
                "retries": r.tracking.retries + r.event.retries,
                "calls/request": round(calls_per_request(r.tracking, r.event), 3),
            }
        )
    frame = pd.DataFrame(rows).set_index(["layout", "day"])
    return RetryView(split, setup, base.start, base.cycle, runs, series, frame)


# --- 5. whose budget: each flow's, or one for the client ------------------------------------


def budget_scope_table(budget: str = "10% (SRE)", split: int = LESSON_SPLIT) -> pd.DataFrame:
    """One pool and ``split``, the budget kept per flow or shared by both, on both days."""
    rows = [
        {
            "layout": split_label(s),
            "budget kept for": scope,
            **_gave_up_row(setup_of(budget=budget, scope=scope), s),
        }
        for s in (None, split)
        for scope in SCOPES
    ]
    return pd.DataFrame(rows).set_index(["layout", "budget kept for"])


SWEEP_RATIOS = (0.0, 0.05, 0.10, 0.20, 0.30, 0.50, 1.0)


def single_pool_budget_table(ratios: tuple[float, ...] = SWEEP_RATIOS) -> pd.DataFrame:
    """Slowdown day, 3 attempts with full jitter: tracking's given-up requests per ratio budget
    (kept per flow), in one pool and in 24/8. No budget brings the single pool near 24/8."""
    rows = []
    for ratio in ratios:
        setup = RetrySetup(LESSON_POLICY, RatioBudget(ratio))
        single, bulk = (run(s, "slowdown", setup) for s in (None, LESSON_SPLIT))
        rows.append(
            {
                "retry budget": f"{ratio:.0%}",
                "single pool: tracking gave up": single.tracking.gave_up,
                "single pool: calls/request": round(calls_per_request(single.tracking, single.event), 3),
                "24/8: tracking gave up": bulk.tracking.gave_up,
                "24/8: event calls/request": round(bulk.event.load, 3),
            }
        )
    return pd.DataFrame(rows).set_index("retry budget")


def capacity_fact(base: Params = LESSON) -> str:
    """Why no budget rescues the single pool: the slowdown asks for more slots than there are."""
    event = base.event_rate * base.slow / base.cycle
    tracking = base.tracking_rate * base.hold_tracking / base.cycle
    return (
        f"through the slowdown the events alone hold {event:.1f} slots on average and tracking "
        f"{tracking:.1f}: {event + tracking:.1f} > {base.total} slots. A retry makes no slot; a "
        "budget only decides whose calls are refused."
    )
