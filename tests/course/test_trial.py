"""A learner's code runs under a deadline on its own loop: whatever it does, the check answers."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from typing import Any

import pytest

from bulkhead_lab.course.ui.trial import Fault, build, call, trial


def _trial_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "bulkhead-lab-trial"]


def _no_trial_thread_within(seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not _trial_threads():
            return True
        time.sleep(0.02)
    return False


def test_a_coroutine_that_never_returns_is_cancelled_at_the_deadline_with_its_tasks() -> None:
    cancelled: list[str] = []

    async def forever() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append("child")
            raise

    async def check() -> None:
        asyncio.get_running_loop().create_task(forever())
        await asyncio.Event().wait()

    start = time.monotonic()
    outcome = trial(check, seconds=0.3)
    assert outcome.timed_out and not outcome.ok
    assert time.monotonic() - start < 5.0
    assert cancelled == ["child"]
    assert _no_trial_thread_within(5.0)


def test_a_loop_that_never_yields_is_stopped_inside_except_exception_and_on_one_line_in_a_task() -> None:
    def spin() -> None:
        while True:
            try:
                pass
            except Exception:  # a learner's catch-all must not swallow the deadline
                pass

    async def one_line() -> None:
        while True: pass  # noqa: E701  # fmt: skip  # one line: no line event after the first

    async def caught() -> None:
        spin()

    async def in_a_task() -> None:
        await asyncio.ensure_future(one_line())

    for check in (caught, in_a_task):
        assert trial(check, seconds=0.3).timed_out, check
        assert _no_trial_thread_within(5.0), check


def test_what_the_learner_s_code_raises_is_the_outcome_not_an_escape() -> None:
    async def check() -> None:
        raise ZeroDivisionError("learner")

    outcome = trial(check)
    assert isinstance(outcome.error, ZeroDivisionError) and not outcome.timed_out


def test_a_checks_value_comes_back_and_what_it_prints_is_captured(capsys: pytest.CaptureFixture[str]) -> None:
    async def check() -> str:
        await asyncio.sleep(0)
        print("hello from the learner")
        print("err", file=sys.stderr)
        return "done"

    outcome = trial(check)
    assert outcome.ok and outcome.value == "done" and not outcome.timed_out
    assert outcome.printed == "hello from the learner\nerr\n"  # stdout and stderr, as they came
    assert "hello" not in capsys.readouterr().out


def test_build_says_in_one_line_what_was_passed_when_it_is_not_a_class() -> None:
    for candidate in (None, "Bulkhead", 3, print):
        with pytest.raises(Fault, match="is not a class") as caught:
            build(candidate, 5, 5)
        assert "\n" not in str(caught.value)


def test_build_says_what_the_constructor_raised() -> None:
    class Broken:
        def __init__(self, limit: int, queue: int) -> None:
            raise RuntimeError("oops\nsecond line")

    with pytest.raises(Fault, match=r"Broken\(5, 5\) raised RuntimeError: oops\.$"):
        build(Broken, 5, 5)


def test_a_task_that_exits_the_interpreter_is_retrieved_inside_the_trial_not_reported_later(
    capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    import gc

    async def check() -> None:
        async def leaves() -> None:
            raise SystemExit(3)

        task = asyncio.get_running_loop().create_task(leaves())
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        del task

    outcome = trial(check)
    gc.collect()  # a task whose exception was never retrieved would be reported here, in a later cell
    assert isinstance(outcome.error, SystemExit) or outcome.ok
    assert "never retrieved" not in capfd.readouterr().err + caplog.text


def test_a_plain_check_runs_as_it_is_and_may_run_loops_of_its_own() -> None:
    def check() -> int:
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(asyncio.sleep(0, result=7))
        finally:
            loop.close()

    assert trial(check).value == 7


def test_a_function_that_returns_a_coroutine_is_one_line_and_never_a_warning(recwarn: Any) -> None:
    async def mine(x: int) -> int:
        return x

    # a lambda around an async def: the exercises refuse an async def itself earlier (test_writes.py)
    with pytest.raises(Fault, match="returned a coroutine"):
        call(lambda x: mine(x), 1)
    import gc

    gc.collect()
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("raised", [SystemExit(0), KeyboardInterrupt(), GeneratorExit()])
def test_whatever_a_learner_s_function_raises_is_a_fault_naming_it(raised: BaseException) -> None:
    def mine() -> None:
        raise raised

    with pytest.raises(Fault, match=type(raised).__name__):
        call(mine)


def test_the_deadline_counts_the_check_s_own_computing_not_the_time_others_take_on_the_machine() -> None:
    def waits_then_answers() -> int:
        time.sleep(0.6)  # a busy machine's delay, as the check sees it: time passing, no computing
        return 5

    assert trial(waits_then_answers, seconds=0.3).value == 5  # past 0.3 s of wall time, within its CPU
    assert trial(lambda: asyncio.sleep(60), seconds=0.1).timed_out  # waiting forever: the wall cap
