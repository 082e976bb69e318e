"""The panels' live runs: :mod:`bulkhead_lab.live.sync` runs a live coroutine from plain code."""

from bulkhead_lab.live.sync import INTERRUPTED, Interrupted, run_sync

__all__ = ["INTERRUPTED", "Interrupted", "run_sync"]
