"""The numbers notebook 01 shows beside its own cells: for one pool (the slider view), Erlang-B
(:mod:`bulkhead_lab.sizing`) against seeded runs of one flow alone in it (:mod:`bulkhead_lab.pool.one_flow`);
and the lessons' sizing figures beside this run's (the appendix).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import pandas as pd

from bulkhead_lab import sizing
from bulkhead_lab.course.ui.claim_table import Claim, count, exact, table
from bulkhead_lab.pool import lesson000, one_flow
from bulkhead_lab.pool.params import Params
from bulkhead_lab.validation import check_int, check_real

TARGET = 0.01  # the blocking target the notebook sizes for
CURVE = ("Erlang-B", "Erlang-B, hold - 1/2 round", "seeded model")  # the curve's columns


@dataclass(frozen=True)
class LittleView:
    """One pool: Little's Law, Erlang-B and the seeded model, and the curve over pool sizes.

    *Headroom* is slots / in flight: :attr:`pool_headroom` is this pool's, :attr:`target_headroom`
    the rule of thumb's aim and :attr:`suggested_limit` the pool it gives.
    """

    arrival_rate: float  # calls/s
    hold: float  # s
    hold_rounds: int
    slots: int
    target_headroom: float
    in_flight: float
    suggested_limit: int
    curve: pd.DataFrame  # index slots; Erlang-B, Erlang-B (hold - 1/2 round), seeded model

    @property
    def erlang_b(self) -> float:
        return float(self.curve.loc[self.slots, "Erlang-B"])

    @property
    def simulated(self) -> float:
        return float(self.curve.loc[self.slots, "seeded model"])

    @property
    def pool_headroom(self) -> float:
        return self.slots / self.in_flight

    @property
    def sized(self) -> int:
        """The fewest slots Erlang-B says refuse at most :data:`TARGET`."""
        return sizing.smallest_pool(self.in_flight, TARGET)

    def table(self) -> pd.DataFrame:
        """The figures for the chosen pool, one row each, the two blocking numbers first."""
        load = self.in_flight
        rows = {
            "Erlang-B blocking": round(self.erlang_b, 4),
            "seeded model drop rate": round(self.simulated, 4),
            "in flight (Little's Law)": round(load, 3),
            "pool size (slots)": self.slots,
            "offered load per slot (in flight / slots)": round(load / self.slots, 3),
            "utilization (busy share of the slots)": round(load * (1 - self.erlang_b) / self.slots, 3),
            "headroom of this pool (slots / in flight)": round(self.pool_headroom, 2),
            f"suggested limit (headroom {self.target_headroom:g}x)": self.suggested_limit,
            "arrival rate (calls/s)": self.arrival_rate,
            "hold (s)": self.hold,
            "hold (rounds)": self.hold_rounds,
        }
        return pd.DataFrame({"value": pd.Series(rows, dtype=object)})

    def rows_that_matter(self) -> pd.DataFrame:
        """The curve from a little below the pool to just past the size that refuses 1% (exercise 2's
        worked answer: it shows the answer)."""
        low, high = max(1, min(self.slots, self.sized) - 3), min(len(self.curve), self.sized + 1)
        return self.curve.loc[low:high].round(4)

    def rows_around_pool(self) -> pd.DataFrame:
        """The curve from 3 slots below the pool to 2 above it, and no further: section 4 shows it above
        exercise 2, whose answer (the first size refusing 1%) it must not show for lesson 000's events."""
        low, high = max(1, self.slots - 3), min(len(self.curve), self.slots + 2)
        return self.curve.loc[low:high].round(4)


def littles_law_view(
    arrival_rate: float = 97.22, hold: float = 0.06, slots: int = 8, target_headroom: float = 2.5
) -> LittleView:
    """In flight = rate x hold, and what pools of 1.. slots refuse: Erlang-B against the seeded model.

    ``arrival_rate`` is calls/s and ``hold`` seconds; the model runs at 100 rounds/s, so the hold
    is rounded to whole rounds there (and Erlang-B is computed in the model's units).
    """
    check_real("arrival_rate", arrival_rate, 0.0, 1000.0, low_open=True)
    check_int("slots", slots, 1, one_flow.MAX_POOL)
    check_real("target_headroom", target_headroom, 1.0, one_flow.MAX_TARGET_HEADROOM)
    rounds = one_flow.hold_in_rounds(hold)
    load = sizing.in_flight(arrival_rate, hold)
    sizes = range(1, one_flow.pool_sizes_shown(load, slots) + 1)
    blocking = one_flow.blocking_curve(arrival_rate, rounds, sizes)
    rows = [(b.erlang_b, b.erlang_b_half, b.simulated) for b in blocking]
    curve = pd.DataFrame(rows, index=pd.Index(sizes, name="slots"), columns=list(CURVE))
    suggested = sizing.suggested_limit(arrival_rate, hold, target_headroom)
    return LittleView(arrival_rate, hold, rounds, slots, target_headroom, load, suggested, curve)


# What lessons 004 and 000 print about sizing: (where, what, the lesson's value as printed).
LESSON_SIZING = (
    ("lesson 004", "Payment's calls in flight (20/s x 0.1 s)", "2"),
    ("lesson 004", "Payment's limit, 'a few times above that'", "5 or 6"),
    ("lesson 000", "event slots in flight (0.9722/round x 6 rounds)", "5.83"),
    ("lesson 000", "8 event slots against that load", "1.37"),
    ("lesson 000", "event pool 'utilization' (load per slot) at 8 slots", "0.729"),
    ("lesson 000", "event pool 'utilization' (load per slot) at 5 slots", "1.167"),
)


def lesson_claims(base: Params = Params()) -> list[Claim]:
    """Each sizing figure the two lessons print, beside the same figure computed here."""
    rate = base.event_rate / base.cycle
    here = [
        f"{sizing.in_flight(20.0, 0.1):g}",
        " or ".join(str(sizing.suggested_limit(20.0, 0.1, f)) for f in (2.5, 3.0)),
        f"{sizing.in_flight(rate, base.hold_event):.2f}",
        f"{sizing.headroom(rate, base.hold_event, 8):.2f}",
        *(f"{lesson000.event_pool_utilization(base, n):.3f}" for n in lesson000.SENSITIVITY_EVENT_SLOTS),
    ]
    return [
        exact(where, says, said, now) for (where, says, said), now in zip(LESSON_SIZING, here, strict=True)
    ]


claims_table = partial(table, lesson="lesson", appendix=True)  # the appendix: numbered, reproduced or not
claims_count = partial(count, lesson="lessons 000 and 004")
