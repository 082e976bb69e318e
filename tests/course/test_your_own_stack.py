"""Notebook 10's configuration table: the rows the course's own mechanism can check, checked."""

from __future__ import annotations

import asyncio
import inspect

from bulkhead_lab.adaptive.clocked import EnvoyGradient
from bulkhead_lab.course.your_own_stack import config
from bulkhead_lab.live.bulkhead import Bulkhead, BulkheadRejectedError
from bulkhead_lab.retries.budgets import ENVOY_BUDGET_PERCENT, ENVOY_MIN_RETRY_CONCURRENCY


def _refused(limit: int, queue: int, calls: int) -> tuple[int, int]:
    """How many of ``calls`` at once ran and how many a Bulkhead(limit, queue) refused at once."""

    async def run() -> tuple[int, int]:
        wall, ran, refused = Bulkhead(limit, queue), 0, 0
        gate = asyncio.Event()

        async def one() -> None:
            nonlocal ran, refused
            try:
                await wall.execute(gate.wait)
                ran += 1
            except BulkheadRejectedError:
                refused += 1

        tasks = [asyncio.ensure_future(one()) for _ in range(calls)]
        await asyncio.sleep(0)
        gate.set()
        await asyncio.gather(*tasks)
        return ran, refused

    return asyncio.run(run())


def test_every_checked_row_is_in_the_table_and_every_system_has_a_source() -> None:
    for knob, system in config.CHECKED:
        assert config.TABLE[knob][system] != "-"
    assert {s.system for s in config.SOURCES} == set(config.SYSTEMS) - {"course"}


def test_resilience4js_default_bulkhead_is_the_courses_bulkhead_of_25_with_no_waiting_place() -> None:
    assert "maxConcurrentCalls 25" in config.TABLE["limit (calls at once)"]["resilience4j"]
    assert "maxWaitDuration 0" in config.TABLE["waiting places"]["resilience4j"]
    assert _refused(25, 0, 26) == (25, 1)


def test_pollys_default_queue_of_zero_refuses_at_once_as_the_courses_bulkhead_does() -> None:
    assert "0" in config.TABLE["waiting places"]["Polly"]
    assert _refused(3, 0, 5) == (3, 2)


def test_envoys_retry_budget_defaults_are_the_courses_envoy_budget() -> None:
    assert f"{ENVOY_BUDGET_PERCENT:g}%" in config.TABLE["retry budget"]["Envoy"]
    assert f"min_retry_concurrency {ENVOY_MIN_RETRY_CONCURRENCY}" in config.TABLE["retry budget"]["Envoy"]


def test_envoys_adaptive_concurrency_defaults_are_the_courses_envoy_gradient() -> None:
    params = inspect.signature(EnvoyGradient.__init__).parameters
    row = config.TABLE["adaptive limit"]["Envoy"]
    assert f"min_concurrency {params['min_limit'].default}" in row
    assert f"max_concurrency_limit {params['max_limit'].default}" in row
    assert f"buffer {params['buffer'].default * 100:g}%" in row
