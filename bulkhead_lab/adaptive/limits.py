"""Adaptive concurrency limits from Netflix concurrency-limits: AIMD, Vegas, Gradient2, ported from source.

Each limiter answers one question, "how many calls may be in flight now?", from what
completed calls report. It has no clock of its own: every time-based setting is in the
*caller's* units; the ones that need the time (Envoy's gradient controller, Netflix's
WindowedLimit, in :mod:`bulkhead_lab.adaptive.clocked`) are told it by
:meth:`AdaptiveLimit.tick`. Defaults are the sources', with times converted at the seeded
model's 100 rounds = 1 s (AIMD's 5 s timeout is 500).

The interface follows concurrency-limits' ``Limit.onSample(startTime, rtt, inflight,
didDrop)``: ``on_sample(rtt, inflight, dropped=False)`` returns the new limit, where
``inflight`` is what the library passes, the caller's in-flight count when the call *was
admitted*, itself included (``AbstractLimiter.createListener``). A call the limiter itself
refused is never a sample (the library gives it no listener). A drop with no measured
round trip (a call refused at once downstream) is passed as ``rtt=0, dropped=True``; each
class says what it does with one. ``on_samples`` takes a run of successes of one round
trip at once (the model's hot path; same arithmetic, not re-checked).

Sources read, Netflix/concurrency-limits ``concurrency-limits-core/src/main/java/com/netflix/
concurrency/limits/limit/``: ``AIMDLimit.java`` (commit 784c960), ``VegasLimit.java`` (commit
a127eb4, on ``functions/Log10RootIntFunction.java``), ``Gradient2Limit.java`` (commit f2528de)
and ``measurement/ExpAvgMeasurement.java`` (commit 11c7060, with its warm-up window); each rule
is the same at 78a74b9, the commit whose tests ``tests/test_adaptive_upstream.py`` replays. Each
class states its formula and defaults as read there, and under *Departures* every deliberate
difference, naming its file and commit.

Pure: no I/O, no plotting; randomness only from a seeded :class:`random.Random`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from bulkhead_lab.validation import check_int, check_real

ROUNDS_PER_SECOND = 100  # the seeded model's cycle: the unit the time defaults are converted at


class AdaptiveLimit:
    """What every limiter shares: bounds, the current limit, samples, and the caller's clock."""

    timed = False  # True when the limiter needs tick(now) before each moment's samples

    def __init__(self, initial: int, min_limit: int, max_limit: int) -> None:
        self.min_limit, self.max_limit, self._limit = check_bounds(initial, min_limit, max_limit)

    @property
    def limit(self) -> int:
        """The current limit: admit a call only while fewer than this many are in flight."""
        return self._limit

    @property
    def baseline(self) -> float:
        """The reference round trip the limiter compares samples with (0.0: none yet, or none kept)."""
        return 0.0

    def on_sample(self, rtt: float, inflight: int, dropped: bool = False) -> int:
        """Learn from one finished call; return the new limit."""
        raise NotImplementedError

    def on_samples(self, rtt: float, first_inflight: int, count: int) -> int:
        """``count`` successful calls of one round trip, admitted at in-flight first, first + 1, ..."""
        for inflight in range(first_inflight, first_inflight + count):
            self.on_sample(rtt, inflight)
        return self.limit

    def tick(self, now: float) -> None:
        """The caller's clock reads ``now`` (fire what is due); a no-op unless ``timed``."""


def check_bounds(initial: int, min_limit: int, max_limit: int) -> tuple[int, int, int]:
    """(min, max, initial) as the sources take them: a floor of 0 or more, a ceiling at or above it (and
    at least 1), and an initial limit of 0 or more *anywhere*, as concurrency-limits' builders accept one
    outside [min, max] (logging a warning) and start there; the first sample's clamp brings it in."""
    low = check_int("min_limit", min_limit, 0)
    return low, check_int("max_limit", max_limit, max(low, 1)), check_int("initial", initial, 0)


def check_rtt(rtt: float, dropped: bool) -> float:
    """``rtt`` if it is a round trip a sample may carry (a drop's may be 0, for none measured)."""
    # A success must carry its round trip; a drop may carry none (0). The common case first: cheap.
    if type(rtt) in (int, float) and (0 < rtt < math.inf or (dropped and rtt == 0)):
        return rtt
    return check_real("rtt", rtt, 0.0, math.inf, low_open=not dropped)


# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/05_adaptive_limits.ipynb, section 2. AIMD in code, and Gradient2 by hand
class AIMDLimit(AdaptiveLimit):
    """AIMD's update, as Netflix concurrency-limits' AIMDLimit writes it: one finished call at a time."""

    def __init__(self, initial=20, min_limit=20, max_limit=200, backoff_ratio=0.9, timeout=500.0):
        self._limit = initial  # the limit now: `limit` reads it
        self.min_limit, self.max_limit = min_limit, max_limit
        self.backoff_ratio, self.timeout = backoff_ratio, timeout

    def on_sample(self, rtt: float, inflight: int, dropped: bool = False) -> int:
        limit = self._limit
        if dropped or rtt > self.timeout:  # a loss: back off, multiplicatively
            limit = int(limit * self.backoff_ratio)
        elif inflight * 2 >= limit:  # a success while at least half the limit is in use: one more
            limit = limit + 1
        self._limit = min(self.max_limit, max(self.min_limit, limit))  # never past the bounds
        return self._limit


# <<< saved cells


class AIMD(AIMDLimit):
    """Loss-based: +1 while busy, x backoff_ratio on a drop or a round trip over ``timeout``.

    Netflix concurrency-limits ``AIMDLimit`` (commit 784c960; defaults initial 20, min 20,
    max 200, backoffRatio 0.9 in [0.5, 1), timeout 5 s = 500 rounds here). The update is
    :class:`AIMDLimit`'s, notebook 05's ``#@save`` cell; this class adds what the source's
    builder checks (the ratio's range, a positive timeout, the bounds of :func:`check_bounds`:
    ``AIMD(initial=10)`` starts at 10 below its floor of 20, as AIMDLimitTest.testDefault
    does, and ``min_limit=0`` is taken, as in AIMDLimitTest.successOverflow), the check that
    a sample carries a round trip, and :meth:`on_samples`, the same rule over a run of
    successes for the model's hot loop.

    It reads no latency below the timeout: a slowdown that stays under it is invisible
    except through the drops it causes. A drop with no round trip backs off like any drop.

    Departures from ``AIMDLimit.java`` (commit 784c960): a sample's round trip is checked
    (:func:`check_rtt`: a success needs one over 0; the source takes any ``long``); an initial
    limit outside [min, max] logs no warning (the source logs one, and starts there as here).
    """

    def __init__(
        self,
        initial: int = 20,
        min_limit: int = 20,
        max_limit: int = 200,
        *,
        backoff_ratio: float = 0.9,
        timeout: float = 5 * ROUNDS_PER_SECOND,
    ) -> None:
        low, high, start = check_bounds(initial, min_limit, max_limit)
        ratio = check_real("backoff_ratio", backoff_ratio, 0.5, 1.0)
        if ratio == 1.0:
            raise ValueError(f"backoff_ratio must be a number >= 0.5 and < 1 (got {backoff_ratio!r})")
        wait = check_real("timeout", timeout, 0.0, math.inf, low_open=True)
        super().__init__(start, low, high, ratio, wait)

    def on_sample(self, rtt: float, inflight: int, dropped: bool = False) -> int:
        check_rtt(rtt, dropped)
        return super().on_sample(rtt, inflight, dropped)

    def on_samples(self, rtt: float, first_inflight: int, count: int) -> int:
        # AIMDLimit.on_sample over `count` successes, inlined for the model's hot loop (same arithmetic;
        # tests/test_adaptive.py pins it sample by sample against the cell's rule).
        limit, low, high = self._limit, self.min_limit, self.max_limit
        if rtt > self.timeout:
            for _ in range(count):
                limit = min(high, max(low, int(limit * self.backoff_ratio)))
        else:
            for inflight in range(first_inflight, first_inflight + count):
                if inflight * 2 >= limit:
                    limit = min(high, max(low, limit + 1))
                else:
                    limit = min(high, max(low, limit))
        self._limit = limit
        return limit


_LOG10_TABLE = [1] + [max(1, int(math.log10(i))) for i in range(1, 1000)]


def _log10_root(limit: int) -> int:
    # Log10RootIntFunction: max(1, (int) log10(limit)) below 1000 (a lookup table), (int) log10 above.
    return _LOG10_TABLE[limit] if 0 <= limit < 1000 else (int(math.log10(limit)) if limit > 0 else 1)


class SmoothedLimit(AdaptiveLimit):
    """A limiter that keeps an unrounded estimate and rounds it down to its limit (Vegas, Gradient2)."""

    def __init__(self, initial: int, min_limit: int, max_limit: int) -> None:
        super().__init__(initial, min_limit, max_limit)
        self._estimate = float(initial)

    @property
    def estimate(self) -> float:
        """The unrounded limit the source keeps (``estimatedLimit``)."""
        return self._estimate


class Vegas(SmoothedLimit):
    """Delay-based, TCP Vegas: estimate the queue from the no-load round trip, keep it in [alpha, beta].

    Netflix concurrency-limits ``VegasLimit`` (commit a127eb4, the ``Log10RootIntFunction`` form;
    defaults initial 20, maxConcurrency 1000, smoothing 1.0, probeMultiplier 30, and with
    L = (int) limit and log = max(1, (int) log10 L): alpha 3 log, beta 6 log, threshold log,
    increase L + log, decrease L - log)::

        probe every jitter * probeMultiplier * limit samples, jitter uniform in [0.5, 1):
            rtt_noload = rtt (and nothing else that sample)
        if rtt_noload unset or rtt < rtt_noload: rtt_noload = rtt (and nothing else)
        queue = ceil(limit * (1 - rtt_noload / rtt))
        drop -> decrease; inflight * 2 < limit -> unchanged (app-limited);
        queue <= threshold -> limit + beta (slow start); queue < alpha -> increase;
        queue > beta -> decrease; else unchanged
        limit = (1 - smoothing) * limit + smoothing * clamp(new, 1, maxConcurrency)

    Departures from ``VegasLimit.java`` (commit a127eb4), each deliberate: ``min_limit``
    replaces the source's fixed floor of 1 (default 1, the same); the probe jitter comes
    from ``random.Random(seed)``, not ThreadLocalRandom; ``slow_start=False`` removes the
    ``queue <= threshold`` branch that concurrency-limits PR #44 ("TCP slow-start like
    behavior") added, restoring growth by ``increase`` only (issue #35, "VegasLimit
    without slow start is unusable"); a drop with no round trip (rtt 0) goes straight to
    ``decrease`` (the source requires rtt > 0). ``decrease`` is the source's
    ``decreaseFunction`` (None: L - log); alpha, beta and the increase keep their log10
    forms (the source's builder also takes other functions).
    """

    def __init__(
        self,
        initial: int = 20,
        min_limit: int = 1,
        max_limit: int = 1000,
        *,
        smoothing: float = 1.0,
        probe_multiplier: int = 30,
        slow_start: bool = True,
        seed: int = 1,
        decrease: Callable[[float], float] | None = None,
    ) -> None:
        super().__init__(initial, min_limit, max_limit)
        self.decrease = decrease
        self.smoothing = check_real("smoothing", smoothing, 0.0, 1.0, low_open=True)
        self.probe_multiplier = check_int("probe_multiplier", probe_multiplier, 1)
        self.slow_start = bool(slow_start)
        self._rtt_noload = 0.0
        self._probe_count = 0
        self._random = random.Random(seed)
        self._probe_jitter = self._jitter()

    def _jitter(self) -> float:
        return 0.5 + 0.5 * self._random.random()

    @property
    def baseline(self) -> float:
        return self._rtt_noload

    def on_sample(self, rtt: float, inflight: int, dropped: bool = False) -> int:
        check_rtt(rtt, dropped)
        if rtt > 0:
            self._probe_count += 1
            if self._probe_jitter * self.probe_multiplier * self._estimate <= self._probe_count:
                self._probe_jitter = self._jitter()
                self._probe_count = 0
                self._rtt_noload = rtt
                return self._limit
            if self._rtt_noload == 0 or rtt < self._rtt_noload:
                self._rtt_noload = rtt
                return self._limit
        return self._update(rtt, inflight, dropped)

    def _update(self, rtt: float, inflight: int, dropped: bool) -> int:
        estimate = self._estimate
        whole = int(estimate)
        log = _log10_root(whole)
        decreased = estimate - log if self.decrease is None else self.decrease(estimate)
        if dropped:
            new = decreased
        elif inflight * 2 < estimate:
            return self._limit
        else:
            queue = math.ceil(estimate * (1 - self._rtt_noload / rtt))
            if self.slow_start and queue <= log:
                new = estimate + 6 * log
            elif queue < 3 * log:
                new = estimate + log
            elif queue > 6 * log:
                new = decreased
            else:
                return self._limit
        new = max(self.min_limit, min(self.max_limit, new))
        self._estimate = (1 - self.smoothing) * estimate + self.smoothing * new
        self._limit = int(self._estimate)
        return self._limit

    def on_samples(self, rtt: float, first_inflight: int, count: int) -> int:
        # The per-sample rule above, inlined for the model's hot loop (same arithmetic, same order).
        if self.decrease is not None:
            return super().on_samples(rtt, first_inflight, count)
        estimate, noload, probes, jitter = (
            self._estimate,
            self._rtt_noload,
            self._probe_count,
            self._probe_jitter,
        )
        smoothing, low, high, multiplier = (
            self.smoothing,
            self.min_limit,
            self.max_limit,
            self.probe_multiplier,
        )
        slow_start, table, ceil = self.slow_start, _LOG10_TABLE, math.ceil
        for inflight in range(first_inflight, first_inflight + count):
            probes += 1
            if jitter * multiplier * estimate <= probes:
                jitter, probes, noload = self._jitter(), 0, rtt
                continue
            if noload == 0 or rtt < noload:
                noload = rtt
                continue
            if inflight * 2 < estimate:
                continue
            log = table[int(estimate)] if estimate < 1000 else _log10_root(int(estimate))
            queue = ceil(estimate * (1 - noload / rtt))
            if slow_start and queue <= log:
                new = estimate + 6 * log
            elif queue < 3 * log:
                new = estimate + log
            elif queue > 6 * log:
                new = estimate - log
            else:
                continue
            new = low if new < low else (high if new > high else new)
            estimate = (1 - smoothing) * estimate + smoothing * new
        self._estimate, self._rtt_noload, self._probe_count, self._probe_jitter = (
            estimate,
            noload,
            probes,
            jitter,
        )
        self._limit = int(estimate)
        return self._limit


class Gradient2(SmoothedLimit):
    """Delay-based: compare each round trip with a long exponential average of them.

    Netflix concurrency-limits ``Gradient2Limit`` (commit f2528de; defaults initial 20,
    min 20, max 200, smoothing 0.2, queueSize 4, longWindow 600 samples, rttTolerance 1.5;
    the long average is ``ExpAvgMeasurement(longWindow, 10)``: the plain mean of the first
    10 samples, then factor 2 / (longWindow + 1))::

        long = longRtt.add(rtt)
        if long / rtt > 2: longRtt.value *= 0.95      (the local ``long`` keeps its value)
        if inflight < limit / 2: unchanged            (app-limited)
        gradient = clamp(tolerance * long / rtt, 0.5, 1.0)
        new = limit * gradient + queueSize
        limit = clamp(limit * (1 - smoothing) + new * smoothing, minLimit, maxLimit)

    Because the long average follows every sample, a slowdown that lasts becomes the new
    baseline and the limit climbs back (the drift users report, PR #88 and issue #137). A gradient
    under 1 shrinks the limit only above :meth:`fixed_point`, ``queueSize / (1 - g)`` (8 at the
    floor); at 1 each update adds ``smoothing * queueSize`` up to ``maxLimit``.

    Departures from ``Gradient2Limit.java`` (commit f2528de): the source has no drop branch
    (``didDrop`` is unused; issue #176) and a drop still feeds its round trip to the average
    there; a drop here with no round trip (rtt 0) carries nothing to average, so it is no
    sample. ``queue_size`` is a constant (the source also takes a function of the limit).
    """

    def __init__(
        self,
        initial: int = 20,
        min_limit: int = 20,
        max_limit: int = 200,
        *,
        smoothing: float = 0.2,
        queue_size: float = 4,
        long_window: int = 600,
        warmup: int = 10,
        tolerance: float = 1.5,
    ) -> None:
        super().__init__(initial, min_limit, max_limit)
        self.smoothing = check_real("smoothing", smoothing, 0.0, 1.0, low_open=True)
        self.queue_size = check_real("queue_size", queue_size, 0.0, math.inf)
        self.long_window = check_int("long_window", long_window, 1)
        self.warmup = check_int("warmup", warmup, 1)
        self.tolerance = check_real("tolerance", tolerance, 1.0, math.inf)
        self._long = 0.0
        self._sum = 0.0
        self._count = 0

    @property
    def baseline(self) -> float:
        return self._long

    def on_sample(self, rtt: float, inflight: int, dropped: bool = False) -> int:
        if check_rtt(rtt, dropped) == 0:
            return self._limit
        if self._count < self.warmup:
            self._count += 1
            self._sum += rtt
            long = self._long = self._sum / self._count
        else:
            factor = 2.0 / (self.long_window + 1)
            long = self._long = self._long * (1 - factor) + rtt * factor
        if long / rtt > 2:
            self._long *= 0.95
        estimate = self._estimate
        if inflight < estimate / 2:
            return self._limit
        gradient = max(0.5, min(1.0, self.tolerance * long / rtt))
        self._estimate = self.next_estimate(estimate, gradient)
        self._limit = int(self._estimate)
        return self._limit

    def next_estimate(self, estimate: float, gradient: float) -> float:
        """One update at a (clamped) ``gradient``: the source's three lines, within the bounds."""
        new = estimate * (1 - self.smoothing) + (estimate * gradient + self.queue_size) * self.smoothing
        return max(self.min_limit, min(self.max_limit, new))

    def fixed_point(self, gradient: float) -> float:
        """The estimate an update at ``gradient`` keeps (an update shrinks one above it, grows one below)."""
        g = check_real("gradient", gradient, 0.0, math.inf)
        return math.inf if g >= 1 else self.queue_size / (1 - g)

    def on_samples(self, rtt: float, first_inflight: int, count: int) -> int:
        # The per-sample rule above, inlined for the model's hot loop (same arithmetic, same order).
        if self._count < self.warmup:
            return super().on_samples(rtt, first_inflight, count)
        factor = 2.0 / (self.long_window + 1)
        keep, add = 1 - factor, rtt * factor
        long, estimate = self._long, self._estimate
        smoothing, queue, tolerance = self.smoothing, self.queue_size, self.tolerance
        low, high = self.min_limit, self.max_limit
        for inflight in range(first_inflight, first_inflight + count):
            current = long = long * keep + add
            if current / rtt > 2:
                long *= 0.95
            if inflight < estimate / 2:
                continue
            gradient = tolerance * current / rtt
            gradient = 0.5 if gradient < 0.5 else (1.0 if gradient > 1.0 else gradient)
            new = estimate * (1 - smoothing) + (estimate * gradient + queue) * smoothing
            estimate = low if new < low else (high if new > high else new)
        self._long, self._estimate = long, estimate
        self._limit = int(estimate)
        return self._limit
