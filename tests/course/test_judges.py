"""The write-it-yourself judges (bulkhead_lab/course/judges) against their oracles: each asks about the cases
and boundaries its notebook states, agrees with the course's own code there, and its Not yet line's replay,
run in a cell, shows what the line says. The verdict each candidate gets: tests/course/test_writes.py."""

from __future__ import annotations

import ast
import asyncio
import builtins
import contextlib
import inspect
import io
import math
import re
from collections import deque

import numpy as np
import pytest
from writes import define, n01_erlang_b, n02_admit, n03_pool_per_dependency, n05_aimd, n06_budget, template
from writes import n07_deadline_drop as n07
from writes import n08_shuffle_shard as n08
from writes import n09_soft_partition as n09

from bulkhead_lab import sizing
from bulkhead_lab.adaptive.limits import AIMDLimit
from bulkhead_lab.compartments import partitions, shuffle
from bulkhead_lab.compartments.partition_sweep import DAYS
from bulkhead_lab.course.adaptive_limits import exercises as ex05
from bulkhead_lab.course.choosing_compartments import exercises as ex08
from bulkhead_lab.course.judges import (
    admit,
    aimd,
    deadline_drop,
    erlang_b,
    pool_per_dependency,
    retry_budget,
    shuffle_shard,
    soft_partition,
)
from bulkhead_lab.course.judges.contract import Broke, run_loop
from bulkhead_lab.course.littles_law_sizing import exercises as ex01
from bulkhead_lab.course.pool_placement import exercises as ex03
from bulkhead_lab.course.retries_and_budgets import exercises as ex06
from bulkhead_lab.course.sharing_compartments import exercises as ex09
from bulkhead_lab.course.single_pool_vs_bulkhead import exercises as ex02
from bulkhead_lab.course.timeouts_and_queues import exercises as ex07
from bulkhead_lab.pool import arrivals, rounds
from bulkhead_lab.pool.params import LESSON_SPLIT, MODES, Params
from bulkhead_lab.queues.calls import Call
from bulkhead_lab.queues.fixes import with_fix
from bulkhead_lab.queues.rounds import kept_run
from bulkhead_lab.retries.budgets import RetryBudget
from bulkhead_lab.retries.experiments import every_call_refused_in_turn


def _broken(module) -> pytest.MarkDecorator:
    """Parametrize a test over ``module``'s broken candidates, each by its label."""
    broken = module.CANDIDATES.broken
    return pytest.mark.parametrize("source", list(broken), ids=list(broken.values()))


def _said(exercise, source: str, name: str) -> str:
    return exercise.check(define(source, name)).message


# --- 01: Erlang-B -------------------------------------------------------------------------------------


def test_erlang_b_cases_reach_the_stated_range_and_its_boundaries() -> None:
    cases: list[erlang_b.Case] = []

    def recording(load: float, slots: int) -> float:
        cases.append(erlang_b.Case(float(load), int(slots), isinstance(slots, np.integer)))
        return sizing.erlang_b(slots, load)

    assert erlang_b.check(recording).ok
    slots = {c.slots for c in cases}
    loads = [c.load for c in cases]
    assert {0, 1} <= slots and max(slots) >= 3000 and sum(s >= 1000 for s in slots) >= 5
    assert 0.0 in loads and max(loads) >= 2900 and sum(load >= 745 for load in loads) >= 10
    assert sum(load != int(load) for load in loads) >= 50  # fractional loads
    assert any(c.slots >= 10 and 0.8 <= c.load / c.slots <= 1.2 for c in cases)  # near the pool's size
    assert sum(c.numpy for c in cases) >= 20 and sum(not c.numpy for c in cases) >= 20
    assert erlang_b.Case(800.0, 1000) in cases  # issue 36: the product form's nan at 800 erlangs


def test_erlang_b_stated_tolerance_a_relative_1e_9_is_the_boundary() -> None:
    right = define(n01_erlang_b.RIGHT, "my_erlang_b")
    assert ex01.write_erlang_b.check(lambda load, slots: right(load, slots) * (1 + 1e-11)).ok is True
    assert ex01.write_erlang_b.check(lambda load, slots: right(load, slots) * (1 + 1e-7)).ok is False


@_broken(n01_erlang_b)
def test_erlang_b_replay_raises_what_the_line_says_or_the_two_disagree(source: str) -> None:
    said = _said(ex01.write_erlang_b, source, "my_erlang_b")
    *before, last = said.split(" Replay: ")[1].split("; ")
    namespace = {"my_erlang_b": define(source, "my_erlang_b"), "erlang_b": sizing.erlang_b}
    exec("\n".join(before), namespace)  # "import numpy as np" where the case is numpy's
    if ": it raised " in said:
        with pytest.raises(BaseException) as error:
            eval(last, namespace)
        assert type(error.value).__name__ == said.split(": it raised ")[1].split(":")[0], said
        return
    yours, course = eval(last, namespace)
    if isinstance(yours, (int, float, np.number)):  # a numpy scalar compared as the Python number it is
        assert not abs(float(yours) - course) <= 1e-9 * abs(course), said  # nan disagrees too


# --- 02: the round's admission ----------------------------------------------------------------------


def test_admit_oracle_is_notebook_02s_admit() -> None:
    pool = rounds.Pool(5, [rounds.Slots(3, 4, 10), rounds.Slots(3, 6, 10)])
    order = (1, 0, 1, 1, 0, 0, 1)
    assert admit.lesson_takes(order, 5, (3, 3)) == rounds.admit(pool, 0, order, 3, 4) == (2, 3)


def test_admit_rounds_reach_the_boundaries_the_prose_states() -> None:
    cases = admit.SCENARIOS
    assert any(not c.order for c in cases) and any(len(c.order) == admit.MOST for c in cases)
    assert sum(c.free == 0 and bool(c.order) for c in cases) >= 10
    assert sum(c.room[0] == 0 and 0 in c.order for c in cases) >= 10
    assert sum(c.room[1] == 0 and 1 in c.order for c in cases) >= 10
    assert sum(len(c.order) > c.free for c in cases) >= 100  # more arrivals than free slots
    assert sum(c.order.count(0) > c.room[0] for c in cases) >= 50  # more than a flow's room
    assert sum(c.room[0] + c.room[1] == c.free for c in cases) >= 100  # the bulkhead's shape
    assert sum(min(c.room) > c.free for c in cases) >= 50  # the single pool's
    assert sum(c.order.index(1) < c.order.index(0) for c in cases if {0, 1} <= set(c.order)) >= 50


def test_admit_lessons_three_days_around_the_slowdown_are_judged_and_named_at_their_round() -> None:
    lesson = admit.lesson_rounds()
    assert admit.DAYS == (*(Params(split=LESSON_SPLIT, mode=m) for m in MODES), Params(mode="slowdown"))
    assert [r.where for r in lesson[:2]] == ["24/8, healthy day, round 990", "24/8, healthy day, round 991"]
    assert lesson[-1].where == "single pool (32), slowdown day, round 1099"
    assert sum(r.takes != (r.order.count(0), r.order.count(1)) for r in lesson) >= 30  # some are refused
    right, calls = define(n02_admit.RIGHT, "my_admit"), []

    def tired(order, free, room):  # right on every generated scenario, wrong from the lesson's 6th round
        calls.append(order)
        return (0, 0) if len(calls) > len(admit.SCENARIOS) + 5 else right(order, free, room)

    said = ex02.write_admit.check(tired).message
    assert said.startswith("Not yet: 24/8, healthy day, round 995: tired("), said


@_broken(n02_admit)
def test_admit_replay_in_a_fresh_cell_returns_what_the_line_says(source: str) -> None:
    """A replay line may be two calls (a function that keeps counts between calls): the last returns it."""
    said = _said(ex02.write_admit, source, "my_admit")
    returned = re.search(r"(?:: it|the second) returned (.*?)(?:, where|: )", said)
    assert returned is not None, said
    fresh = {"my_admit": define(source, "my_admit")}
    shown = [eval(call, fresh) for call in said.split(" Replay: ")[1].split("; ")][-1]
    assert repr(shown) == returned.group(1), said


# --- 03: a pool per dependency ------------------------------------------------------------------------


def _pools_replayed(source: str) -> tuple[str, object]:
    """The Not yet line of ``source`` and what its replay shows in a notebook 03 cell (or what it raised)."""
    said = _said(ex03.write_pool_per_dependency, source, "my_pool_for")
    *statements, last = said.split(" Replay: ", 1)[1].split("; ")
    namespace = {"exercises": ex03, "my_pool_for": define(source, "my_pool_for")}
    try:
        exec("\n".join(statements), namespace)  # the line the learner pastes, split where it has ";"
        shown = eval(last, namespace)
    except ValueError as error:
        return said, error
    for value in shown if isinstance(shown, tuple) else (shown,):
        if inspect.iscoroutine(value):
            value.close()
    return said, shown


@_broken(n03_pool_per_dependency)
def test_pools_replay_runs_in_a_cell_and_shows_the_pools_the_line_names(source: str) -> None:
    said, shown = _pools_replayed(source)
    for pool in re.findall(r"pool #\d+ \(\d+ slots?\)", said.split(" Replay: ")[0]):
        assert pool in repr(shown), (said, shown)


def test_pools_replay_of_limits_changed_shows_them_changed_and_of_a_pool_0_the_refusal() -> None:
    said, shown = _pools_replayed(n03_pool_per_dependency.EMPTIES_THE_LIMITS)
    assert said.endswith("Replay: pool = exercises.toy_pool(); limits = {'notification': 1}; "
                         "my_pool_for(limits, pool), limits"), said  # fmt: skip
    assert isinstance(shown, tuple) and shown[1] == {}
    said, shown = _pools_replayed(n03_pool_per_dependency.ONE_SLOT_SHORT)
    assert "it called pool(0)" in said and "(got 0)" in str(shown)


def test_pools_numpys_integers_are_slots_and_anything_else_is_refused_in_one_line() -> None:
    pool = ex03.toy_pool()
    assert repr(pool(np.int64(4))) == "pool #1 (4 slots)" and repr(pool(np.uint8(1))) == "pool #2 (1 slot)"
    for slots in (0, 1001, 4.0, True, "4", None):
        with pytest.raises(ValueError, match="limit must be a whole number from 1 to 1000"):
            pool(slots)
    assert len(pool.made) == 2


def test_pools_live_batch_tells_a_shared_pool_from_a_pool_each() -> None:
    def shared(limits, pool):
        one = pool(sum(limits.values()))
        return lambda dependency: one

    each = run_loop(lambda: pool_per_dependency.live_batch(pool_per_dependency.pool_for_each))
    assert "each saw at most its limit at once" in each
    with pytest.raises(Broke) as broke:
        run_loop(lambda: pool_per_dependency.live_batch(shared))
    assert "): notification saw 4 calls at once, where its limit is 2." in broke.value.line()


# --- 05: AIMD -------------------------------------------------------------------------------------------


def test_aimd_tour_expects_the_oracles_limits_and_the_oracle_is_the_saved_cell() -> None:
    for plan in aimd.TOUR:
        aimd.drive(AIMDLimit, plan)  # raises Broke on any difference
    assert "class AIMDLimit(AdaptiveLimit):" in ex05.write_aimd.worked_answer()[1]


@pytest.mark.parametrize("name", ["FLOAT_LIMIT", "CACHED", "FLOOR_HALF", "GLOBAL", "NO_BACKOFF"])
def test_aimd_replay_prints_what_the_verdict_says_came_back(name: str) -> None:
    source = getattr(n05_aimd, name)
    said = _said(ex05.write_aimd, source, "MyAIMD")
    namespace = {"MyAIMD": define(source, "MyAIMD")}  # a fresh definition: no state yet
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(said.split(" Replay: ")[1], namespace)  # the verdict's own line
    got = said.split("returned ")[1].split(" ")[0].rstrip(",")
    assert printed.getvalue().strip().strip("[]").split(", ")[-1] == got, (said, printed.getvalue())


# --- 06: a retry budget ---------------------------------------------------------------------------------


async def worst_case(budget: object, requests: int = 1000) -> int:
    """Notebook 06's section 2 ``worst_case``: calls sent for ``requests`` requests, every call refused."""
    return (await every_call_refused_in_turn(budget, requests)).attempts  # type: ignore[arg-type]


def test_budget_oracle_is_the_cells_and_a_tie_is_false_where_binary_holds_the_ratio() -> None:
    for ratio, calls, retries in [(0.5, 2, 1), (0.25, 8, 2), (0.0, 5, 0), (1.0, 3, 3), (2.0, 3, 6)]:
        assert retry_budget.expected(ratio, calls, retries) == {False}  # exactly ratio x calls: not under it
    assert retry_budget.expected(0.5, 3, 1) == {True} and retry_budget.expected(0.1, 9, 1) == {False}
    assert 0.017 * 3000 > 51 and retry_budget.expected(0.017, 3000, 51) == {True, False}  # past the tie
    assert retry_budget.expected(0.1, 10, 1) == {True, False}  # so at any tie of a ratio binary cannot hold


@_broken(n06_budget)
def test_budget_replay_is_a_few_calls_on_one_budget_and_does_what_the_line_says(source: str) -> None:
    said = _said(ex06.write_budget, source, "MyBudget")
    *before, last = replay = said.split(" Replay: ")[1].split("; ")
    assert len(replay) <= 7 and "b = " not in said.split(" Replay: ")[1], said
    got = re.search(r": it (returned|raised) ([^,:]+)", said)
    if n06_budget.CANDIDATES.broken[source] == "counts shared by every instance":
        return  # its replay builds a second budget of the same class: shown in its line, not replayed here
    assert got is not None, said
    namespace = {"MyBudget": define(source, "MyBudget"), "worst_case": worst_case}
    if "=" in last.split("(")[0]:  # a = MyBudget(0.0): the budget could not be built
        before, last = [*before, last], "None"

    def replayed() -> object:
        for statement in before:  # the judge's own line, as a cell runs it (top-level await)
            flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
            done = eval(compile(statement, "<replay>", "exec", flags=flags), namespace)
            if asyncio.iscoroutine(done):
                asyncio.run(done)
        return eval(compile(last, "<replay>", "eval"), namespace)

    if got.group(1) == "raised":
        with pytest.raises(BaseException) as raised:
            replayed()
        assert type(raised.value).__name__ == got.group(2)
    elif got.group(2) in ("True", "False"):
        assert bool(replayed()) is (got.group(2) == "True")


def test_budget_worked_answer_shows_the_courses_own_cell_and_its_worst_case() -> None:
    assert ex06.worst_case_with(RetryBudget) == pytest.approx(1.112, abs=0.001)  # 1112 calls, 1000 requests
    (worked,) = ex06.write_budget.worked_answer()
    assert "class RetryBudget:" in worked and "1.112 calls" in worked


# --- 07: a deadline drop --------------------------------------------------------------------------------


def test_deadline_drop_courses_own_step_replays_the_courses_deadline_drop_round_for_round() -> None:
    storm = deadline_drop.judged_storm(deadline_drop.take_next)
    assert storm.broke is None and storm.run is not None and storm.steps > 1500
    assert storm.run.trace == kept_run(with_fix(deadline_drop.STORM, "deadline drop")).trace


def test_deadline_drop_oracle_is_section_2s_may_start_and_agrees_with_the_worked_answer() -> None:
    for deadlines, now, service in deadline_drop.grid():
        queue = deadline_drop.queue_of(deadlines, now)
        calls = list(queue)
        took = deadline_drop.take_next(queue, now, service)
        i = deadline_drop.course_takes(calls, now, service)
        assert took is (calls[i] if i < len(calls) else None) and list(queue) == calls[i + 1 :]


def test_deadline_drop_grid_holds_every_boundary_the_notebook_states() -> None:
    cases = set(deadline_drop.grid())
    assert ((), 120, 6) in cases  # an empty queue
    assert ((30, 119, 120), 120, 6) in cases  # every call expired, long ago and just now
    assert ((126,), 120, 6) in cases and ((142,), 120, 22) in cases  # answered exactly at the deadline
    assert ((125,), 120, 6) in cases and ((141,), 120, 22) in cases  # one round short
    assert ((150,), 120, 31) in cases and ((150,), 120, 30) in cases  # service past and at the timeout


def test_deadline_drop_replay_line_replays_the_case_in_a_cell_with_numpy_numbers_too() -> None:
    step = define(template(n07.CANDIDATES), "my_take_next")
    replay = ex07.write_deadline_drop.check(step).message.split("Replay: ")[1]
    shown = eval(replay, {"exercises": ex07, "my_take_next": step})  # what the learner pastes
    assert not shown.ok and "it returned call 1 (due 125) and left q = []" in repr(shown)
    again = ex07.replay_step(step, [np.int64(125)], now=np.int64(120), service=np.int32(6))
    assert repr(again) == repr(shown)
    right = ex07.replay_step(deadline_drop.take_next, [125, 126], now=120, service=6)
    assert right.ok and "it returned call 2 (due 126), dropped call 1 (due 125)" in repr(right)


def test_deadline_drop_a_step_that_goes_wrong_only_late_is_not_yet_in_section_2s_storm() -> None:
    calls, enough = [0], len(deadline_drop.grid()) + 2 * deadline_drop.EXAMPLES  # past grid and search

    def tires(queue: deque[Call], now: int, service: int) -> Call | None:
        calls[0] += 1
        if calls[0] > enough:  # it serves the front, as the storm does
            return queue.popleft() if queue else None
        return deadline_drop.take_next(queue, now, service)

    said = ex07.write_deadline_drop.check(tires).message
    assert said.startswith("Not yet: in section 2's storm (no fix, your step in every worker), round 1")
    assert "Replay: exercises.replay_step(tires, [" in said


# --- 08: a shuffle shard --------------------------------------------------------------------------------


def test_shuffle_shard_blast_radius_is_the_models_on_section_2s_deal() -> None:
    deal = shuffle_shard.LESSON
    dealt = [
        shuffle_shard.dealt(shuffle.shuffle_shard, t, deal.workers, deal.size, deal.seed) for t in range(200)
    ]
    share = shuffle_shard.pairs_alike(dealt) / math.comb(200, 2)
    fleet = shuffle.Fleet(deal.workers, deal.size, 200, seed=deal.seed)
    assert share == pytest.approx(shuffle.simulate(fleet).lose_every_worker)
    assert shuffle_shard.pairs_alike(dealt) <= shuffle_shard.allowed_pairs(200, 28)  # 1 in 28, within it
    plain = [shuffle_shard.dealt(shuffle.plain_shard, t, 8, 2, deal.seed) for t in range(200)]
    assert shuffle_shard.pairs_alike(plain) > shuffle_shard.allowed_pairs(200, 28)  # 1 in 4: a block's


def test_shuffle_shard_margin_lets_a_random_deal_pass_and_stops_one_over_two_thirds_of_the_shards() -> None:
    """Section 2's generator over 300 seeds of small fleets stays within the margin; an even deal over 4
    of C(4, 2) = 6 pairs (a poison tenant sinks 1 in 4, not 1 in 6) does not."""
    tenants = shuffle_shard.FEW_SHARDS_TENANTS
    for seed in range(300):
        for workers, size in ((2, 1), (3, 1), (4, 2), (6, 3)):
            shards = [shuffle.shuffle_shard(t, workers, size, seed) for t in range(tenants)]
            assert shuffle_shard.pairs_alike(shards) <= shuffle_shard.allowed_pairs(
                tenants, math.comb(workers, size)
            )
    four = [(0, 1), (0, 2), (1, 3), (2, 3)]
    dealt = [four[t % 4] for t in range(tenants)]
    assert shuffle_shard.pairs_alike(dealt) > shuffle_shard.allowed_pairs(tenants, 6)


def test_shuffle_shard_another_processs_hash_differs_for_strings_only_and_is_put_back() -> None:
    for same in (5, -1, 2**70, 1.5, (3, 4), frozenset({1, 2}), None):
        assert shuffle_shard.salted_hash(same) == hash(same)
    for other in ("3", b"3", ("a", 1), frozenset({"a"})):
        assert shuffle_shard.salted_hash(other) != hash(other)
    real = shuffle_shard.salted_hash.__globals__["_REAL_HASH"]
    assert "another PYTHONHASHSEED" in _said(ex08.write_shuffle_shard, n08.STRING_HASH, "my_shard")
    assert builtins.hash is real
    said = ex08.write_shuffle_shard.check(shuffle.shuffle_shard).message  # the course's own
    assert said.startswith("Right: checked ") and builtins.hash is real


# --- 09: a soft partition -------------------------------------------------------------------------------


def test_soft_partition_asks_about_every_state_lesson_000s_days_reach_with_21_7_reserved() -> None:
    """So a rule that answers as section 1's in every state of the judge's LESSON plays both days as it."""
    seen: set[tuple[int, int]] = set()
    rule = partitions.soft_partition(soft_partition.LESSON.reserved, soft_partition.LESSON.total)

    def watched(flow: int, busy: list[int]) -> bool:
        seen.add((busy[0], busy[1]))
        return rule(flow, busy)

    for params in DAYS.values():
        rounds.run_through(
            params, partitions.rule_pool(params), partitions.by_rule(watched), stream=arrivals.stream(params)
        )
    assert seen <= set(soft_partition.LESSON.states()) and len(seen) > 100
    assert soft_partition.LESSON.total == 32 and soft_partition.LESSON.reserved == (21, 7)


def test_soft_partition_states_are_those_a_pool_can_reach_the_fewest_busy_first() -> None:
    states = list(soft_partition.Pool((2, 1), 1).states())
    assert states[0] == (0, 0) and states == sorted(states, key=lambda b: (sum(b), b))
    # reserves used up, shared borrowed; not beyond the shared rest (a reserve taken)
    assert {(2, 1), (3, 1), (2, 2), (0, 1), (3, 0), (0, 2)} <= set(states)
    assert (4, 0) not in states and (3, 2) not in states
    assert (
        soft_partition.SMALL_POOLS[0] == soft_partition.Pool((0, 0), 0)
        and len(soft_partition.SMALL_POOLS) == 64
    )


def test_soft_partition_two_rules_are_named_only_when_the_rule_built_alone_answers_right() -> None:
    for source in n09.CANDIDATES.broken:
        said = _said(ex09.write_soft_partition, source, "my_soft_partition")
        assert ("two rules" in said) is (source == n09.GLOBAL_POOL), said
