"""What users of adaptive limits trip over, measured on lesson 000's seeded pool: plain data for sliders.

Three questions their issue trackers keep asking, each a function of one knob:

- :func:`gradient2_drift`: a slowdown that lasts long enough becomes Gradient2's new
  baseline (its long average follows every sample), and the event limit climbs back
  (concurrency-limits PR #88 "Fix gradient2 drift", issue #137);
- :func:`vegas_slow_start`: Vegas started from a low limit, with and without the
  slow-start branch (issue #35 "VegasLimit without slow start is unusable", PR #44), per
  sample and behind a WindowedLimit (one update a second), where the difference shows;
- :func:`reaction_and_stability`: one setting (smoothing, tolerance, buffer, timeout ...)
  over a list of values: how fast the event limit falls after the failure against how
  much it moves on a healthy day.

Every run is :func:`bulkhead_lab.adaptive.pool.run_pool` with
:func:`~bulkhead_lab.adaptive.pool.model_spec`'s settings plus the one knob moved.
Pure and deterministic: no I/O, no plotting.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from itertools import accumulate
from typing import Any

from bulkhead_lab.adaptive.pool import Algorithm, LimitTrace, model_spec, pool_run
from bulkhead_lab.pool.arrivals import EVENT, TRACKING
from bulkhead_lab.pool.params import LESSON_SPLIT, Params
from bulkhead_lab.validation import check_int


def _cut(trace: LimitTrace, rounds: int) -> LimitTrace:
    """``trace``'s first ``rounds`` rounds."""
    return LimitTrace(*(getattr(trace, f.name)[:rounds] for f in fields(trace)))


def _first(values: tuple[int, ...], begin: int, test: Any) -> int | None:
    return next((t for t in range(begin, len(values)) if test(values[t])), None)


# --- Gradient2's drift under a long slowdown -------------------------------------------------


@dataclass(frozen=True)
class Drift:
    """The event flow under Gradient2 through a slowdown of ``slowdown_rounds`` (tracking: pool only)."""

    start: int  # the failure round
    slowdown_rounds: int
    event_limit: tuple[int, ...]  # per round, the whole run
    baseline: tuple[float, ...]  # Gradient2's long average round trip, in rounds
    tracking_dropped: tuple[int, ...]  # per round
    before: int  # the event limit when the failure starts
    lowest: int  # its lowest after that
    lowest_at: int
    back_at: int | None  # first round after the lowest that the limit is back at ``before`` (None: not yet)


def gradient2_drift(slowdown_rounds: int = 3000, base: Params = Params(), **settings: Any) -> Drift:
    """Run the slowdown for ``slowdown_rounds`` from the failure round (the run ends with it).

    The run is ``base``'s (longer if the slowdown needs it) with the slowdown ending at its
    end (``stop``), cut there: the same rounds as a run that ends with the slowdown, on the
    stream every length shares (a seeded stream's first rounds do not depend on its length).
    """
    end = base.start + slowdown_rounds
    params = base.with_(split=None, mode="slowdown", rounds=max(base.rounds, end))
    run = pool_run(params, None, model_spec("Gradient2", EVENT, params, **settings), trace=True, stop=end)
    assert run.trace is not None
    trace = _cut(run.trace, end)
    limit, start = trace.event_limit, params.start
    lowest, lowest_at, back_at = _returned(limit, start)
    return Drift(
        start,
        slowdown_rounds,
        limit,
        trace.event_baseline,
        trace.tracking_dropped,
        limit[start],
        lowest,
        lowest_at,
        back_at,
    )


def _returned(limit: tuple[int, ...], start: int) -> tuple[int, int, int | None]:
    """The limit's lowest from ``start`` on, where, and the first round after that it is back at its
    level at ``start`` (None: not within ``limit``)."""
    before, lowest = limit[start], min(limit[start:])
    lowest_at = limit.index(lowest, start)
    return lowest, lowest_at, _first(limit, lowest_at, lambda x: x >= before) if lowest < before else None


# --- Vegas from a low initial limit ----------------------------------------------------------


@dataclass(frozen=True)
class Ramp:
    """The tracking flow under Vegas from a low start on the healthy day (event: pool only)."""

    slow_start: bool
    windowed: bool
    tracking_limit: tuple[int, ...]
    target: int  # the lesson's tracking compartment
    reached_at: int | None  # first round the limit reaches ``target`` (None: never in the run)
    tracking_dropped: int


def vegas_slow_start(initial: int = 1, base: Params = Params()) -> tuple[Ramp, ...]:
    """Four ramps from ``initial``: per sample / windowed, each with and without slow start."""
    params = base.with_(split=None, mode="healthy")
    check_int("initial", initial, 1, params.total)
    ramps = []
    for windowed in (False, True):
        for slow_start in (True, False):
            spec = model_spec("Vegas", TRACKING, params, initial=initial, slow_start=slow_start)
            run = pool_run(params, replace(spec, windowed=windowed), None, trace=True)
            assert run.trace is not None
            limit = run.trace.tracking_limit
            target = min(LESSON_SPLIT, params.total)
            ramps.append(
                Ramp(
                    slow_start,
                    windowed,
                    limit,
                    target,
                    _first(limit, 0, lambda x, target=target: x >= target),
                    run.counters.tracking_dropped,
                )
            )
    return tuple(ramps)


# --- smoothing and tolerance: reaction speed against stability -------------------------------


@dataclass(frozen=True)
class Reaction:
    """One value of one setting: how fast the event limit reacts, how much it moves when nothing happens."""

    value: Any
    before: int  # the event limit when the failure starts (slowdown day)
    lowest: int  # its lowest after that
    reaction: int | None  # rounds until it had made half its fall (None: it never fell)
    spread: int  # healthy day, from the failure round on: highest minus lowest event limit
    tracking_dropped: int  # slowdown day


def reaction_and_stability(
    algorithm: Algorithm,
    setting: str,
    values: Iterable[Any],
    base: Params = Params(),
) -> tuple[Reaction, ...]:
    """``setting`` of ``algorithm`` at each of ``values``, on both days, the event flow governed."""
    params = base.with_(split=None)
    rows = []
    for value in values:
        spec = model_spec(algorithm, EVENT, params, **{setting: value})
        quiet = _trace(params.with_(mode="healthy"), None, spec)
        slow = pool_run(params.with_(mode="slowdown"), None, spec, trace=True)
        assert slow.trace is not None
        start = params.start
        limit = slow.trace.event_limit
        before, lowest = limit[start], min(limit[start:], default=limit[-1])
        half = before - (before - lowest) / 2
        reaction = None
        if lowest < before:
            reached = _first(limit, start, lambda x, half=half: x <= half)
            reaction = None if reached is None else reached - start
        calm = quiet.event_limit[start:]
        rows.append(
            Reaction(
                value,
                before,
                lowest,
                reaction,
                max(calm, default=0) - min(calm, default=0),
                slow.counters.tracking_dropped,
            )
        )
    return tuple(rows)


# --- the drift panel's series, and exercise 2's question -------------------------------------


@dataclass(frozen=True)
class DriftRuns:
    """Gradient2's drift through a slowdown of ``drift.slowdown_rounds``, the run going on to the end of
    the lesson's 40 s (the calls healthy again after the slowdown), beside the single pool and 24/8:
    each layout's tracking drops summed from the failure round on."""

    drift: Drift
    tolerance: float
    event_limit: tuple[int, ...]  # per round, the whole run
    baseline: tuple[float, ...]
    tracking_since: dict[str, tuple[int, ...]]  # 'Gradient2', 'single pool (32)', '24/8'

    @property
    def stop(self) -> int:
        return self.drift.start + self.drift.slowdown_rounds


def drift_runs(length: int = 3000, tolerance: float = 1.5, base: Params = Params()) -> DriftRuns:
    """A slowdown of ``length`` rounds from the failure round; Gradient2's ``tolerance`` (memoised runs)."""
    drift = gradient2_drift(length, base, tolerance=tolerance)
    params = base.with_(split=None, mode="slowdown")
    stop = params.start + length
    layouts = {
        "Gradient2": (None, model_spec("Gradient2", EVENT, params, tolerance=tolerance)),
        "single pool (32)": (None, None),
        "24/8": (LESSON_SPLIT, params.total - LESSON_SPLIT),
    }
    traces = {name: _trace(params, *flows, stop) for name, flows in layouts.items()}
    since = {
        name: tuple(accumulate(d if t >= params.start else 0 for t, d in enumerate(trace.tracking_dropped)))
        for name, trace in traces.items()
    }
    g2 = traces["Gradient2"]
    return DriftRuns(drift, tolerance, g2.event_limit, g2.event_baseline, since)


def _trace(params: Params, tracking: Any, event: Any, stop: int | None = None) -> LimitTrace:
    trace = pool_run(params, tracking, event, trace=True, stop=stop).trace
    assert trace is not None
    return trace


def longest_confined(tolerance: float = 1.5, lengths: Iterable[int] = (), base: Params = Params()) -> int:
    """The longest of ``lengths`` (default: every 20 rounds from 100) after which Gradient2's event limit
    is not yet back at its level from before the failure: the slowdown it still keeps confined.

    One run: a slowdown that ends at round ``end`` is the lesson's slowdown up to that round, so each
    length reads :func:`gradient2_drift`'s return on a prefix of the lesson's trace.
    """
    lengths = tuple(lengths) or tuple(range(100, base.rounds - base.start + 1, 20))
    limit = gradient2_drift(base.rounds - base.start, base, tolerance=tolerance).event_limit
    kept = [n for n in lengths if _returned(limit[: base.start + n], base.start)[2] is None]
    if not kept:
        raise ValueError(f"tolerance must let Gradient2 confine one of the lengths (got {tolerance!r})")
    return max(kept)
