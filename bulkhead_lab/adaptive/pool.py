"""Lesson 000's 32-slot pool with a flow's compartment sized by an adaptive limit instead of a split.

Same arrival stream (:func:`bulkhead_lab.pool.arrivals.stream`), same holds, same slowdown,
same round step: notebook 02's :class:`~bulkhead_lab.pool.rounds.Pool` and
:func:`~bulkhead_lab.pool.rounds.admit`, unchanged; notebook 05's :class:`GovernedPool` (the cell
between the saved-cells markers) extends them, and only who may take a slot changes.
Each flow is governed by ``None`` (no compartment: only the shared pool limits it), an
``int`` (a fixed compartment, as in the lesson's 24/8), a :class:`LimiterSpec` (an adaptive
limit from :mod:`bulkhead_lab.adaptive.limits` or :mod:`bulkhead_lab.adaptive.clocked`,
built fresh for the run) or a zero-argument callable returning a fresh limiter. Every flow
shares the one pool of ``params.total`` slots.

One round ``t``, exactly:

1. every timed limiter is told the time (``tick(t)``);
2. calls whose hold ends at ``t`` free their slots; each is a sample for its flow's
   limiter, ``on_sample(rtt=its hold in rounds, inflight=its flow's in-flight count when
   it was admitted, itself included)`` (what concurrency-limits passes), in admission
   order; an event call admitted from the failure round on holds ``slow`` rounds (until
   ``stop``, if given: lesson 000's ``Params`` has no knob for the slowdown's end, so
   :func:`run_pool` takes it, as :class:`bulkhead_lab.retries.storm.RetrySetup` does);
3. ``busy_rounds`` adds the busy slots, and a trace (if asked) records each flow's limit,
   in-flight count and limiter baseline at this moment (after the frees, before arrivals);
4. the round's arrivals, in the stream's shuffled order, each take a slot if its flow's
   in-flight count is under its limit *and* the pool has a free slot. Otherwise it is
   dropped, and counted in that flow's drops:

   - refused by its own limiter: no sample (concurrency-limits gives a rejected call no
     listener); ``idle`` adds the pool's free slots at that moment (slots left empty
     while a call was turned away, which for a fixed split is exactly the lesson's
     "idle slots in the other compartment");
   - refused by the full shared pool after its limiter let it through: a drop sample,
     ``on_sample(rtt=0, inflight=in-flight + 1, dropped=True)`` at once (the library's
     ``onDropped``, for a call the downstream resource refused; 0 says no round trip
     was measured). The new limit applies to the rest of the round's arrivals.
     Notebook 02's ``admit`` takes the slots; :meth:`GovernedPool.admit` then walks the
     arrivals after the one that took the last free slot and tells their limiters.

That is this module's reading of issue 13's "each refusal a drop": every refusal is a
drop in the counters; a refusal the limiter did not make is also a drop *sample*,
because that is the only refusal a real limiter hears of. Feeding a limiter its own
refusals would make AIMD back off because it refused, down to its minimum.

Calls still held at the last round never complete, so never sample (as in the lesson).
With a fixed split or no limiter at all, the six counters are
:func:`bulkhead_lab.pool.rounds.run`'s exactly; the comparison still takes those two rows from
the model itself. Deterministic: the stream is seeded, and a limiter's own randomness
(Vegas' probe jitter, Envoy's minRTT jitter) is seeded from ``params.seed`` and the flow.

Pure: no I/O, no plotting. :func:`pool_run` keeps runs in this module's memo.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Union

from bulkhead_lab.adaptive.clocked import EnvoyGradient, Windowed
from bulkhead_lab.adaptive.limits import AIMD, AdaptiveLimit, Gradient2, Vegas
from bulkhead_lab.memo import ROUNDS_BUDGET, Memo
from bulkhead_lab.pool import arrivals, rounds
from bulkhead_lab.pool.arrivals import EVENT, TRACKING, ArrivalStream, arrival_stream
from bulkhead_lab.pool.params import LESSON_SPLIT, Counters, Params, canonical, event_holds
from bulkhead_lab.pool.rounds import Pool, Slots
from bulkhead_lab.validation import check_choice, check_int

Algorithm = Literal["AIMD", "Vegas", "Gradient2", "Envoy"]
ALGORITHMS: dict[Algorithm, type[AdaptiveLimit]] = {
    "AIMD": AIMD,
    "Vegas": Vegas,
    "Gradient2": Gradient2,
    "Envoy": EnvoyGradient,
}


@dataclass(frozen=True)
class LimiterSpec:
    """Which adaptive limit governs a flow, and its settings: plain, hashable, comparable data."""

    algorithm: Algorithm
    settings: tuple[tuple[str, Any], ...] = ()
    windowed: bool = False  # wrap it in Netflix's WindowedLimit (one averaged sample per window)

    @classmethod
    def of(cls, algorithm: str, *, windowed: bool = False, **settings: Any) -> LimiterSpec:
        """The spec for ``algorithm`` (one of :data:`ALGORITHMS`, checked) with these settings."""
        name = check_choice("algorithm", algorithm, tuple(ALGORITHMS))
        return cls(name, tuple(sorted(settings.items())), windowed)

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


def model_spec(algorithm: Algorithm, flow: int, params: Params = Params(), **overrides: Any) -> LimiterSpec:
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


class Governed(Slots):
    """A flow's slots whose limit its limiter sets (no limiter: the limit stays as given).

    Besides :class:`~bulkhead_lab.pool.rounds.Slots`' own, it keeps what the samples need:
    ``done[t]``, the calls whose hold ends at round ``t`` as (hold, in-flight count just
    before they were admitted, how many), in admission order; and ``by_pool``, its arrivals
    the full pool refused (:meth:`GovernedPool.admit` counts them and tells the limiter).
    """

    def __init__(self, flow: int, limiter: AdaptiveLimit | None, limit: int, hold: int, rounds: int) -> None:
        super().__init__(limit if limiter is None else limiter.limit, hold, rounds)
        self.flow = flow
        self.limiter = limiter
        self.by_pool = 0  # refused by the full pool; the rest of ``dropped`` its own limit refused
        self.done: list[list[tuple[int, int, int]]] = [[] for _ in range(rounds)] if limiter else []

    def complete(self, t: int) -> None:
        """The calls whose hold ends at ``t`` are samples for the limiter, then its limit applies."""
        if self.limiter is not None:
            for hold, before, n in self.done[t]:
                self.limiter.on_samples(hold, before + 1, n)
            self.limit = self.limiter.limit

    def admitted(self, t: int, n: int) -> None:
        """``n`` calls were admitted at ``t`` (the slots are taken): note them for their samples."""
        if n and self.limiter is not None:
            try:  # (a call whose hold ends after the last round never completes: no sample)
                self.done[t + self.hold].append((self.hold, self.busy - n, n))
            except IndexError:
                pass


def _governed(control: FlowControl, params: Params, flow: int) -> Governed:
    """``flow``'s slots as ``control`` says: the pool only, a fixed compartment, or a limiter's."""
    hold = params.hold_tracking if flow == TRACKING else params.hold_event
    limiter, limit = None, params.total
    if isinstance(control, LimiterSpec):
        limiter = control.build(seed=params.seed * 2 + flow)
    elif callable(control):
        limiter = control()
        if not isinstance(limiter, AdaptiveLimit):
            raise TypeError(f"a flow's limiter factory must return an AdaptiveLimit (got {limiter!r})")
    elif control is not None:
        limit = check_int(f"{('tracking', 'event')[flow]} compartment", control, 1, params.total)
    return Governed(flow, limiter, limit, hold, params.rounds)


# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/05_adaptive_limits.ipynb, section 2. AIMD in code, and Gradient2 by hand
class GovernedPool(Pool):
    """Notebook 02's pool whose flows' limits their limiters set (:class:`Governed` slots)."""

    def __init__(self, total: int, flows: list[Governed]) -> None:
        super().__init__(total, [*flows])
        self.governed = flows  # the same slots, with their limiters

    def admit(self, t: int, order: tuple[int, ...], n_tracking: int, n_event: int) -> tuple[int, int]:
        """Notebook 02's ``admit``; then each arrival that found the whole pool full while its own limit
        would have let it in is a dropped call for its flow's limiter, in the shuffled order."""
        room = [slots.limit - slots.busy for slots in self.governed]
        free = self.total - sum(slots.busy for slots in self.governed)
        taken = rounds.admit(self, t, order, n_tracking, n_event)  # the slots: notebook 02's round
        if sum(taken) < free:  # the pool never filled: every refusal was a flow's own limit
            return taken
        i = 0
        while free:  # notebook 02's walk again, up to the arrival that took the last free slot
            f = order[i]
            i += 1
            if room[f] > 0:
                room[f] -= 1
                free -= 1
        for f in order[i:]:  # each later arrival found the whole pool full
            slots = self.governed[f]
            if slots.busy < slots.limit:  # its own limit would have let it in: the pool refused it
                slots.by_pool += 1
                if slots.limiter is not None:  # a dropped call; the new limit holds at once
                    slots.limit = slots.limiter.on_sample(0, slots.busy + 1, True)
        return taken


# <<< saved cells


class _Tracer:
    """The per-round series of a :class:`LimitTrace`, filled as the rounds go (in its fields' order)."""

    def __init__(self) -> None:
        self.rows: tuple[list[Any], ...] = tuple([] for _ in range(8))

    def before_arrivals(self, tracking: Governed, event: Governed) -> None:
        """Each flow's limit, in-flight count and limiter baseline after the frees."""
        rows = self.rows
        rows[0].append(tracking.limit)
        rows[1].append(event.limit)
        rows[2].append(tracking.busy)
        rows[3].append(event.busy)
        rows[4].append(0.0 if tracking.limiter is None else tracking.limiter.baseline)
        rows[5].append(0.0 if event.limiter is None else event.limiter.baseline)

    def after_arrivals(self, refused_tracking: int, refused_event: int) -> None:
        """Each flow's arrivals refused in the round."""
        self.rows[6].append(refused_tracking)
        self.rows[7].append(refused_event)

    def trace(self) -> LimitTrace:
        return LimitTrace(*(tuple(row) for row in self.rows))


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
    Each round is lesson 000's step (:meth:`~bulkhead_lab.pool.rounds.Pool.free`, then
    :meth:`GovernedPool.admit`: notebook 02's ``admit``, its pool refusals told to the limiters)
    with the limiters told the time and their samples before the arrivals, as the module
    docstring says.
    """
    if stream is None:
        stream = arrival_stream(params)
    stop = params.rounds if stop is None else stop
    flows = [_governed(tracking, params, TRACKING), _governed(event, params, EVENT)]
    pool = GovernedPool(params.total, flows)
    governed = [slots for slots in flows if slots.limiter is not None]  # the flows whose limit moves
    timed = [slots.limiter for slots in governed if slots.limiter is not None and slots.limiter.timed]
    holds = event_holds(params, stop)  # an event call's hold, by the round it is admitted in
    tracer = _Tracer() if trace else None
    order, n_tracking, n_event = stream.order, stream.tracking, stream.event
    for t in range(params.rounds):
        flows[EVENT].hold = holds[t]
        for limiter in timed:
            limiter.tick(t)
        for slots in governed:
            slots.complete(t)
        pool.free(t)
        if tracer is not None:
            tracer.before_arrivals(flows[TRACKING], flows[EVENT])
        nt, ne = n_tracking[t], n_event[t]
        taken = pool.admit(t, order[t], nt, ne)
        for slots in governed:
            slots.admitted(t, taken[slots.flow])
        if tracer is not None:
            tracer.after_arrivals(nt - taken[TRACKING], ne - taken[EVENT])
    t_drop, e_drop = flows[TRACKING].dropped, flows[EVENT].dropped
    counters = Counters(
        sum(n_tracking) - t_drop, t_drop, sum(n_event) - e_drop, e_drop, pool.idle, pool.busy_rounds
    )
    by_pool = (flows[TRACKING].by_pool, flows[EVENT].by_pool)
    by_limit = (t_drop - by_pool[0], e_drop - by_pool[1])
    return PoolRun(counters, by_limit, by_pool, None if tracer is None else tracer.trace())


# --- the memo the sliders replay from ------------------------------------------------------


def _weight(run: PoolRun) -> int:
    """A run kept weighs its trace: eight series of one value per round."""
    return 0 if run.trace is None else 8 * len(run.trace.event_limit)


_pool_runs: Memo[tuple, PoolRun] = Memo("pool_runs", 256, budget=ROUNDS_BUDGET, weigh=_weight)


def pool_run(
    params: Params,
    tracking: FlowControl = None,
    event: FlowControl = None,
    *,
    trace: bool = False,
    stop: int | None = None,
) -> PoolRun:
    """:func:`run_pool` on the memoised stream, kept when its limiters are settings (a
    :class:`LimiterSpec`, a size or None), not factories.

    ``stop`` ends the slowdown (``None``: it lasts to the end); a healthy day never reads it.
    """
    if stop is not None:
        check_int("stop", stop, params.start, params.rounds)
    key = canonical(params)
    if stop is not None and (key.mode == "healthy" or stop == key.rounds):
        stop = None  # the same run as the lesson's: one key
    compute = lambda: run_pool(key, tracking, event, stream=arrivals.stream(key), trace=trace, stop=stop)  # noqa: E731
    if not all(c is None or isinstance(c, (int, LimiterSpec)) for c in (tracking, event)):
        return compute()
    return _pool_runs.get((key, tracking, event, trace, stop), compute)
