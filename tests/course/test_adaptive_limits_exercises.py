"""Notebook 05's code exercise, write_aimd: the learner's AIMD limiter run on a trace worked out by hand.

The right class passes; each broken one gets one line naming the first sample where its limit differs;
whatever is passed (None, a function, a class whose __init__ raises, one that never returns, one that
prints) is one line back, never a traceback or a hung check.
"""

from __future__ import annotations

import time

import pytest

from bulkhead_lab.adaptive.limits import AIMD, AIMDLimit
from bulkhead_lab.course.adaptive_limits import exercises as ex


class Right:
    def __init__(self, initial, min_limit, max_limit):
        self.limit, self.min_limit, self.max_limit = initial, min_limit, max_limit

    def on_sample(self, rtt, inflight, dropped):
        if dropped or rtt > 500:
            self.limit = int(self.limit * 0.9)
        elif inflight * 2 >= self.limit:
            self.limit += 1
        self.limit = min(self.max_limit, max(self.min_limit, self.limit))
        return self.limit


class NoBackoff(Right):
    def on_sample(self, rtt, inflight, dropped):
        if inflight * 2 >= self.limit and not dropped:
            self.limit = min(self.max_limit, self.limit + 1)
        return self.limit


class BacksOffWithoutADrop(Right):
    def on_sample(self, rtt, inflight, dropped):
        if dropped or rtt > 500 or inflight * 2 < self.limit:  # an idle sample is no loss
            self.limit = max(self.min_limit, int(self.limit * 0.9))
        else:
            self.limit = min(self.max_limit, self.limit + 1)
        return self.limit


class IgnoresTheMax(Right):
    def on_sample(self, rtt, inflight, dropped):
        self.max_limit = 10**9
        return super().on_sample(rtt, inflight, dropped)


class ReturnsNone(Right):
    def on_sample(self, rtt, inflight, dropped):
        super().on_sample(rtt, inflight, dropped)


class Raises(Right):
    def __init__(self, initial, min_limit, max_limit):
        raise RuntimeError("not today")


class NeverReturns(Right):
    def on_sample(self, rtt, inflight, dropped):
        while True:
            pass


class Prints(Right):
    def on_sample(self, rtt, inflight, dropped):
        print("sample", rtt)
        return super().on_sample(rtt, inflight, dropped)


def _said(candidate: object) -> str:
    feedback = ex.write_aimd.check(candidate)
    assert "\n" not in feedback.message and "Traceback" not in feedback.message
    return feedback.message


def test_the_hand_worked_trace_is_the_packages_aimd() -> None:
    aimd = AIMD(*ex.SETTINGS, backoff_ratio=0.9, timeout=500)
    assert [aimd.on_sample(s.rtt, s.inflight, s.dropped) for s in ex.TRACE] == [s.limit for s in ex.TRACE]


def test_the_worked_answer_is_the_saved_cells_aimd_limit_and_it_passes() -> None:
    assert _said(AIMDLimit).startswith("Right:")
    assert "class AIMDLimit(AdaptiveLimit):" in ex.write_aimd.worked_answer()[1]


def test_the_right_class_passes_and_so_does_one_that_prints() -> None:
    assert _said(Right).startswith("Right: your AIMD gives the hand-worked limit after each of the 9 samples")
    assert _said(Prints).startswith("Right:")
    assert ex.write_aimd is ex.exercise_3


@pytest.mark.parametrize(
    ("candidate", "line"),
    [
        (NoBackoff, "after sample 5 (a drop at limit 22) the limit should be 19, yours is 22."),
        (
            BacksOffWithoutADrop,
            "after sample 4 (a success with only 4 in flight at limit 22) the limit should be 22, yours is",
        ),
        (IgnoresTheMax, "after sample 3 (a success at the max, 22) the limit should be 22, yours is 23."),
        (ReturnsNone, "after sample 1 (a success with 12 in flight at limit 20) on_sample returned None"),
        (Raises, "Raises(20, 15, 22) raised RuntimeError: not today."),
        (None, "No answer yet."),
        (len, "<built-in function len> is not a class: pass the class itself, e.g. check(MyAIMD)."),
        ("NoSuchClass", "nothing is called NoSuchClass in this notebook yet"),
    ],
)
def test_each_broken_candidate_is_one_line_naming_what_differs(candidate: object, line: str) -> None:
    said = _said(candidate)
    assert line in said and not said.startswith("Right:"), said


def test_a_candidate_that_never_returns_is_stopped_at_the_deadline() -> None:
    started = time.monotonic()
    said = _said(NeverReturns)
    assert "it was still running after 2 s." in said
    assert time.monotonic() - started < 10
