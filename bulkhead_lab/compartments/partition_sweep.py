"""A soft partition and shedding by priority at every stop of a slider, on lesson 000's two days.

Each stop is a day's :class:`~bulkhead_lab.pool.params.Counters` (:func:`partitions.soft_counters`,
:func:`partitions.shed_counters`); :class:`Curves` holds each flow's drops along all the stops, and
the answers notebook 09's exercises ask for are computed here from the same runs.

One seed's day is one draw of the traffic: another seed moves every count (:func:`seed_noise`
measures how far, over :data:`NOISE_SEEDS`), so a difference of a few calls between two stops
says nothing. The exercises judge with a stated :data:`MARGIN` above that noise: a stop costs
more than the single pool, or protects as well as the wall, only by more than the margin.
Pure, memoised.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass

from bulkhead_lab.compartments import partitions
from bulkhead_lab.memo import Memo
from bulkhead_lab.pool import rounds
from bulkhead_lab.pool.params import LESSON_SPLIT, MODES, SEED, TOTAL, Counters, Params

EIGHTHS = tuple(i / 8 for i in range(9))  # the soft partition's slider: 0 (all shared) .. 1 (all reserved)
KEEPS = tuple(range(17))  # slots kept back for the critical flow
DAYS: dict[str, Params] = {mode: Params(mode=mode) for mode in MODES}
DROPS = ("tracking dropped", "event dropped")  # each flow's drops, as the curves name them
NOISE_SEEDS = tuple(SEED + i for i in range(20))  # lesson 000's seed and the next 19
MARGIN = 0.2  # a difference counts when it passes 20% of the count it is read against


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


@dataclass(frozen=True)
class Noise:
    """One count on lesson 000's day, over :data:`NOISE_SEEDS` (the lesson's seed first)."""

    what: str
    counts: tuple[int, ...]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.counts)

    @property
    def sd(self) -> float:
        return statistics.stdev(self.counts)

    @property
    def share(self) -> float:
        """The standard deviation over the mean: how far another seed moves the count, as a share."""
        return self.sd / self.mean


_noise: Memo[tuple[()], tuple[Noise, Noise]] = Memo("09 seed noise", 1)


def seed_noise() -> tuple[Noise, Noise]:
    """The two counts the exercises judge, over :data:`NOISE_SEEDS`: the single pool's healthy-day drops
    (both flows) and 24/8's slowdown-day tracking drops (kept: about half a second)."""

    def measure() -> tuple[Noise, Noise]:
        single = [rounds.counters(Params(seed=s)) for s in NOISE_SEEDS]
        wall = [rounds.counters(Params(mode="slowdown", seed=s, split=LESSON_SPLIT)) for s in NOISE_SEEDS]
        both = tuple(c.tracking_dropped + c.event_dropped for c in single)
        split = f"{LESSON_SPLIT}/{TOTAL - LESSON_SPLIT}"
        return (
            Noise("single pool, healthy day: calls dropped", both),
            Noise(f"{split}, slowdown day: tracking dropped", tuple(c.tracking_dropped for c in wall)),
        )

    return _noise.get((), measure)


def over_margin(count: int, against: int, margin: float = MARGIN) -> bool:
    """Whether ``count`` passes ``against`` by more than ``margin`` of it."""
    return count > against * (1 + margin)


def healthy_drops(share: float) -> int:
    """Both flows' drops on the healthy day under the soft partition of ``share``."""
    c = soft_days(share)["healthy"]
    return c.tracking_dropped + c.event_dropped


def first_costly_share(margin: float = MARGIN) -> int:
    """In eighths: the smallest reserved share whose healthy day drops more calls than the single pool's
    by more than ``margin`` of them."""
    single = healthy_drops(0.0)
    return next(k for k in range(9) if over_margin(healthy_drops(k / 8), single, margin))


def keep_as_good_as_the_wall(margin: float = MARGIN) -> int:
    """The fewest slots kept back for tracking that protect it as well as 24/8 on the slowdown day, within
    ``margin``: its tracking drops at most ``margin`` more than the wall's."""
    wall = lesson_layouts()[1]["slowdown"].tracking_dropped
    return next(k for k in KEEPS if not over_margin(shed_days(k)["slowdown"].tracking_dropped, wall, margin))
