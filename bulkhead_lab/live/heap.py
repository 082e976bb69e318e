"""The heap a live run starts with, left out of the collector's passes while the run measures.

A notebook keeps many model runs in memory (its memos), and one full collection over them
stalls every loop in the process: 0.49 s measured in the middle of notebook 08's burst, which
the readings took for queue wait (a p99 wait of 604 ms behind a dependency that answers in
100 ms), and long enough for the semaphore's 0.2 s timeouts to fire before their requests
reached the dependency. Objects made during the run are still collected as usual; the frozen
ones go back to the collector when the run ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_depth = 0  # runs inside heap_frozen() now: runs side by side share one freeze


@contextmanager
def heap_frozen() -> Iterator[None]:
    """The objects alive now left out of the collector's passes until the block ends.

    Blocks may overlap (live runs gathered side by side): the heap is frozen when the first
    begins and thawed when the last ends, so an early finisher does not thaw it under the others.
    """
    global _depth
    if _depth == 0:
        gc.freeze()
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            gc.unfreeze()
