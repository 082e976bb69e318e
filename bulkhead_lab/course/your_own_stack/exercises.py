"""Notebook 10's exercises: in flight under a rate limit (Little's Law), a client-side adaptive throttle
of the learner's own (:data:`write_throttle`, judged by its contract:
:mod:`bulkhead_lab.course.judges.throttle`), and the capstone: the learner's stack proven live with a
slowdown injected into Payment (:mod:`bulkhead_lab.live.stack.capstone`)."""

from __future__ import annotations

import inspect
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as w

from bulkhead_lab.course.judges import throttle as throttle_judge
from bulkhead_lab.course.judges.capstone import judge
from bulkhead_lab.course.judges.contract import Verdict
from bulkhead_lab.course.ui.exercise import (
    Answer,
    Exercise,
    Feedback,
    NotUnderstood,
    judged,
    read_code,
    read_number,
    run_trial,
)
from bulkhead_lab.course.ui.panel import LiveProgress
from bulkhead_lab.course.ui.trial import Fault, short_repr
from bulkhead_lab.course.your_own_stack import views
from bulkhead_lab.live.stack import capstone
from bulkhead_lab.live.stack.throttle import AdaptiveThrottle, ThrottleFault
from bulkhead_lab.live.sync import Interrupted, run_sync

RATE, LATENCY = 60, 0.4  # exercise 1: a bucket of 60 calls/s, the dependency slowed to 400 ms

exercise_1 = Exercise(
    1,
    "In flight under a rate limit",
    read=lambda a: read_number(a, "a number of calls, like 12"),
    right=lambda: RATE * LATENCY,
    tolerance=1.0,
    right_says="{value:g}: {rate} calls/s x {latency:g} s in flight, the bucket lets every one through.",
    figures=lambda _: {"rate": RATE, "latency": LATENCY},
    otherwise=(
        "{value:g} is too many: the bucket lets {rate}/s in, each stays {latency:g} s.",
        "{value:g} is too few: a token bucket does not count calls in flight.",
    ),  # fmt: skip
    hint="Little's Law: in flight = arrival rate x time each call stays.",
    worked=(
        lambda a: (
            f"**{a.right:g}**: the bucket admits {RATE} calls a second whatever the dependency does, "
            f"and each stays {LATENCY:g} s, so {RATE} x {LATENCY:g} = {a.right:g} are in flight (section 3 "
            "measured 20 at 40/s and 0.5 s). A concurrency limit of 10 would hold it at 10."
        ),
    ),
    placeholder="calls in flight",
)


def _worked_throttle(_: Answer) -> str:
    code = inspect.getsource(AdaptiveThrottle)
    return (
        "The course's throttle (`bulkhead_lab/live/stack/throttle.py`): two counts and one formula; "
        "`probability()` only reads them.\n\n```python\n" + code + "```"
    )


#: Exercise 2's reader: the learner's class (or its name) judged by its contract over boundaries and
#: generated scenarios (:mod:`bulkhead_lab.course.judges.throttle`).
judge_throttle = judged(throttle_judge.check)


exercise_2 = write_throttle = Exercise(
    2,
    "Write a client-side adaptive throttle",
    read=judge_throttle,
    hint="count on_request() and on_accept() on self; probability() only computes "
    "max(0, (requests - k * accepts) / (requests + 1)) from them and changes no count.",
    worked=(_worked_throttle,),
    placeholder="your class's name",
    typed="MyThrottle",
)


def your_throttle(answer: object) -> str:
    """Section 5's runs with the learner's throttle (class or name): 06's storm model, then lesson 004's
    Order Service live (about 3 s, a bar counting the orders). Only a throttle the checker calls Right
    runs; one that breaks, raises or runs over :data:`STORM_SECONDS` in the model is its one line."""
    try:
        verdict = judge_throttle(answer)
        if not verdict.ok:
            return f"Not run: the checker says Not yet: {verdict.says}"
        candidate = read_code(answer, "class")
        runs = run_trial(lambda: views.storm_runs(candidate), STORM_SECONDS)  # type: ignore[arg-type]
        live = views.orders_live(candidate)  # type: ignore[arg-type]
    except (NotUnderstood, Fault, ThrottleFault) as why:
        return f"Not run: {why}"
    whose = "with your throttle"
    return views.storm_facts(runs, whose) + "\n" + views.orders_facts(live, whose)


STORM_SECONDS = 30.0  # the learner's throttle in the storm model: the course's takes under a second


def _stack_of(answer: object) -> object:
    if isinstance(answer, Mapping):
        return answer
    if isinstance(answer, str) and answer.strip().isidentifier():
        return read_code(answer, "class")
    raise NotUnderstood(f"{short_repr(answer)} is not a stack: type its name, e.g. my_stack.")


def judge_stack(answer: object) -> Verdict:
    """Exercise 3's reader: the learner's stack (a dict or its name) run live with Payment slowed by 3 s
    behind the fault proxy (about 7 s), and judged; the answer box's bar counts the run's requests."""
    try:
        stack = _stack_of(answer)
        capstone.read_stack(stack)  # a stack the run cannot build is one line before anything starts
        exercise_3.running()
        run = run_sync(capstone.run_stack(stack, exercise_3.on_progress))
    except (capstone.StackError, Fault) as why:
        raise NotUnderstood(str(why)) from None
    exercise_3.finished(f"done: {capstone.REQUESTS} requests sent in {run.seconds:.1f} s")
    return judge(run)


REPEAT_S = 0.5  # a Check this soon after the same answer's live run ended is that run's, not another


@dataclass(frozen=True, eq=False)
class LiveExercise(Exercise):
    """An exercise whose Check runs live for seconds: a progress bar under its answer box counts the run
    (the reader reports to :meth:`on_progress`), and Kernel > Interrupt stops it, closes every service it
    started and says so in one line, in the box and on the bar. Pressing Enter and then Check sends the
    answer twice: a check of the same answer arriving within :data:`REPEAT_S` of a live run's end (it
    queued behind it) answers that run's line rather than running again."""

    live_unit: str = "answered"
    live_total: int = 1
    _state: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def widget(self) -> w.VBox:
        panel = super().widget()
        progress = LiveProgress(f"exercise-{self.number}", self.live_unit, self.live_total)
        progress.status.value = "Check runs it live"
        self._state["bar"] = progress
        first, *rest = panel.children
        panel.children = (first, progress.widget, *rest)
        return panel

    def running(self) -> None:
        if "bar" in self._state:
            self._state["bar"].running()

    def on_progress(self, done: int, total: int) -> None:
        if "bar" in self._state:
            self._state["bar"].on_progress(done, total)

    def finished(self, text: str) -> None:
        if "bar" in self._state:
            self._state["bar"].done(text)

    def check(self, answer: object) -> Feedback:
        key = answer if isinstance(answer, str) else None
        last = self._state.get("last")
        if key is not None and last is not None and last[0] == key and time.monotonic() - last[1] < REPEAT_S:
            return last[2]
        try:
            said = super().check(answer)
        except KeyboardInterrupt as stop:  # Interrupted: the run's services are closed already
            why = stop.why if isinstance(stop, Interrupted) else Interrupted().why
            if "bar" in self._state:
                self._state["bar"].interrupted(why)
            said = Feedback(None, f"Interrupted: {why}. Press Check to run it again.")
        self._state["last"] = (key, time.monotonic(), said)
        return said


RIGHT_STACK = (
    "```python\nmy_stack = {\n"
    '    "payment": {"limits": httpx.Limits(max_connections=10), "timeout": httpx.Timeout(1.0)},\n'
    '    "inventory": {"limits": httpx.Limits(max_connections=10), "timeout": httpx.Timeout(1.0)},\n'
    '    "retry_budget": {"payment": 0.1, "inventory": 0.1},\n}\n```'
)

exercise_3 = LiveExercise(
    3,
    "Prove your stack",
    read=judge_stack,
    hint="a client per dependency with max_connections at most Payment's 10, a Timeout (it bounds the wait "
    "for the pool too), and a retry budget per dependency, not one shared.",
    worked=(
        lambda _: (
            "A wall per dependency, each with a bound on waiting, and a budget per compartment: "
            "Payment's 10 connections and 1-s timeout keep it within its owners' limit and end every call; "
            "Inventory, on its own client, never waits for Payment's pool; and Payment's retries spend its "
            "own 10%, not the one Inventory's successes earn.\n\n" + RIGHT_STACK
        ),
    ),
    placeholder="your stack's name (about 7 s live)",
    live_unit="requests ended",
    live_total=capstone.REQUESTS,
)
