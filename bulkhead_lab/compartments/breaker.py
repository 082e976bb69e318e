"""A bulkhead and a breaker together on the event compartment, in lesson 000's seeded pool.

The bulkhead bounds the damage from the first slow call: the event flow holds at most its
compartment, whatever happens. The breaker stops the calls, but only once it has seen enough:
it judges each event call when it ends (a call that held its slot longer than ``slow_call``
rounds failed, resilience4j's *slow call*), keeps the last ``window`` outcomes, and opens when
their failed share reaches ``ratio`` (lesson 000's breaker lesson used 0.50). Open, it refuses
every event call at once, taking no slot, for ``open_rounds``; then, half-open, it lets
``probes`` calls through and closes again if fewer than ``ratio`` of them fail, else reopens.

:class:`Breaker` is an admission rule for :func:`bulkhead_lab.adaptive.pool.run_pool`: a
limit on the event flow's calls in flight that is its compartment while closed, 0 while open
and ``probes`` while half-open. The pool's loop is the one the adaptive limits run on; only
the rule is new. Lesson 000's holds are fixed (6 rounds healthy, 22 slow), so a slow call is
never a healthy one: this breaker never opens on a healthy day.

Pure: the seeded stream and the pool's rounds. :func:`day_runs` (notebook 08's table and slider)
and :func:`blind_threshold` (its exercise 4) are kept, so a slider moved back replays nothing.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Literal

from bulkhead_lab.adaptive.limits import AdaptiveLimit
from bulkhead_lab.adaptive.pool import LimitTrace, run_pool
from bulkhead_lab.memo import Memo
from bulkhead_lab.pool.arrivals import ArrivalStream, arrival_stream, stream
from bulkhead_lab.pool.params import LESSON_SPLIT, Counters, Params

State = Literal["closed", "open", "half-open"]
Layout = Literal["single pool", "single pool + breaker", "24/8", "24/8 + breaker"]
LAYOUTS: tuple[Layout, ...] = ("single pool", "single pool + breaker", "24/8", "24/8 + breaker")
LESSON_RATIO = 0.50  # lesson 000 on the breaker lesson: "220 slot-rounds under ratio-0.50"
LESSON_SLOT_ROUNDS = 220
LESSON_DETECTION = 9  # "the breaker's nine-round detection window"


@dataclass(frozen=True)
class BreakerSettings:
    """When the breaker opens, and for how long."""

    ratio: float = LESSON_RATIO  # failed share of the window that opens it
    window: int = 10  # finished calls it judges
    slow_call: int = 10  # rounds: a call that held its slot longer failed
    open_rounds: int = 500  # rounds it refuses everything before probing (5 s)
    probes: int = 3  # calls let through half-open


# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/08_choosing_compartments.ipynb, section 4. A bulkhead and a breaker together
class Breaker(AdaptiveLimit):
    """A count-based breaker as a limit on one flow's calls in flight (see the module's docstring)."""

    timed = True

    def __init__(self, settings: BreakerSettings, compartment: int) -> None:
        super().__init__(compartment, 1, compartment)
        self.settings = settings
        self.state: State = "closed"
        self.outcomes: deque[bool] = deque(maxlen=settings.window)  # True: the call failed
        self.probed: list[bool] = []
        self.now = 0
        self.opened_at = 0

    @property
    def limit(self) -> int:
        if self.state == "open":
            return 0
        return self.settings.probes if self.state == "half-open" else self._limit

    def tick(self, now: float) -> None:
        self.now = int(now)
        if self.state == "open" and self.now >= self.opened_at + self.settings.open_rounds:
            self.state, self.probed = "half-open", []

    def _open(self) -> None:
        self.state, self.opened_at = "open", self.now
        self.outcomes.clear()

    def on_sample(self, rtt: float, inflight: int, dropped: bool = False) -> int:
        if dropped or self.state == "open":  # a full pool is not the dependency's failure
            return self.limit
        failed = rtt > self.settings.slow_call
        if self.state == "closed":
            self.outcomes.append(failed)
            full = len(self.outcomes) == self.settings.window
            if full and sum(self.outcomes) >= self.settings.ratio * self.settings.window:
                self._open()
        else:
            self.probed.append(failed)
            if len(self.probed) >= self.settings.probes:
                if sum(self.probed) >= self.settings.ratio * len(self.probed):
                    self._open()
                else:
                    self.state = "closed"
        return self.limit


# <<< saved cells


@dataclass(frozen=True)
class BreakerRun:
    """One layout on one day: the counters, and what the broken dependency drew from the failure on."""

    layout: Layout
    counters: Counters
    reached: int  # event calls admitted from the failure round on (each one reached the dependency)
    detected: int | None  # rounds from the failure to the breaker's first open (None: it never opened)
    before_open: int  # event slot-rounds from the failure until the breaker opened (all of them if never)
    tracking_before_open: int  # tracking calls dropped in that time: the damage detection lets through
    opens: int  # times the breaker opened
    event_busy: tuple[int, ...]  # the event flow's busy slots at the start of every round
    shut: tuple[int, ...]  # the rounds the breaker was open (refusing every event call)


def run_layout(
    layout: Layout,
    params: Params = Params(mode="slowdown"),
    settings: BreakerSettings = BreakerSettings(),
    *,
    stream: ArrivalStream | None = None,
) -> BreakerRun:
    """``layout`` on ``params``' day (``params.split`` is not read: the layout says the split)."""
    split = "24/8" in layout
    compartment = params.total - LESSON_SPLIT if split else params.total
    tracking = LESSON_SPLIT if split else None
    if "breaker" in layout:
        event: object = lambda: Breaker(settings, compartment)  # noqa: E731
    else:
        event = compartment if split else None
    stream = arrival_stream(params) if stream is None else stream
    run = run_pool(params, tracking, event, stream=stream, trace=True)  # type: ignore[arg-type]
    assert run.trace is not None
    return _measured(layout, params, run.counters, run.trace, stream)


def _measured(
    layout: Layout, params: Params, counters: Counters, trace: LimitTrace, stream: ArrivalStream
) -> BreakerRun:
    start, end = params.start, params.rounds
    busy = trace.event_inflight
    reached = sum(stream.event[start:]) - sum(trace.event_dropped[start:])
    shut = [t for t in range(start, end) if trace.event_limit[t] == 0]
    opens = sum(1 for t in shut if trace.event_limit[t - 1] != 0)
    first = end if not shut else shut[0]
    return BreakerRun(
        layout,
        counters,
        reached,
        detected=None if not shut else first - start,
        before_open=sum(busy[start:first]),
        tracking_before_open=sum(trace.tracking_dropped[start:first]),
        opens=opens,
        event_busy=busy,
        shut=tuple(shut),
    )


_day_runs: Memo[tuple[BreakerSettings, int], tuple[BreakerRun, ...]] = Memo("08 breaker runs", 32)


def day_runs(settings: BreakerSettings = BreakerSettings(), slow: int = 22) -> tuple[BreakerRun, ...]:
    """Every layout on the slowdown day whose slow calls hold ``slow`` rounds (kept)."""
    return _day_runs.get((settings, slow), lambda: _day_runs_of(settings, slow))


def _day_runs_of(settings: BreakerSettings, slow: int) -> tuple[BreakerRun, ...]:
    day = Params(mode="slowdown", slow=slow)
    arrivals = stream(day)
    return tuple(run_layout(layout, day, settings, stream=arrivals) for layout in LAYOUTS)


_blind: Memo[Layout, int] = Memo("08 blind threshold", 4)


def blind_threshold(layout: Layout = "single pool + breaker") -> int:
    """The smallest ``slow_call`` (rounds) at which ``layout``'s breaker never opens on the slowdown day."""
    return _blind.get(layout, lambda: _blind_threshold(layout))


def _blind_threshold(layout: Layout) -> int:
    day = Params(mode="slowdown")
    arrivals = stream(day)
    blind = (
        t
        for t in range(1, 60)
        if run_layout(layout, day, BreakerSettings(slow_call=t), stream=arrivals).opens == 0
    )
    return next(blind)


def judged(settings: BreakerSettings, slow: int, hold: int = Params().hold_event) -> dict[str, str]:
    """What the breaker judges, in words: when it opens, and which event calls ``settings.slow_call``
    counts slow, where an event call holds its slot ``hold`` rounds, or ``slow`` in the slowdown. Only
    a threshold crossing one of the two holds changes what it counts (notebook 08's slider)."""
    ratio, window, t = settings.ratio, settings.window, settings.slow_call
    need = next(n for n in range(window + 1) if n >= ratio * window)  # sum(outcomes) >= ratio x window
    short, long_ = sorted((hold, slow))
    if t < short:
        counted = f"every event call: the {short}- and the {long_}-round calls held longer than {t}"
    elif t < long_:
        counted = f"only the {long_}-round calls (held longer than {t}), not the {short}-round ones"
    else:
        counted = f"none: no event call holds its slot longer than {t} rounds, so the breaker is blind"
    return {
        "opens when": f"{need} of its last {window} event calls failed (ratio {ratio:g} of {window})",
        f"a slow call of {t} rounds counts": counted,
        "why": f"event calls take {short} or {long_} rounds: any threshold from {short} to {long_ - 1} "
        f"counts the {long_}-round calls slow, and from {long_} on none",
    }
