"""Notebook 06's section 6: a slowdown that ends, and how long the retries' load outlives it."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from bulkhead_lab.course.retries_and_budgets.views.callers import (
    CALLERS,
    FLOWS,
    LESSON,
    jitter_label,
    per_second,
    run,
    setup_of,
)
from bulkhead_lab.pool.arrivals import EVENT, TRACKING
from bulkhead_lab.pool.params import LESSON_SPLIT, MODES, Params, split_label
from bulkhead_lab.retries.drain import DRAIN_WITHIN, STORM_STOP, drain
from bulkhead_lab.retries.storm import RetrySetup
from bulkhead_lab.validation import check_int

# --- 6. the storm after its trigger ---------------------------------------------------------

STORM_BIN = 10  # rounds per point of the storm figure
STORM_BEFORE, STORM_AFTER = 200, 300  # rounds shown around the slowdown's end


@dataclass(frozen=True)
class StormView:
    """A slowdown that ends at ``stop``: calls offered above the healthy day's, per flow and
    layout, around ``stop``, and the rounds until each flow's load is back (:func:`drain.drain`:
    over the next second, at most 10% of the flow's requests above the healthy day's)."""

    split: int | None
    setup: RetrySetup
    stop: int
    rounds: tuple[int, ...]  # each bin's first round
    excess: dict[tuple[int | None, int], tuple[float, ...]]  # calls/s above the healthy day's
    thresholds: dict[int, float]  # per flow, calls/s: 10% of its requests (what "back" allows)
    frame: pd.DataFrame  # index layout

    @property
    def layouts(self) -> tuple[int | None, ...]:
        return (None,) if self.split is None else (None, self.split)

    def back(self, split: int | None, column: str = "every flow back after") -> int | None:
        """Rounds after ``stop`` until the load is back (``None``: not within the run)."""
        value = self.frame.loc[split_label(split), column]
        return None if value == NEVER else int(value)


NEVER = "never"  # a load not back within the run
BACK = {TRACKING: "tracking back after", EVENT: "event back after"}


def storm_view(
    split: int | None = LESSON_SPLIT,
    setup: RetrySetup = CALLERS["3 attempts, full jitter"],
    stop: int = STORM_STOP,
    base: Params = LESSON,
) -> StormView:
    """Both days of one pool and ``split`` with ``setup``'s callers, the slowdown ending at ``stop``."""
    check_int("stop", stop, base.start, base.rounds - STORM_AFTER)
    setup = setup.with_(stop=stop)
    first, last = stop - STORM_BEFORE, stop + STORM_AFTER
    layouts = (None,) if split is None else (None, split)
    excess: dict[tuple[int | None, int], tuple[float, ...]] = {}
    rows = []
    for s in layouts:
        h, y = (run(s, mode, setup, base) for mode in MODES)
        assert h.trace is not None and y.trace is not None
        row: dict[str, object] = {"layout": split_label(s, base.total), "slowdown ends (round)": stop}
        for f, _ in FLOWS:
            pairs = zip(y.trace.offered[f][first:last], h.trace.offered[f][first:last], strict=True)
            excess[(s, f)] = per_second(tuple(a - b for a, b in pairs), STORM_BIN, base.cycle)
            back = drain(y.trace, h.trace, stop, flows=(f,))
            row[BACK[f]] = NEVER if back is None else back
        backs = [row[BACK[f]] for f, _ in FLOWS]
        row["every flow back after"] = NEVER if NEVER in backs else max(int(str(b)) for b in backs)
        row["extra calls after the end"] = sum(
            sum(y.trace.offered[f][stop:]) - sum(h.trace.offered[f][stop:]) for f, _ in FLOWS
        )
        rows.append(row)
    thresholds = {TRACKING: base.tracking_rate * DRAIN_WITHIN, EVENT: base.event_rate * DRAIN_WITHIN}
    frame = pd.DataFrame(rows).set_index("layout")
    return StormView(split, setup, stop, tuple(range(first, last, STORM_BIN)), excess, thresholds, frame)


DRAIN_CALLERS = ("at once", "none", "full", "equal", "decorrelated")


def drain_table(stop: int = STORM_STOP, split: int = LESSON_SPLIT) -> pd.DataFrame:
    """Rounds after the slowdown's end until each flow's load is back, per jitter, without and
    with the SRE budget, in one pool and in ``split``."""
    rows = []
    for budget in ("none", "10% (SRE)"):
        for jitter in DRAIN_CALLERS:
            view = storm_view(split, setup_of(jitter=jitter, budget=budget), stop)
            row: dict[str, object] = {"callers (3 attempts)": jitter_label(jitter), "budget": budget}
            for s in (None, split):
                for f, name in FLOWS:
                    row[f"{split_label(s)}: {name} back after"] = view.frame.loc[split_label(s), BACK[f]]
            rows.append(row)
    return pd.DataFrame(rows).set_index(["callers (3 attempts)", "budget"])
