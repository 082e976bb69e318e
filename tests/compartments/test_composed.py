"""resilience4j's time limiter and semaphore bulkhead, ported call for call, composed both ways.

Upstream: resilience4j 2.4.0 (tag v2.4.0, commit f1c3be8e79d09c70d457b2f89c3f89d03f1b5720):
``resilience4j-bulkhead/src/main/java/io/github/resilience4j/bulkhead/Bulkhead.java``
(``decorateCompletionStage``), ``.../bulkhead/internal/SemaphoreBulkhead.java`` (``onComplete``),
``resilience4j-timelimiter/src/main/java/io/github/resilience4j/timelimiter/internal/TimeLimiterImpl.java``
(``decorateCompletionStage``, ``Timeout.of``), ``resilience4j-all/src/main/java/io/github/resilience4j/
decorators/Decorators.java`` (``DecorateCompletionStage``). Notebook 08's appendix cites them; what the
two compositions do is its table, which nbval compares.
"""

from __future__ import annotations

from bulkhead_lab.compartments import composed
from bulkhead_lab.compartments.composed import Clock, SemaphoreBulkhead, Stage


def test_a_call_that_answers_before_its_timeout_frees_its_permit_with_its_answer() -> None:
    clock, bulkhead = Clock(), SemaphoreBulkhead(1)

    def quick() -> Stage:
        stage = Stage()
        clock.at(clock.now + 0.1, stage.complete)
        return stage

    call = composed.time_limited(clock, 1.0, bulkhead.decorate(clock, quick))
    answers: list[str | None] = []
    clock.at(0.0, lambda: call().when_complete(answers.append) and None)
    clock.run()
    assert answers == [None] and bulkhead.freed_at == [0.1] and bulkhead.permits == 1


def test_a_stage_completes_once_and_runs_a_late_action_at_once() -> None:
    stage = Stage()
    assert stage.complete("TimeoutException") is True
    assert stage.complete() is False and stage.error == "TimeoutException"
    seen: list[str | None] = []
    after = stage.when_complete(seen.append)
    assert seen == ["TimeoutException"] and after.done and after.error == "TimeoutException"
