"""The tables notebook 06 shows, read from the model's seeded runs (:mod:`bulkhead_lab.retries.seeded`)
and experiments (:mod:`bulkhead_lab.retries.experiments`). A *setup* is how the callers retry
(:class:`~bulkhead_lab.retries.storm.RetrySetup`); a *layout* is a split (``None``: one pool).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from bulkhead_lab.course.ui import claim_table
from bulkhead_lab.pool.arrivals import EVENT, TRACKING
from bulkhead_lab.pool.params import CYCLE, LESSON_SPLIT, MODES, split_label
from bulkhead_lab.retries.budgets import AWS_QUOTA, ENVOY_BUDGET, SRE_BUDGET, Budget, EnvoyBudget, RatioBudget
from bulkhead_lab.retries.drain import STORM_STOP
from bulkhead_lab.retries.experiments import (
    SRE_ATTEMPTS_PER_LAYER,
    SRE_LAYERS,
    InFlightCase,
    WorstCase,
    amplification,
    calls_per_layer,
    contention_table,
    worst_case_load,
)
from bulkhead_lab.retries.policy import BASE_ROUNDS, CAP_ROUNDS, SRE_MAX_ATTEMPTS, Backoff, RetryPolicy
from bulkhead_lab.retries.seeded import (
    LESSON,
    LESSON_POLICY,
    Layout,
    RetryLoad,
    StormLoad,
    per_request,
    retry_load,
    run,
    storm_load,
)
from bulkhead_lab.retries.storm import RetrySetup
from bulkhead_lab.validation import check_choice, check_int

FLOWS = ((TRACKING, "tracking"), (EVENT, "event"))
Table = claim_table.WideFrame  # a table whose sentences show whole

# The panels' choices, as a learner reads them.
JITTERS = ("at once", "none", "full", "equal", "decorrelated")  # "at once": no backoff, the next round
BASES = (1, 2, 5, 10, 20, 50)  # backoff base in rounds (10 rounds = 100 ms, the AWS SDK's)
BUDGETS: dict[str, Budget | None] = {
    "none": None,
    "5%": RatioBudget(0.05),
    "10% (SRE)": SRE_BUDGET,
    "20%": RatioBudget(0.20),
    "30%": RatioBudget(0.30),
    "50%": RatioBudget(0.50),
    "AWS quota": AWS_QUOTA,
}
SCOPES = ("each flow", "both flows")  # whose calls a budget counts: each flow's, or the client's


def setup_of(
    attempts: int = SRE_MAX_ATTEMPTS,
    jitter: str = "full",
    base: float = BASE_ROUNDS,
    budget: str = "none",
    scope: str = SCOPES[0],
) -> RetrySetup:
    """The callers the sliders describe: attempts, jitter (or "at once"), base, budget, its scope."""
    check_int("attempts", attempts, 1, 100)
    check_choice("budget", budget, tuple(BUDGETS))
    check_choice("scope", scope, SCOPES)
    check_choice("jitter", jitter, JITTERS)
    backoff = None if jitter == "at once" else Backoff(base, max(CAP_ROUNDS, base), jitter)  # type: ignore[arg-type]
    return RetrySetup(RetryPolicy(attempts, backoff), BUDGETS[budget], shared=scope == SCOPES[1])


# --- 1. amplification, 2. the budgets' worst case, 3. contention -------------------------------


def amplification_fact(attempts: int = SRE_ATTEMPTS_PER_LAYER, depth: int = SRE_LAYERS) -> str:
    """The SRE book's figure, computed: ``4 attempts over 3 layers = 64 calls``."""
    return f"{attempts} attempts over {depth} layers = {amplification(attempts, depth)} calls"


def amplification_table(attempts: tuple[int, ...] = (1, 2, 3, 4, 5), depth: int = SRE_LAYERS) -> pd.DataFrame:
    """Calls reaching each layer for one user action when every call fails, per attempts per layer."""
    rows = {f"{a} attempt{'s' * (a > 1)} per layer": calls_per_layer(a, depth) for a in attempts}
    columns = [f"layer {d}" for d in range(1, depth + 1)]
    return pd.DataFrame.from_dict(rows, orient="index", columns=columns).rename_axis("each layer makes")


ENVOY = "Envoy: in flight < 20% of active, at least 3"
WORST_CASES: dict[str, tuple[Budget | EnvoyBudget | None, str]] = {  # budget, the source's figure
    "no budget": (None, "somewhat below 3x"),
    "SRE 10%": (SRE_BUDGET, "about 1.1x"),
    ENVOY: (ENVOY_BUDGET, "(no figure)"),
    "AWS quota: 500 tokens, 5 a retry": (AWS_QUOTA, "(no figure)"),
}
RATES = (1, 10, 100, 1000)  # requests a second for the Envoy table: 1 every 100 rounds .. 10 a round


def worst_case_table() -> Table:
    """Every call refused for 20 s, 3 attempts with full jitter: the load each budget lets through."""
    rows = {}
    for name, (budget, figure) in WORST_CASES.items():
        w = worst_case_load(LESSON_POLICY, budget)
        rows[name] = (figure, round(w.load, 3), w.attempts - w.requests)
    return Table.from_dict(rows, orient="index", columns=["the source", "here: calls/request", "retries"])


def _at_rate(per_second: int, budget: Budget | EnvoyBudget | None) -> WorstCase:
    """Section 2's worst case at ``per_second`` requests (whole requests a round, or 1 every few rounds)."""
    per_round, every = (per_second // CYCLE, 1) if per_second >= CYCLE else (1, CYCLE // per_second)
    return worst_case_load(LESSON_POLICY, budget, requests_per_round=per_round, every=every)


def envoy_table() -> pd.DataFrame:
    """Section 2's worst case at a few request rates: calls per request without a budget, with the
    SRE 10% (a share of the calls) and with Envoy's cap on retries in flight (a number at once)."""
    rows = {
        f"{rate:g} a second": {
            name: round(_at_rate(rate, budget).load, 3)
            for name, budget in (("no budget", None), ("SRE 10%", SRE_BUDGET), ("Envoy", ENVOY_BUDGET))
        }
        for rate in RATES
    }
    return _frame(rows, "requests, all refused")


def envoy_fact() -> str:
    """What Envoy's cap saw in the worst case at 10 requests a round, and the rate below which it
    cannot bind (its floor, at the mean time a retry is in flight)."""
    w = worst_case_load(LESSON_POLICY, ENVOY_BUDGET)
    assert isinstance(w, InFlightCase)
    per_round = w.highest_limit / w.mean_in_flight
    return (
        f"10 requests a round, every call refused: Envoy's limit was {w.highest_limit} in every round "
        f"(20% of a round's calls is under {ENVOY_BUDGET.minimum}); a retry was in flight "
        f"{w.mean_in_flight:.1f} rounds on average (its backoff, then its answer), so {w.highest_limit} "
        f"at once let through about {w.highest_limit} / {w.mean_in_flight:.1f} = {per_round:.2f} retries "
        f"a round ({per_round * CYCLE:.0f} a second): {w.load:.3f} calls per request"
    )


@dataclass(frozen=True)
class Contention:
    """Brooker's experiment: mean calls and last success per strategy and client count."""

    frame: pd.DataFrame  # index (strategy, clients): calls, completion
    runs: int

    def at(self, clients: int = 50) -> pd.DataFrame:
        """The strategies at one client count."""
        names = {"calls": f"calls ({clients} clients)", "completion": "last success (step)"}
        return self.frame.xs(clients, level="clients").rename(columns=names)


def contention(runs: int = 10) -> Contention:
    """Brooker's five strategies at 10..50 clients, each averaged over ``runs`` seeds."""
    rows = [(r.strategy, r.clients, r.calls, r.completion) for r in contention_table(runs=runs)]
    frame = pd.DataFrame(rows, columns=["strategy", "clients", "calls", "completion"])
    return Contention(frame.set_index(["strategy", "clients"]), runs)


# --- 4-5. retrying callers in lesson 000's rounds ---------------------------------------------

CALLERS: dict[str, RetrySetup] = {
    "no retries": RetrySetup(),
    "3 attempts, full jitter": RetrySetup(LESSON_POLICY),
    "3 attempts, full jitter, SRE 10%": RetrySetup(LESSON_POLICY, SRE_BUDGET),
}


def _gave_up(setup: RetrySetup, split: Layout) -> dict[str, object]:
    row: dict[str, object] = {}
    for flow in ("tracking", "event"):
        h, y = (getattr(run(split, mode, setup), flow) for mode in MODES)
        row |= {f"healthy: {flow} gave up": h.gave_up, f"slowdown: {flow} gave up": y.gave_up}
        row[f"slowdown: {flow} calls/request"] = round(y.load, 3)
    return row


def _frame(rows: Mapping[Any, Mapping[str, object]], index: str | list[str]) -> pd.DataFrame:
    """A row per key of ``rows`` (a tuple key: one level per name of ``index``)."""
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis(index)


def retry_table() -> pd.DataFrame:
    """Requests given up and calls per request, per flow, one pool against 24/8, for :data:`CALLERS`."""
    rows = {
        (name, split_label(s)): _gave_up(setup, s)
        for name, setup in CALLERS.items()
        for s in (None, LESSON_SPLIT)
    }
    return _frame(rows, ["callers", "layout"])


def seeded_budget_fact() -> str:
    """The SRE budget holding the slowdown's load near 1.1x, in the seeded rounds."""
    free, sre = (CALLERS[k] for k in list(CALLERS)[1:])
    bulk = [run(LESSON_SPLIT, "slowdown", c).event.load for c in (free, sre)]
    one = [per_request(r.tracking, r.event) for r in (run(None, "slowdown", c) for c in (free, sre))]
    return (
        f"through the slowdown the SRE 10% budget holds 24/8's event flow at {bulk[1]:.3f}x its requests "
        f"({bulk[0]:.3f}x without) and the single pool at {one[1]:.3f}x ({one[0]:.3f}x without)"
    )


@dataclass(frozen=True)
class RetryView:
    """What the retry panel draws (:class:`~bulkhead_lab.retries.seeded.RetryLoad`) and its table."""

    load: RetryLoad
    frame: pd.DataFrame  # index (layout, day)


def retry_view(
    split: Layout = LESSON_SPLIT, setup: RetrySetup = CALLERS["3 attempts, full jitter"]
) -> RetryView:
    """The single pool and ``split`` on both days with ``setup``'s callers, per flow over time."""
    load = retry_load(split, setup)
    rows = {
        (split_label(s), mode): {
            "tracking gave up": r.tracking.gave_up,
            "tracking calls/request": round(r.tracking.load, 3),
            "event gave up": r.event.gave_up,
            "event calls/request": round(r.event.load, 3),
            "calls/request": round(per_request(r.tracking, r.event), 3),
        }
        for (s, mode), r in load.runs.items()
    }
    return RetryView(load, _frame(rows, ["layout", "day"]))


def budget_scope_table(budget: str = "10% (SRE)") -> pd.DataFrame:
    """One pool and 24/8, the budget kept for each flow or for both, on both days."""
    rows = {
        (split_label(s), scope): _gave_up(setup_of(budget=budget, scope=scope), s)
        for s in (None, LESSON_SPLIT)
        for scope in SCOPES
    }
    return _frame(rows, ["layout", "budget kept for"])


def single_pool_budget_table(ratios: tuple[float, ...] = (0.0, 0.05, 0.10, 0.20, 0.50, 1.0)) -> pd.DataFrame:
    """Slowdown day, 3 attempts with full jitter: tracking's given-up requests per ratio budget
    (kept per flow), in one pool and in 24/8."""
    rows = {}
    for ratio in ratios:
        setup = RetrySetup(LESSON_POLICY, RatioBudget(ratio))
        one, bulk = (run(s, "slowdown", setup) for s in (None, LESSON_SPLIT))
        rows[f"{ratio:.0%}"] = {
            "single pool: tracking gave up": one.tracking.gave_up,
            "24/8: tracking gave up": bulk.tracking.gave_up,
            "24/8: event calls/request": round(bulk.event.load, 3),
        }
    return _frame(rows, "retry budget")


def capacity_fact() -> str:
    """Why no budget rescues the single pool: the slowdown asks for more slots than there are."""
    event, tracking = (LESSON.event_rate * LESSON.slow, LESSON.tracking_rate * LESSON.hold_tracking)
    event, tracking = event / LESSON.cycle, tracking / LESSON.cycle
    return (
        f"through the slowdown the events alone hold {event:.1f} slots on average and tracking "
        f"{tracking:.1f}: {event + tracking:.1f} > {LESSON.total} slots. A retry makes no slot; a budget "
        "only decides whose calls are refused."
    )


# --- 6. the storm after its trigger -------------------------------------------------------------

NEVER = "never"  # a load not back within the run
BACK = {TRACKING: "tracking back after", EVENT: "event back after"}


def _never(back: int | None) -> int | str:
    return NEVER if back is None else back


@dataclass(frozen=True)
class StormView:
    """What the storm panel draws (:class:`~bulkhead_lab.retries.seeded.StormLoad`) and its table."""

    load: StormLoad
    frame: pd.DataFrame  # index layout


def storm_view(
    split: Layout = LESSON_SPLIT,
    setup: RetrySetup = CALLERS["3 attempts, full jitter"],
    stop: int = STORM_STOP,
) -> StormView:
    """Both days of one pool and ``split`` with ``setup``'s callers, the slowdown ending at ``stop``."""
    load = storm_load(split, setup, stop)
    rows = {
        split_label(s): {
            **{BACK[f]: _never(load.backs[(s, f)]) for f, _ in FLOWS},
            "every flow back after": _never(load.back(s)),
        }
        for s in load.layouts
    }
    return StormView(load, _frame(rows, "layout"))


def drain_table(stop: int = STORM_STOP) -> pd.DataFrame:
    """Rounds after the slowdown's end until each flow's load is back, per jitter, without and with
    the SRE budget, in one pool and in 24/8."""
    rows = {}
    for budget in ("none", "10% (SRE)"):
        for jitter in JITTERS:
            load = storm_load(LESSON_SPLIT, setup_of(jitter=jitter, budget=budget), stop)
            rows[(jitter, budget)] = {
                f"{split_label(s)}: {BACK[f]}": _never(load.backs[(s, f)])
                for s in load.layouts
                for f, _ in FLOWS
            }
    return _frame(rows, ["callers (3 attempts)", "budget"])


# --- appendix: the sources beside this notebook ------------------------------------------------------


def beside_the_sources() -> Table:
    """Each source's figure or claim beside what this notebook computes (the seeded runs kept)."""
    worst = {name: worst_case_load(LESSON_POLICY, b) for name, (b, _) in WORST_CASES.items()}
    at = contention().frame.xs(50, level="clients")
    free, sre = (run(LESSON_SPLIT, "slowdown", CALLERS[k]).event.load for k in list(CALLERS)[1:])
    back = storm_load(None).back(None)
    jitters = "; ".join(
        f"{s.split()[0]} {at.loc[s, 'calls']:g} calls, step {at.loc[s, 'completion']:g}"
        for s in ("full jitter", "decorrelated jitter", "equal jitter")
    )
    quota = worst["AWS quota: 500 tokens, 5 a retry"]
    none = at.loc["exponential, no jitter"]
    rows = [
        ("SRE book ch. 22", "4 attempts at each of 3 layers: 64 at the bottom", amplification_fact()),
        ("SRE book ch. 21", "at most 3 attempts: somewhat below 3x", f"{worst['no budget'].load:.3f}x"),
        (
            "SRE book ch. 21",
            "a 10% per-client budget: about 1.1x",
            f"{worst['SRE 10%'].load:.3f}x (24/8's events in the slowdown: {sre:.3f}x, {free:.3f}x without)",
        ),
        (
            "Envoy retry_budget",
            "concurrent retries under 20% of active requests, at least 3",
            f"{worst[ENVOY].load:.3f}x at 1000 requests a second; "
            f"{_at_rate(RATES[0], ENVOY_BUDGET).load:.3f}x at {RATES[0]} a second "
            "(a cap on retries in flight, their backoff included)",
        ),
        (
            "AWS SDK retry quota",
            "500 tokens, 5 a retry, 1 back per success",
            f"{quota.attempts - quota.requests} retries, then none (no success refills it)",
        ),
        (
            "Brooker (2015)",
            "no jitter: the clear loser, clients stay in lockstep",
            f"{none['calls']:g} calls, last success at step {none['completion']:g} (50 clients)",
        ),
        ("Brooker (2015)", "full jitter less work, decorrelated slightly less time", jitters),
        (
            "Bronson et al. (HotOS '21), Huang et al. (OSDI '22)",
            "retries can sustain an overload after its trigger is gone (metastable failure)",
            f"not in this model, where a refusal costs no slot: the single pool is back {back} rounds "
            "after the slowdown ends",
        ),
    ]
    return Table(rows, columns=["source", "the source says", "here"]).set_index("source")
