"""Notebook 05's code exercise, write_aimd, as the notebook shows it: the recipe waits behind the Hint
button (never in a verdict line), and what the live cell after it needs (tests/live has the live runs).

The verdicts themselves are pinned in tests/course/test_writes.py (every candidate's kind) and
tests/course/test_judges.py (the cases they name)."""

from __future__ import annotations

from writes import define
from writes import n05_aimd as w

from bulkhead_lab.course.adaptive_limits import exercises as ex


def test_the_recipe_is_the_hint_and_no_verdict_line_carries_it() -> None:
    assert "0.9" in ex.write_aimd.hint and "500 ms" in ex.write_aimd.hint and "half" in ex.write_aimd.hint
    for source in (w.RIGHT, w.NO_BACKOFF, w.GLOBAL):
        said = ex.write_aimd.check(define(source, "MyAIMD")).message
        assert "Hint:" not in said and ex.write_aimd.hint not in said, said
    assert (
        ex.write_aimd.check("  ").message
        == "No answer yet. Type your class's name, then press Check (Hint helps)."
    )


def test_the_live_cell_takes_numpy_limits_as_python_numbers() -> None:
    made = ex.python_numbers(define(w.NUMPY, "MyAIMD"))(*ex.LIVE)
    got = made.on_sample(80, 12, False)  # numpy's int64 from the learner's limiter
    assert type(got) is int and got == 21
    assert ex.python_numbers(define(w.NO_RETURN, "MyAIMD"))(*ex.LIVE).on_sample(80, 12, False) is None


def test_the_live_cells_dry_run_has_no_round_trip_as_slow_as_the_live_slowdown() -> None:
    """A limiter that breaks only on the live slow calls (1000 ms) reaches the live run (tests/live)."""
    assert max(rtt for rtt, _, _ in ex.DRY_RUN) < 950
