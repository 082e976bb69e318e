"""A live run's starting heap stays out of the collector's passes while it runs, and only then."""

from __future__ import annotations

import gc

import pytest

from bulkhead_lab.live.heap import heap_frozen


def test_the_heap_is_frozen_for_the_run_and_thawed_after_it_even_when_it_fails() -> None:
    with heap_frozen():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
    with pytest.raises(RuntimeError), heap_frozen():
        raise RuntimeError("the run failed")
    assert gc.get_freeze_count() == 0


def test_runs_side_by_side_keep_the_heap_frozen_until_the_last_one_ends() -> None:
    first, second = heap_frozen(), heap_frozen()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)  # the first run finished; the second still measures
    assert gc.get_freeze_count() > 0
    second.__exit__(None, None, None)
    assert gc.get_freeze_count() == 0
