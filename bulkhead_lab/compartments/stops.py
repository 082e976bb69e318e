"""A soft partition and shedding by priority at every stop of a slider, on lesson 000's two days.

Each stop is a day's :class:`~bulkhead_lab.pool.params.Counters` (:func:`partitions.soft_counters`,
:func:`partitions.shed_counters`); :class:`Curves` holds each flow's drops along all the stops, and
the answers notebook 09's exercises ask for are computed here from the same runs. Pure, memoised.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bulkhead_lab.compartments import partitions
from bulkhead_lab.memo import Memo
from bulkhead_lab.pool import rounds
from bulkhead_lab.pool.params import LESSON_SPLIT, MODES, TOTAL, Counters, Params

EIGHTHS = tuple(i / 8 for i in range(9))  # the soft partition's slider: 0 (all shared) .. 1 (all reserved)
KEEPS = tuple(range(17))  # slots kept back for the critical flow
DAYS: dict[str, Params] = {mode: Params(mode=mode) for mode in MODES}
DROPS = ("tracking dropped", "event dropped")  # each flow's drops, as the curves name them


def drops(c: Counters) -> dict[str, int]:
    return {"tracking dropped": c.tracking_dropped, "event dropped": c.event_dropped}


def lesson_layouts() -> tuple[dict[str, Counters], dict[str, Counters]]:
    """Lesson 000's single pool and 24/8 on both days (the two ends every stop is read against)."""
    single = {day: rounds.counters(p) for day, p in DAYS.items()}
    split = {day: rounds.counters(p.with_(split=LESSON_SPLIT)) for day, p in DAYS.items()}
    return single, split


def soft_days(share: float) -> dict[str, Counters]:
    reserved = partitions.reserves(share)
    return {day: partitions.soft_counters(p, reserved) for day, p in DAYS.items()}


def soft_label(share: float) -> str:
    tracking, event = partitions.reserves(share)
    return f"{tracking}/{event} reserved, {TOTAL - tracking - event} shared"


def shed_days(keep: float) -> dict[str, Counters]:
    return {day: partitions.shed_counters(p, int(keep)) for day, p in DAYS.items()}


def shed_label(keep: int) -> str:
    return f"events shed at {keep} free" if keep else "one pool, nothing kept back"


@dataclass(frozen=True)
class Curves:
    """Each flow's drops on both days at every stop of a slider, and the stop chosen."""

    xs: tuple[float, ...]
    drops: dict[str, dict[str, tuple[int, ...]]]  # day -> "tracking dropped"/"event dropped" -> per stop
    chosen: float
    label: str

    def at(self) -> dict[str, dict[str, int]]:
        i = self.xs.index(self.chosen)
        return {day: {k: v[i] for k, v in flows.items()} for day, flows in self.drops.items()}


def _curves(
    xs: tuple[float, ...], days_at: Callable[[float], dict[str, Counters]], chosen: float, label: str
) -> Curves:
    runs = [days_at(x) for x in xs]
    by_day = {day: {k: tuple(drops(r[day])[k] for r in runs) for k in DROPS} for day in DAYS}
    return Curves(xs, by_day, chosen, label)


_soft_views: Memo[float, Curves] = Memo("09 soft view", 16)
_shed_views: Memo[int, Curves] = Memo("09 shed view", 32)


def soft_view(share: float = 7 / 8) -> Curves:
    """The soft partition's stops (reserved share in eighths), ``share`` chosen; kept."""
    if share not in EIGHTHS:
        raise ValueError(f"share must be one of 0, 1/8, ..., 1 (got {share!r})")
    return _soft_views.get(share, lambda: _curves(EIGHTHS, soft_days, share, soft_label(share)))


def shed_view(keep: int = 8) -> Curves:
    """Shedding's stops (slots kept back for tracking), ``keep`` chosen; kept."""
    if keep not in KEEPS:
        raise ValueError(f"keep must be an integer in 0..{KEEPS[-1]} (got {keep!r})")
    stops = tuple(float(k) for k in KEEPS)
    return _shed_views.get(keep, lambda: _curves(stops, shed_days, float(keep), shed_label(keep)))


def healthy_drops(share: float) -> int:
    """Both flows' drops on the healthy day under the soft partition of ``share``."""
    c = soft_days(share)["healthy"]
    return c.tracking_dropped + c.event_dropped


def first_costly_share() -> int:
    """In eighths: the smallest reserved share whose healthy day drops more calls than the single pool's."""
    single = healthy_drops(0.0)
    return next(k for k in range(9) if healthy_drops(k / 8) > single)


def keep_as_good_as_the_wall() -> int:
    """The fewest slots kept back for tracking that protect it as well as 24/8 on the slowdown day."""
    wall = lesson_layouts()[1]["slowdown"].tracking_dropped
    return next(k for k in KEEPS if shed_days(k)["slowdown"].tracking_dropped <= wall)
