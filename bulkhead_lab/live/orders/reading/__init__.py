"""A finished live run read: the one place that turns an :class:`~..results.OrdersRun` (or a storm's
counts) into rows, facts and the lines nbval compares. Nothing here touches a socket or draws.

- :mod:`.burst`: lesson 004's burst (notebook 04): labels, bars, counters, check.js, the keep-alive facts;
  the names notebook 04's cells read as ``reading.<name>`` are here too;
- :mod:`.adaptive`: a steady load through an adaptive limit (notebook 05): its phases, facts and view;
- :mod:`.retries`: retrying clients (notebook 06): what each layer counted, what holds for the four.
"""

# ruff: noqa: F401  (notebook 04 reads these as reading.<name>)
from bulkhead_lab.live.orders.reading.burst import (
    LESSON_AXIS,
    bulkhead_counters_text,
    facts,
    keepalive_text,
    refusal_text,
    served_in_turn,
)
