"""The one cache: every memo is listed, counted, cleared, and bounded in memory."""

from __future__ import annotations

from bulkhead_lab import cache
from bulkhead_lab.pool.model import MAX_ARRIVALS_PER_ROUND, MAX_ROUNDS, Params, run


def test_every_memo_is_listed_in_the_stats() -> None:
    assert set(cache.stats()) == {
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
    cache.clear()
    p = Params(split=20, seed=4242)
    first = cache.counters(p)
    assert cache.stats()["runs"].misses == 1 and cache.stats()["runs"].hits == 0
    assert cache.counters(p) is first
    assert cache.stats()["runs"].hits == 1
    cache.clear()
    assert all(s.entries == s.hits == s.misses == s.weight == 0 for s in cache.stats().values())
    assert cache.counters(p) == first == run(p)


def test_a_healthy_run_is_one_entry_whatever_the_slowdown_sliders_say() -> None:
    cache.clear()
    a = cache.counters(Params(split=24, slow=5, start=10))
    b = cache.counters(Params(split=24, slow=50, start=3000))
    assert a is b and cache.stats()["runs"].entries == 1


def test_a_memo_keeps_at_most_its_size_and_its_weight_budget() -> None:
    memo: cache.Memo[int, list[int]] = cache.Memo("test-budget", 3, budget=10, weigh=len)
    try:
        for key in range(5):
            memo.get(key, lambda: [0] * 4)  # weight 4 each: two fit in 10
        assert memo.stats().entries == 2 and memo.stats().weight == 8
        heavy = memo.get(99, lambda: [0] * 11)  # heavier than the whole budget
        assert len(heavy) == 11 and memo.stats().entries == 2  # handed back, not kept
        assert memo.get(4, list) == [0] * 4  # the newest stayed
    finally:
        del cache.MEMOS["test-budget"]


def test_the_largest_allowed_stream_could_never_stay_in_memory() -> None:
    # A 10^6-round stream at the top rate has ~10^8 arrivals; the budget keeps at most a few million.
    largest = MAX_ROUNDS * (1 + 2 * MAX_ARRIVALS_PER_ROUND)
    assert cache.STREAM_BUDGET * 20 < largest


def test_a_stream_over_the_budget_is_drawn_but_not_kept() -> None:
    cache.clear()
    p = Params(rounds=20_000, tracking_rate=10_000, event_rate=10_000, cycle=100)  # ~4 million arrivals
    stream = cache.stream(p)
    assert stream.rounds == 20_000
    assert cache.stats()["streams"].entries == 0
    assert cache.stream(Params()).rounds == 4000 and cache.stats()["streams"].entries == 1
