"""Bulkhead Lab: the code the course notebooks share.

``pool`` (lesson 000's seeded model: params, arrivals, rounds, sweep, lesson text), ``sizing``
(Little's Law, Erlang-B), ``adaptive`` (adaptive limits), ``retries`` (retry policies, budgets,
the storm), ``live`` (real sockets on 127.0.0.1), ``course`` (what the notebooks show).
"""

from bulkhead_lab.pool.arrivals import arrival_stream
from bulkhead_lab.pool.params import Counters, Params
from bulkhead_lab.pool.rounds import run, run_with_occupancy

__all__ = ["Counters", "Params", "arrival_stream", "run", "run_with_occupancy"]
__version__ = "0.1.0"
