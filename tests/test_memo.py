"""The memos: each declared beside its function, all listed, counted, cleared, and bounded in memory."""

from __future__ import annotations

import pytest

from bulkhead_lab import memo
from bulkhead_lab.adaptive import pool as adaptive_pool  # noqa: F401  (declares its memo)
from bulkhead_lab.pool import arrivals, sweep  # noqa: F401  (sweep declares its memos)
from bulkhead_lab.pool.params import Params
from bulkhead_lab.pool.rounds import counters, run
from bulkhead_lab.retries import storm  # noqa: F401  (declares its memo)


def test_every_memo_is_listed_in_the_stats() -> None:
    assert set(memo.stats()) >= {
        "streams",
        "round_orders",
        "runs",
        "occupancies",
        "compartments",
        "sweeps",
        "pool_runs",
        "retry_runs",
    }


def test_a_second_ask_is_a_hit_and_clear_forgets_everything() -> None:
    memo.clear()
    p = Params(split=20, seed=4242)
    first = counters(p)
    assert memo.stats()["runs"].misses == 1 and memo.stats()["runs"].hits == 0
    assert counters(p) is first
    assert memo.stats()["runs"].hits == 1
    memo.clear()
    assert all(s.entries == s.hits == s.misses == s.weight == 0 for s in memo.stats().values())
    assert counters(p) == first == run(p)


def test_a_healthy_run_is_one_entry_whatever_the_slowdown_sliders_say() -> None:
    memo.clear()
    a = counters(Params(split=24, slow=5, start=10))
    b = counters(Params(split=24, slow=50, start=3000))
    assert a is b and memo.stats()["runs"].entries == 1
    assert a == run(Params(split=24))  # and it is the healthy run, the slowdown's knobs ignored


def test_a_memo_keeps_at_most_its_size_and_its_weight_budget() -> None:
    table: memo.Memo[int, list[int]] = memo.Memo("test-budget", 3, budget=10, weigh=len)
    try:
        for key in range(5):
            table.get(key, lambda: [0] * 4)  # weight 4 each: two fit in 10
        assert table.stats().entries == 2 and table.stats().weight == 8
        heavy = table.get(99, lambda: [0] * 11)  # heavier than the whole budget
        assert len(heavy) == 11 and table.stats().entries == 2  # handed back, not kept
        assert table.get(4, list) == [0] * 4  # the newest stayed
    finally:
        del memo.MEMOS["test-budget"]


def test_a_budget_needs_a_weight_and_a_weight_a_budget() -> None:
    for kwargs in ({"budget": 10}, {"weigh": len}):
        with pytest.raises(ValueError, match="go together"):
            memo.Memo("test-unweighed", 3, **kwargs)  # type: ignore[arg-type]
    assert "test-unweighed" not in memo.MEMOS


def test_a_stream_over_the_budget_is_drawn_but_not_kept() -> None:
    memo.clear()
    p = Params(rounds=20_000, tracking_rate=10_000, event_rate=10_000, cycle=100)  # ~4 million arrivals
    stream = arrivals.stream(p)
    assert stream.rounds == 20_000
    assert memo.stats()["streams"].entries == 0
    assert arrivals.stream(Params()).rounds == 4000 and memo.stats()["streams"].entries == 1
