"""A finished live run read: the one place that turns an :class:`~..results.OrdersRun` (or a storm's
counts) into rows, facts and the lines nbval compares. Import from here; nothing here touches a socket
or draws.

- :mod:`.burst`: lesson 004's burst (notebook 04): labels, bars, counters, check.js, the keep-alive facts;
- :mod:`.adaptive`: a steady load through an adaptive limit (notebook 05): its phases, facts and view;
- :mod:`.retries`: retrying clients (notebook 06): what each layer counted, what holds for the four.
"""

# ruff: noqa: F401  (every name imported here is what the package gives its readers)
from bulkhead_lab.live.orders.reading.adaptive import (
    SLOW_FORS,
    AdaptiveFacts,
    LiveView,
    adaptive_facts,
    live_view,
    over_limit,
    slowdown_load,
    span,
    value_at,
)
from bulkhead_lab.live.orders.reading.burst import (
    IDLE_WAIT,
    LESSON_AXIS,
    REFUSAL_UNDER,
    STOCK_UNDER,
    TOLERANCE,
    Check,
    KeepaliveFacts,
    Step,
    bars,
    bulkhead_counters_text,
    check_orders,
    counters,
    facts,
    inventory_idle_while_orders_waited,
    keepalive_facts,
    keepalive_text,
    nice_end,
    payment_state,
    refusal_text,
    refusals_before_first_answer,
    run_label,
    served_in_turn,
    slowest_at_least_waves,
    stock_after_every_order,
    stock_waited_for_payment,
    time_axis,
    waited_out_keepalive,
    wave_ends,
)
from bulkhead_lab.live.orders.reading.retries import (
    RetryFacts,
    budget_line,
    queued_waits,
    ratio_bound,
    retry_checks,
    retry_facts,
)
