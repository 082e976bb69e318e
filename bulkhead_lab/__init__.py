"""Bulkhead Lab: the code the course notebooks share.

``model`` (lesson 000's seeded rounds), ``sizing`` (Little's Law, Erlang-B),
``lesson`` (lesson 000's figures and text), ``live`` (real sockets on 127.0.0.1).
"""

from bulkhead_lab.pool.model import Counters, Params, arrival_stream, run, run_with_occupancy

__all__ = ["Counters", "Params", "arrival_stream", "run", "run_with_occupancy"]
__version__ = "0.1.0"
