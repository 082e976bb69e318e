"""Notebook 06's sections 1-3, from the sources: amplification down a call chain, the budgets'
worst case (every call refused), and Brooker's contention experiment (backoff with and without jitter)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from bulkhead_lab.course.retries_and_budgets.views.callers import CALLERS, LESSON_POLICY, WideTable, run
from bulkhead_lab.course.retries_and_budgets.views.storm import storm_view
from bulkhead_lab.retries.budgets import AWS_QUOTA, ENVOY_BUDGET, SRE_BUDGET, Budget
from bulkhead_lab.retries.experiments import (
    SRE_ATTEMPTS_PER_LAYER,
    SRE_LAYERS,
    amplification,
    calls_per_layer,
    contention_table,
    worst_case_load,
)
from bulkhead_lab.retries.policy import SRE_MAX_ATTEMPTS

# --- 1. amplification and 2. the budgets' worst case ----------------------------------------


def amplification_fact(attempts: int = SRE_ATTEMPTS_PER_LAYER, depth: int = SRE_LAYERS) -> str:
    """The SRE book's figure, computed: ``4 attempts over 3 layers = 64 calls``."""
    return f"{attempts} attempts over {depth} layers = {amplification(attempts, depth)} calls"


def amplification_table(attempts: tuple[int, ...] = (1, 2, 3, 4, 5), depth: int = SRE_LAYERS) -> pd.DataFrame:
    """Calls reaching each layer for one user action when every call fails, per attempts per layer."""
    rows = {
        f"{a} attempt{'s' if a > 1 else ''} per layer": {
            f"layer {d}": n for d, n in enumerate(calls_per_layer(a, depth), start=1)
        }
        for a in attempts
    }
    frame = pd.DataFrame(rows).T
    frame.index.name = "each layer makes"
    return frame


WORST_CASES: dict[str, tuple[Budget | None, str, str]] = {  # budget, the source's rule, its figure
    "no budget": (None, "SRE ch. 21: at most 3 attempts a request", "somewhat below 3x"),
    "SRE 10%": (SRE_BUDGET, "SRE ch. 21: retry while retries < 10% of requests", "about 1.1x"),
    "Envoy": (ENVOY_BUDGET, "Envoy retry_budget: 20% of active requests, at least 3", "(no figure)"),
    "AWS quota": (AWS_QUOTA, "AWS SDK: 500 tokens, 5 a retry, refilled by successes", "(no figure)"),
}


def worst_case_table() -> WideTable:
    """Every call refused, 3 attempts with full jitter: the load each budget lets through."""
    rows = []
    for name, (budget, rule, figure) in WORST_CASES.items():
        w = worst_case_load(LESSON_POLICY, budget)
        rows.append(
            {
                "budget": name,
                "the source's rule": rule,
                "the source's worst case": figure,
                "here: calls per request": round(w.load, 3),
                "here: retries": w.attempts - w.requests,
                "requests": w.requests,
            }
        )
    return WideTable(pd.DataFrame(rows).set_index("budget"))


def budget_fact() -> str:
    """The SRE book's worst case, computed: 3x without a budget, about 1.1x with 10%."""
    none, sre = (worst_case_load(LESSON_POLICY, b).load for b in (None, SRE_BUDGET))
    return (
        f"every call refused, {SRE_MAX_ATTEMPTS} attempts: no budget {none:.3f}x the requests; "
        f"the SRE 10% budget {sre:.3f}x (the book: about 1.1x)"
    )


# --- 3. contention: backoff with and without jitter -----------------------------------------


@dataclass(frozen=True)
class ContentionView:
    """Brooker's experiment: mean calls and completion step per strategy and client count."""

    frame: pd.DataFrame  # index (strategy, clients): calls, completion
    runs: int

    def at(self, clients: int = 50) -> pd.DataFrame:
        """The strategies at one client count, as the notebook's table shows them."""
        part = self.frame.xs(clients, level="clients")
        return part.rename(
            columns={"calls": f"calls ({clients} clients)", "completion": "last success (step)"}
        )


def contention_view(runs: int = 10) -> ContentionView:
    """Brooker's five strategies at 10..50 clients, each averaged over ``runs`` seeds (~60 ms)."""
    rows = contention_table(runs=runs)
    frame = pd.DataFrame(
        [(r.strategy, r.clients, r.calls, r.completion) for r in rows],
        columns=["strategy", "clients", "calls", "completion"],
    ).set_index(["strategy", "clients"])
    return ContentionView(frame, runs)


def contention_fact(view: ContentionView, clients: int = 50) -> str:
    """Jittered backoff against none, for ``clients`` contending clients: total calls and completion."""
    at = view.frame.xs(clients, level="clients")
    parts = [
        f"{name.replace('exponential, ', '')} {at.loc[name, 'calls']:g} calls, done at step "
        f"{at.loc[name, 'completion']:g}"
        for name in at.index
        if name != "no backoff"
    ]
    return f"{clients} contending clients (mean of {view.runs} seeds): " + "; ".join(parts)


# --- 7. the sources beside this notebook --------------------------------------------------------


def beside_the_sources() -> WideTable:
    """Each source's figure or claim beside what this notebook computes (the seeded runs kept)."""
    worst = {name: worst_case_load(LESSON_POLICY, budget) for name, (budget, _, _) in WORST_CASES.items()}
    at = contention_view().frame.xs(50, level="clients")
    free, sre = (run(24, "slowdown", CALLERS[k]).event.load for k in list(CALLERS)[1:])
    storm = storm_view(None, CALLERS["3 attempts, full jitter"]).back(None)
    rows = [
        (
            "SRE book ch. 22",
            "4 attempts at each of 3 layers: 64 attempts at the bottom",
            amplification_fact(),
        ),
        (
            "SRE book ch. 21",
            "at most 3 attempts: load somewhat below 3x",
            f"{worst['no budget'].load:.3f}x (every call refused: the cap itself)",
        ),
        (
            "SRE book ch. 21",
            "with a 10% per-client retry budget: about 1.1x",
            f"{worst['SRE 10%'].load:.3f}x (24/8's event flow through the slowdown: {sre:.3f}x, "
            f"{free:.3f}x without)",
        ),
        ("Envoy retry_budget", "20% of active requests, at least 3", f"{worst['Envoy'].load:.3f}x"),
        (
            "AWS SDK retry quota",
            "500 tokens, 5 a retry, 1 back per success",
            f"{worst['AWS quota'].attempts - worst['AWS quota'].requests} retries, then none "
            "(no success refills it)",
        ),
        (
            "Brooker (2015)",
            "no jitter: the clear loser, clients stay in lockstep",
            f"{at.loc['exponential, no jitter', 'calls']:g} calls, last success at step "
            f"{at.loc['exponential, no jitter', 'completion']:g} (50 clients)",
        ),
        (
            "Brooker (2015)",
            "full jitter less work, decorrelated slightly less time, equal jitter slower",
            "; ".join(
                f"{s.split()[0]} {at.loc[s, 'calls']:g} calls, step {at.loc[s, 'completion']:g}"
                for s in ("full jitter", "decorrelated jitter", "equal jitter")
            ),
        ),
        (
            "Huang et al. (OSDI '22)",
            "retries can sustain an overload after its trigger is gone (metastable failure)",
            f"not in this model: the single pool's load is back {storm} rounds after the slowdown ends",
        ),
    ]
    return WideTable(pd.DataFrame(rows, columns=["source", "the source says", "here"]).set_index("source"))
