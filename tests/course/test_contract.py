"""What every write-it-yourself judge shares: a contract searched over generated scenarios."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from hypothesis import strategies as st

from bulkhead_lab.course.judges.contract import (
    Broke,
    KeptState,
    Verdict,
    as_bool,
    as_int,
    as_real,
    run_loop,
    search,
)
from bulkhead_lab.course.ui.trial import Fault


def _at_most_100(xs: list[int]) -> None:
    if sum(xs) > 100:
        raise Broke(f"sum({xs})", f"returned {sum(xs)}", "where at most 100 is allowed", f"sum({xs})")


def test_a_broken_contract_is_shrunk_to_its_smallest_case_the_same_on_every_run() -> None:
    found = [search(_at_most_100, st.lists(st.integers(0, 1000)), examples=200) for _ in range(2)]
    assert found[0] is not None and found[1] is not None
    assert (
        found[0].line()
        == found[1].line()
        == ("sum([101]): returned 101, where at most 100 is allowed. Replay: sum([101])")
    )


def test_a_kept_contract_is_none_and_right_says_what_was_checked() -> None:
    assert search(lambda xs: None, st.lists(st.integers()), examples=50) is None
    said = Verdict.right(50, ["never over 100", "each in order"])
    assert said.ok and said.says == "checked 50 generated scenarios: never over 100; each in order."


def test_a_fault_in_the_learner_s_code_is_a_failing_scenario() -> None:
    def faults(x: int) -> None:
        if x > 3:
            raise Fault("my_fn(4) raised ValueError: no")

    broke = search(faults, st.integers(0, 10), examples=50)
    assert broke is not None and "my_fn(4) raised ValueError" in broke.line()


def test_an_async_scenario_runs_on_a_loop_of_its_own_and_leaves_nothing_pending() -> None:
    async def leaves_a_task() -> int:
        asyncio.get_running_loop().create_task(asyncio.sleep(60))
        return 7

    assert run_loop(leaves_a_task) == 7
    with pytest.raises(Fault, match="still running"):
        run_loop(lambda: asyncio.sleep(5), seconds=0.05)


@pytest.mark.parametrize("value", [3, np.int64(3), np.int8(3)])
def test_any_integer_is_an_integer(value: object) -> None:
    assert as_int(value, "the count") == 3


@pytest.mark.parametrize("value", [0.5, np.float32(0.5), np.float64(0.5), 1, np.int64(1)])
def test_any_real_is_a_number(value: object) -> None:
    assert isinstance(as_real(value, "the share"), float)


@pytest.mark.parametrize("value", [True, "3", 3.0, None])
def test_what_is_no_integer_is_a_fault_naming_it(value: object) -> None:
    with pytest.raises(Fault, match="the count was"):
        as_int(value, "the count")


def test_a_yes_or_no_is_what_bool_says_and_a_coroutine_is_named() -> None:
    assert as_bool(np.bool_(True), "can_retry()") is True and as_bool(0.0, "x") is False
    assert as_bool([1], "x") is True

    async def later() -> bool:
        return True

    with pytest.raises(Fault, match="async def"):
        as_bool(later(), "can_retry()")


def test_kept_state_names_what_a_call_changed_and_puts_it_back() -> None:
    space: dict = {}
    exec("seen = []\ndef mine(x):\n    seen.append(x)\n    return len(seen)\n", space)
    kept = KeptState(space["mine"])
    assert kept.changed() is None
    space["mine"](1)
    assert kept.changed() == "seen (it was [], now [1])"
    kept.restore()
    assert space["seen"] == [] and kept.changed() is None
