"""The numbers notebook 06 shows: amplification, budgets' worst case, contention, and retrying
callers in lesson 000's seeded rounds (each day, each layout, each budget), as plain data.

Each view returns a frozen dataclass or a pandas frame; :mod:`.figures` draws them and
:mod:`.panels` wires them to sliders. Every seeded run comes from
:func:`bulkhead_lab.retries.storm.retry_run` (kept, so a slider moved back and forth replays nothing);
the pure experiments from :mod:`bulkhead_lab.retries.policy`. A *setup* is how the callers retry
(:class:`~bulkhead_lab.retries.storm.RetrySetup`); a *layout* is a split (``None``: one pool).

Split by section: :mod:`.sources` (1-3: the sources' figures, computed), :mod:`.callers` (4-5:
retrying callers in lesson 000's rounds, budgets per flow or shared), :mod:`.storm` (6: the load
after the slowdown ends), :mod:`.live` (8: retrying clients against lesson 004's Order Service, live).
"""

from bulkhead_lab.course.retries_and_budgets.views.callers import (
    BASES,
    BIN,
    BUDGETS,
    CALLERS,
    FLOWS,
    JITTERS,
    LESSON,
    LESSON_POLICY,
    SCOPES,
    SWEEP_RATIOS,
    FlowSeries,
    RetryView,
    WideTable,
    budget_scope_table,
    calls_per_request,
    capacity_fact,
    jitter_label,
    per_second,
    retry_table,
    retry_view,
    run,
    seeded_budget_fact,
    setup_of,
    single_pool_budget_table,
)
from bulkhead_lab.course.retries_and_budgets.views.live import (
    CLIENTS,
    ORDERS,
    PER_ORDER,
    LiveClients,
    live_beside,
    live_facts,
    live_frame,
    live_runs,
    ratio_bound,
)
from bulkhead_lab.course.retries_and_budgets.views.sources import (
    WORST_CASES,
    ContentionView,
    amplification_fact,
    amplification_table,
    beside_the_sources,
    budget_fact,
    contention_fact,
    contention_view,
    worst_case_table,
)
from bulkhead_lab.course.retries_and_budgets.views.storm import (
    BACK,
    DRAIN_CALLERS,
    NEVER,
    STORM_AFTER,
    STORM_BEFORE,
    STORM_BIN,
    StormView,
    drain_table,
    storm_view,
)

__all__ = [
    "BACK",
    "BASES",
    "BIN",
    "BUDGETS",
    "CALLERS",
    "CLIENTS",
    "ContentionView",
    "DRAIN_CALLERS",
    "FLOWS",
    "FlowSeries",
    "JITTERS",
    "LESSON",
    "LESSON_POLICY",
    "LiveClients",
    "NEVER",
    "ORDERS",
    "PER_ORDER",
    "RetryView",
    "SCOPES",
    "STORM_AFTER",
    "STORM_BEFORE",
    "STORM_BIN",
    "SWEEP_RATIOS",
    "StormView",
    "WORST_CASES",
    "WideTable",
    "amplification_fact",
    "amplification_table",
    "beside_the_sources",
    "budget_fact",
    "budget_scope_table",
    "calls_per_request",
    "capacity_fact",
    "contention_fact",
    "contention_view",
    "drain_table",
    "jitter_label",
    "live_beside",
    "live_facts",
    "live_frame",
    "live_runs",
    "per_second",
    "ratio_bound",
    "retry_table",
    "retry_view",
    "run",
    "seeded_budget_fact",
    "setup_of",
    "single_pool_budget_table",
    "storm_view",
    "worst_case_table",
]
