"""Lesson 000's 32-slot pool with a flow's compartment sized by an adaptive limit instead of a split.

Same arrival stream (``model.arrival_stream``, kept by ``cache``), same holds, same slowdown;
only who may take a slot changes. Each flow is governed by ``None`` (no compartment: only the
shared pool limits it), an ``int`` (a fixed compartment, as in the lesson's 24/8), a
:class:`LimiterSpec` (an adaptive limit from :mod:`bulkhead_lab.adaptive.limits` or
:mod:`bulkhead_lab.adaptive.clocked`, built fresh for the run) or a zero-argument callable
returning a fresh limiter. Every layout shares the one pool of ``params.total`` slots.

One round ``t``, exactly:

1. every timed limiter is told the time (``tick(t)``);
2. calls whose hold ends at ``t`` free their slots; each is a sample for its flow's
   limiter, ``on_sample(rtt=its hold in rounds, inflight=its flow's in-flight count when
   it was admitted, itself included)`` (what concurrency-limits passes), in admission
   order; an event call admitted from the failure round on holds ``slow`` rounds (until
   ``stop``, if given: lesson 000's ``Params`` has no knob for the slowdown's end, so
   :func:`run_pool` takes it, as ``retry_storm.RetrySetup.stop`` does);
3. ``busy_rounds`` adds the busy slots, and a trace (if asked) records each flow's limit,
   in-flight count and limiter baseline at this moment (after the frees, before arrivals);
4. the round's arrivals, in the stream's shuffled order, each take a slot if its flow's
   in-flight count is under its limit *and* the pool has a free slot. Otherwise it is
   dropped, and counted in that flow's drops:

   - refused by its own limiter: no sample (concurrency-limits gives a rejected call no
     listener); ``idle`` adds the pool's free slots at that moment (slots left empty
     while a call was turned away, which for a fixed split is exactly the lesson's
     "idle slots in the other pool");
   - refused by the full shared pool after its limiter let it through: a drop sample,
     ``on_sample(rtt=0, inflight=in-flight + 1, dropped=True)`` at once (the library's
     ``onDropped``, for a call the downstream resource refused; 0 says no round trip
     was measured). The new limit applies to the rest of the round's arrivals.

That is this module's reading of issue 13's "each refusal a drop": every refusal is a
drop in the counters; a refusal the limiter did not make is also a drop *sample*,
because that is the only refusal a real limiter hears of. Feeding a limiter its own
refusals would make AIMD back off because it refused, down to its minimum.

Calls still held at the last round never complete, so never sample (as in the lesson).
With a fixed split (``Fixed`` on both flows) or no limiter at all, the six counters are
:func:`bulkhead_lab.pool.model.run`'s exactly; the comparison still takes those two rows from
the model itself. Deterministic: the stream is seeded, and a limiter's own randomness
(Vegas' probe jitter, Envoy's minRTT jitter) is seeded from ``params.seed`` and the flow.

Pure: no I/O, no plotting; no memo of its own (``cache.pool_run`` keeps runs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Union

from bulkhead_lab.adaptive.clocked import EnvoyGradient, Windowed
from bulkhead_lab.adaptive.limits import AIMD, AdaptiveLimit, Fixed, Gradient2, Vegas
from bulkhead_lab.pool.model import (
    EVENT,
    LESSON_SPLIT,
    TRACKING,
    ArrivalStream,
    Counters,
    Params,
    arrival_stream,
    event_holds,
)
from bulkhead_lab.validation import check_choice, check_int

ALGORITHMS: dict[str, type[AdaptiveLimit]] = {
    "AIMD": AIMD,
    "Vegas": Vegas,
    "Gradient2": Gradient2,
    "Envoy": EnvoyGradient,
}


@dataclass(frozen=True)
class LimiterSpec:
    """Which adaptive limit governs a flow, and its settings: plain, hashable, comparable data."""

    algorithm: str
    settings: tuple[tuple[str, Any], ...] = ()
    windowed: bool = False  # wrap it in Netflix's WindowedLimit (one averaged sample per window)

    @classmethod
    def of(cls, algorithm: str, *, windowed: bool = False, **settings: Any) -> LimiterSpec:
        check_choice("algorithm", algorithm, tuple(ALGORITHMS))
        return cls(algorithm, tuple(sorted(settings.items())), windowed)

    def with_(self, **changes: Any) -> LimiterSpec:
        """A copy with some settings changed or added."""
        return LimiterSpec.of(self.algorithm, windowed=self.windowed, **{**dict(self.settings), **changes})

    def get(self, name: str, default: Any = None) -> Any:
        return dict(self.settings).get(name, default)

    def build(self, seed: int = 1) -> AdaptiveLimit:
        """A fresh limiter (``seed`` reaches the seeded ones unless the settings name one)."""
        settings = dict(self.settings)
        if self.algorithm in ("Vegas", "Envoy"):
            settings.setdefault("seed", seed)
        limiter = ALGORITHMS[self.algorithm](**settings)
        return Windowed(limiter) if self.windowed else limiter


# How a flow is governed: None (the pool only), an int (a fixed compartment), a LimiterSpec,
# or a zero-argument callable making a fresh limiter (an experiment's own AdaptiveLimit).
FlowControl = Union[LimiterSpec, int, Callable[[], AdaptiveLimit], None]  # noqa: UP007  (runtime alias, 3.10)


def model_spec(algorithm: str, flow: int, params: Params = Params(), **overrides: Any) -> LimiterSpec:
    """The settings this course uses for ``algorithm`` on ``flow`` in the seeded model.

    The sources' defaults, with two kinds of change and no others:

    - bounds fitted to the pool: ``max_limit`` is the pool (``params.total``), the start
      is the lesson's compartment (24 tracking, 8 event), ``min_limit`` is 1 (Vegas' own
      floor; the sources' 20 would be more than the event flow's whole compartment),
      except Envoy's, whose min_concurrency 3 is already a small number;
    - times converted at ``params.cycle`` rounds per second: AIMD's 5 s timeout, Envoy's
      0.1 s update interval and 60 s minRTT interval (longer than the lesson's 40 s run:
      the only minRTT window is the first, unless the limit sits at its minimum).
    """
    check_choice("algorithm", algorithm, tuple(ALGORITHMS))
    check_int("flow", flow, TRACKING, EVENT)
    initial = LESSON_SPLIT if flow == TRACKING else params.total - LESSON_SPLIT
    settings: dict[str, Any] = {"initial": initial, "min_limit": 1, "max_limit": params.total}
    if algorithm == "AIMD":
        settings.update(backoff_ratio=0.9, timeout=5 * params.cycle)
    elif algorithm == "Vegas":
        settings.update(smoothing=1.0, probe_multiplier=30)
    elif algorithm == "Gradient2":
        settings.update(smoothing=0.2, queue_size=4, long_window=600, tolerance=1.5)
    else:
        settings.update(
            min_limit=3,
            percentile=0.5,
            buffer=0.25,
            request_count=50,
            jitter=0.15,
            update_interval=max(1, round(0.1 * params.cycle)),
            min_rtt_interval=max(1, round(60 * params.cycle)),
        )
    settings.update(overrides)
    return LimiterSpec.of(algorithm, **settings)


@dataclass(frozen=True)
class LimitTrace:
    """Per round, after the frees and before the arrivals: each flow's limit, in-flight and baseline;
    and each flow's drops in that round.

    An ungoverned flow's limit is the pool's size; ``*_baseline`` is the limiter's reference
    round trip in rounds (Vegas' no-load RTT, Gradient2's long average, Envoy's minRTT;
    0.0 when it has none).
    """

    tracking_limit: tuple[int, ...]
    event_limit: tuple[int, ...]
    tracking_inflight: tuple[int, ...]
    event_inflight: tuple[int, ...]
    tracking_baseline: tuple[float, ...]
    event_baseline: tuple[float, ...]
    tracking_dropped: tuple[int, ...]  # the round's refused arrivals, by the limit or the pool
    event_dropped: tuple[int, ...]


@dataclass(frozen=True)
class PoolRun:
    """One run: the lesson's six counters, who refused whom, and (if asked) the trace."""

    counters: Counters
    refused_by_limit: tuple[int, int]  # (tracking, event): turned away by the flow's own limit
    refused_by_pool: tuple[int, int]  # turned away by the full shared pool
    trace: LimitTrace | None = None


def _limiter(control: FlowControl, params: Params, flow: int) -> AdaptiveLimit | None:
    if control is None:
        return None
    if isinstance(control, LimiterSpec):
        return control.build(seed=params.seed * 2 + flow)
    if callable(control):
        limiter = control()
        if not isinstance(limiter, AdaptiveLimit):
            raise TypeError(f"a flow's limiter factory must return an AdaptiveLimit (got {limiter!r})")
        return limiter
    return Fixed(check_int(f"{('tracking', 'event')[flow]} compartment", control, 1, params.total))


def run_pool(
    params: Params = Params(),
    tracking: FlowControl = None,
    event: FlowControl = None,
    *,
    stream: ArrivalStream | None = None,
    trace: bool = False,
    stop: int | None = None,
) -> PoolRun:
    """One run of the pool with each flow governed as given (``params.split`` is not read).

    ``stop``: the round the slowdown ends (event calls admitted from then on hold
    ``hold_event`` again); ``None``, the default, is the lesson's: it lasts to the end.
    """
    if stream is None:
        stream = arrival_stream(params)
    if stream.rounds != params.rounds:
        raise ValueError(f"stream has {stream.rounds} rounds but params.rounds is {params.rounds}")
    stop = params.rounds if stop is None else check_int("stop", stop, params.start, params.rounds)
    lim_t, lim_e = _limiter(tracking, params, TRACKING), _limiter(event, params, EVENT)
    timed = [lim for lim in (lim_t, lim_e) if lim is not None and lim.timed]
    rounds, cap, ht = params.rounds, params.total, params.hold_tracking
    he0, he1, start = event_holds(params)
    ends_t = [0] * (rounds + 1)
    ends_e = [0] * (rounds + 1)
    adm_t = [0] * rounds  # admitted per round (those that will complete) ...
    adm_e = [0] * rounds
    base_t = [0] * rounds  # ... and the flow's in-flight count just before them
    base_e = [0] * rounds
    busy_t = busy_e = busy_rounds = idle = 0
    t_resp = t_drop = e_resp = e_drop = 0
    by_limit = [0, 0]
    by_pool = [0, 0]
    order, n_tracking, n_event = stream.order, stream.tracking, stream.event
    seen_limit: tuple[list[int], list[int]] = ([], [])
    seen_busy: tuple[list[int], list[int]] = ([], [])
    seen_base: tuple[list[float], list[float]] = ([], [])
    seen_drop: tuple[list[int], list[int]] = ([], [])
    for t in range(rounds):
        for lim in timed:
            lim.tick(t)
        done = ends_t[t]
        if done:
            busy_t -= done
            if lim_t is not None:
                lim_t.on_samples(ht, base_t[t - ht] + 1, done)
        done = ends_e[t]
        if done:
            busy_e -= done
            if lim_e is not None:  # admitted at t - he0 outside the slowdown and/or t - he1 in it
                s0, s1 = t - he0, t - he1
                batches = [(s0, he0)] if 0 <= s0 and not start <= s0 < stop else []
                if start <= s1 < stop:
                    batches.append((s1, he1))
                for s, hold in sorted(batches):  # in admission order
                    if adm_e[s]:
                        lim_e.on_samples(hold, base_e[s] + 1, adm_e[s])
        busy_rounds += busy_t + busy_e
        limit_t = cap if lim_t is None else lim_t.limit
        limit_e = cap if lim_e is None else lim_e.limit
        if trace:
            seen_limit[0].append(limit_t)
            seen_limit[1].append(limit_e)
            seen_busy[0].append(busy_t)
            seen_busy[1].append(busy_e)
            seen_base[0].append(0.0 if lim_t is None else lim_t.baseline)
            seen_base[1].append(0.0 if lim_e is None else lim_e.baseline)
        nt = n_tracking[t]
        ne = n_event[t]
        if nt <= limit_t - busy_t and ne <= limit_e - busy_e and nt + ne <= cap - busy_t - busy_e:
            at, ae = nt, ne
        else:  # someone is refused: walk the shuffled order, one arrival at a time
            at = ae = 0
            free = cap - busy_t - busy_e
            for flow in order[t]:
                if flow == TRACKING:
                    if busy_t + at >= limit_t:
                        by_limit[TRACKING] += 1
                        idle += free
                    elif not free:
                        by_pool[TRACKING] += 1
                        if lim_t is not None:
                            limit_t = lim_t.on_sample(0, busy_t + at + 1, True)
                    else:
                        at += 1
                        free -= 1
                elif busy_e + ae >= limit_e:
                    by_limit[EVENT] += 1
                    idle += free
                elif not free:
                    by_pool[EVENT] += 1
                    if lim_e is not None:
                        limit_e = lim_e.on_sample(0, busy_e + ae + 1, True)
                else:
                    ae += 1
                    free -= 1
        t_resp += at
        e_resp += ae
        t_drop += nt - at
        e_drop += ne - ae
        if trace:
            seen_drop[0].append(nt - at)
            seen_drop[1].append(ne - ae)
        he = he1 if start <= t < stop else he0
        if t + ht < rounds:
            ends_t[t + ht] += at
            adm_t[t], base_t[t] = at, busy_t
        if t + he < rounds:
            ends_e[t + he] += ae
            adm_e[t], base_e[t] = ae, busy_e
        busy_t += at
        busy_e += ae
    counters = Counters(t_resp, t_drop, e_resp, e_drop, idle, busy_rounds)
    limit_trace = None
    if trace:
        limit_trace = LimitTrace(
            *(tuple(x) for x in seen_limit),
            *(tuple(x) for x in seen_busy),
            *(tuple(x) for x in seen_base),
            *(tuple(x) for x in seen_drop),
        )
    return PoolRun(counters, (by_limit[0], by_limit[1]), (by_pool[0], by_pool[1]), limit_trace)
