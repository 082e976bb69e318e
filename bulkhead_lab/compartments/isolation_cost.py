"""What isolation costs: the slots two flows need apart, and together, for the same blocking.

Erlang-B gives the share a pool of ``c`` slots refuses when Poisson arrivals offer ``a``
slots' worth of load (:func:`bulkhead_lab.sizing.erlang_b`). Sized for one target, each flow
alone needs a pool of its own; the same flows in one pool need fewer slots in all, because one
flow's burst lands in the other's trough. At 1% and lesson 000's loads (tracking 16.67,
event 5.83 slot-rounds per round), 26 + 12 = 38 slots apart against 33 together: five slots,
15% more, is what the wall costs before anything fails.

The seeded model checks the formula: lesson 000's arrivals in a split of 26/12 (38 slots) and
in one pool of 33. Pure: no I/O, no memo of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from bulkhead_lab import sizing
from bulkhead_lab.pool.params import CYCLE, EVENT_RATE, HOLD_EVENT, HOLD_TRACKING, TRACKING_RATE, Mode, Params
from bulkhead_lab.validation import check_real

FLOWS = ("tracking", "event")
LESSON_LOADS = (TRACKING_RATE / CYCLE * HOLD_TRACKING, EVENT_RATE / CYCLE * HOLD_EVENT)  # slot-rounds
TARGET = 0.01  # the share of calls a pool may refuse
TARGETS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1)  # the target slider's stops


# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/08_choosing_compartments.ipynb, section 1. What isolation costs
def slots_apart_and_together(loads: tuple[float, ...], target: float) -> tuple[tuple[int, ...], int]:
    """The fewest slots each flow needs alone, and all of them together, to refuse at most ``target``."""
    apart = tuple(sizing.smallest_pool(load, target) for load in loads)
    together = sizing.smallest_pool(sum(loads), target)
    return apart, together


# <<< saved cells


@dataclass(frozen=True)
class EqualBlocking:
    """Each flow's pool apart and the one pool together, sized for the same target blocking."""

    target: float
    loads: tuple[float, ...]  # offered load per flow (arrival rate x hold)
    apart: tuple[int, ...]  # slots per flow, each sized alone
    together: int  # slots of the one shared pool

    @property
    def split_total(self) -> int:
        return sum(self.apart)

    @property
    def extra(self) -> int:
        """Slots the wall costs: apart minus together."""
        return self.split_total - self.together

    @property
    def blocking_apart(self) -> tuple[float, ...]:
        return tuple(sizing.erlang_b(c, a) for c, a in zip(self.apart, self.loads, strict=True))

    @property
    def blocking_together(self) -> float:
        return sizing.erlang_b(self.together, sum(self.loads))

    def model_params(self, mode: Mode = "healthy") -> tuple[Params, Params]:
        """Lesson 000's model with these sizes: the split (two flows) and the one pool."""
        split = Params(total=self.split_total, split=self.apart[0], mode=mode)
        return split, Params(total=self.together, mode=mode)


def equal_blocking(target: float = TARGET, loads: tuple[float, ...] = LESSON_LOADS) -> EqualBlocking:
    """Sizes apart and together for ``target`` (a share in (0, 0.5])."""
    check_real("target", target, 0.0, 0.5, low_open=True)
    apart, together = slots_apart_and_together(tuple(loads), target)
    return EqualBlocking(target, tuple(loads), apart, together)
