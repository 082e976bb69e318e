"""The adaptive limits that read the caller's clock: Envoy's gradient controller, Netflix's WindowedLimit.

Both keep time-based state (Envoy's sample and minRTT windows, the window a WindowedLimit
collects), but like every limiter in :mod:`bulkhead_lab.adaptive.limits` they have no clock of
their own: the caller says what time it is with ``tick(now)`` before the samples of that
moment, in its own units. Their time defaults are the sources' converted at the seeded
model's 100 rounds = 1 s.

Sources read: envoyproxy/envoy ``source/extensions/filters/http/adaptive_concurrency/
controller/gradient_controller.cc`` (commit c35f67f), the v3 ``adaptive_concurrency.proto``
(defaults: sample_aggregate_percentile 50, jitter 15 %, request_count 50, min_concurrency 3,
buffer 25 %, max_concurrency_limit 1000) and the filter's docs page; Netflix/concurrency-limits
``limit/WindowedLimit.java`` (commit 53eee34) and ``limit/window/ImmutableAverageSampleWindow.java``
(commit e3e1039), the same at 78a74b9. Each class lists its departures, naming its file and commit.

Pure: no I/O, no plotting; randomness only from a seeded :class:`random.Random`.
"""

from __future__ import annotations

import math
import random

from bulkhead_lab.adaptive.limits import ROUNDS_PER_SECOND, AdaptiveLimit, check_rtt
from bulkhead_lab.validation import check_int, check_real


def quantile(samples: list[float], q: float) -> float:
    """The nearest-rank quantile: the smallest sample with at least ``q`` of them at or below it."""
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


class EnvoyGradient(AdaptiveLimit):
    """Envoy's adaptive concurrency gradient controller: minRTT measured, sampleRTT per window.

    envoyproxy/envoy ``gradient_controller.cc`` (commit c35f67f) with the v3 proto's
    defaults; ``update_interval`` (concurrency_update_interval) and ``min_rtt_interval``
    have none there, so the docs' example is used: 0.1 s = 10 rounds and 60 s = 6000::

        minRTT window: limit pinned to min_concurrency until request_count samples of calls
            sent since the window opened, then minRTT = their percentile, the limit before
            the window is restored, and the next window opens after interval + jitter
        every update_interval outside a window, if any samples:
            sampleRTT = percentile(samples); g = clamp((minRTT + minRTT * buffer) / sampleRTT, 0.5, 2)
            limit = clamp((uint32)(g * limit + sqrt(g * limit)), min_concurrency, max)
        five windows in a row at min_concurrency open a minRTT window at once

    A gradient under 1 does not by itself shrink the limit: ``g * L + sqrt(g * L)`` is below L
    only while L is above :meth:`fixed_point`, ``g / (1 - g) ** 2`` (2 at the floor of 0.5, 90
    at 0.9); below it the limit holds or grows at a gradient under 1 (:meth:`next_limit`).

    The caller's clock comes in by :meth:`tick`; a sample's send time is ``now - rtt``.
    Departures from ``gradient_controller.cc`` (commit c35f67f): the percentile is exact
    nearest-rank over the window's samples (Envoy uses circllhist's approximate quantile);
    jitter draws from ``random.Random(seed)``; ``initial`` is the limit restored after the
    first minRTT window (Envoy starts at min_concurrency, which ``initial=None`` keeps).
    Envoy has no drop signal (a refused call never records latency) and no app-limited
    guard: ``dropped`` samples and ``inflight`` are ignored, so an idle flow's limit grows
    while latency stays low.
    """

    timed = True

    def __init__(
        self,
        initial: int | None = None,
        min_limit: int = 3,
        max_limit: int = 1000,
        *,
        percentile: float = 0.5,
        buffer: float = 0.25,
        request_count: int = 50,
        jitter: float = 0.15,
        update_interval: int = ROUNDS_PER_SECOND // 10,
        min_rtt_interval: int = 60 * ROUNDS_PER_SECOND,
        seed: int = 1,
        start: int = 0,
    ) -> None:
        super().__init__(min_limit if initial is None else initial, min_limit, max_limit)
        self.percentile = check_real("percentile", percentile, 0.0, 1.0)
        self.buffer = check_real("buffer", buffer, 0.0, 1.0)
        self.request_count = check_int("request_count", request_count, 1)
        self.jitter = check_real("jitter", jitter, 0.0, 1.0)
        self.update_interval = check_int("update_interval", update_interval, 1)
        self.min_rtt_interval = check_int("min_rtt_interval", min_rtt_interval, 1)
        self._random = random.Random(seed)
        self._now = float(start)
        self._samples: list[float] = []
        self._min_rtt = 0.0
        self._deferred = 0  # the limit to restore after a minRTT window; 0: not in one
        self._epoch = float(start)
        self._at_min = 0  # consecutive windows that set the limit to min_concurrency
        self._next_reset: float | None = None
        self._next_min_rtt: float | None = None
        self._enter_min_rtt_window()
        self._next_reset = start + self.update_interval

    @property
    def baseline(self) -> float:
        return self._min_rtt

    @property
    def measuring_min_rtt(self) -> bool:
        """True while a minRTT window pins the limit."""
        return self._deferred > 0

    def _set_limit(self, new: int) -> None:
        old, self._limit = self._limit, new
        if not self.measuring_min_rtt and old == self.min_limit and new == self.min_limit:
            self._at_min += 1
        else:
            self._at_min = 0
        if self._at_min >= 5:
            self._next_min_rtt = self._now  # enableTimer(0): fires at once

    def _enter_min_rtt_window(self) -> None:
        if self.measuring_min_rtt:
            return
        self._deferred = self._limit
        self._set_limit(self.min_limit)
        self._samples.clear()
        self._epoch = self._now

    def _reset_sample_window(self) -> None:
        if self.measuring_min_rtt:
            self._next_reset = None  # re-armed when the minRTT window closes
            return
        if self._samples:
            sample_rtt = quantile(self._samples, self.percentile)
            self._samples.clear()
            gradient = max(0.5, min(2.0, (self._min_rtt + self._min_rtt * self.buffer) / sample_rtt))
            self._set_limit(self.next_limit(self._limit, gradient))
        self._next_reset = self._now + self.update_interval

    def next_limit(self, limit: int, gradient: float) -> int:
        """One update at ``gradient`` (already clamped): ``(uint32)(g L + sqrt(g L))`` within
        [min_concurrency, max], as ``calculateNewLimit`` computes it."""
        scaled = limit * gradient
        return max(self.min_limit, min(self.max_limit, int(scaled + math.sqrt(scaled))))

    def fixed_point(self, gradient: float) -> float:
        """The limit an update at ``gradient`` leaves where it is, before the bounds: ``g / (1 - g) ** 2``
        (where ``g L + sqrt(g L) = L``); ``math.inf`` at a gradient of 1 or more. A whole limit above it
        shrinks; one at or below it stays or grows (grows once ``g L + sqrt(g L)`` reaches L + 1)."""
        g = check_real("gradient", gradient, 0.0, math.inf)
        return math.inf if g >= 1 else g / (1 - g) ** 2

    def tick(self, now: float) -> None:
        # Fire every timer due by `now`, earliest first (a tie: the sample window first).
        while True:
            due = [d for d in (self._next_reset, self._next_min_rtt) if d is not None and d <= now]
            if not due:
                break
            self._now = min(due)
            if self._next_reset is not None and self._next_reset == self._now:
                self._reset_sample_window()
            else:
                self._next_min_rtt = None
                self._enter_min_rtt_window()
        self._now = now

    def on_sample(self, rtt: float, inflight: int, dropped: bool = False) -> int:
        check_rtt(rtt, dropped)
        if dropped or self._now - rtt < self._epoch:
            return self._limit
        self._samples.append(rtt)
        if self.measuring_min_rtt and len(self._samples) >= self.request_count:
            self._min_rtt = quantile(self._samples, self.percentile)
            self._samples.clear()
            self._set_limit(self._deferred)
            self._deferred = 0
            wait = self.min_rtt_interval
            if self.jitter:
                wait += self._random.randrange(math.ceil(self.min_rtt_interval * self.jitter))
            self._next_min_rtt = self._now + wait
            self._next_reset = self._now + self.update_interval
        return self._limit

    def on_samples(self, rtt: float, first_inflight: int, count: int) -> int:
        if not self.measuring_min_rtt and self._now - rtt >= self._epoch:
            self._samples.extend([rtt] * count)  # outside a window a sample only joins the window
            return self._limit
        return super().on_samples(rtt, first_inflight, count)


class Windowed(AdaptiveLimit):
    """Netflix's ``WindowedLimit``: hand the wrapped limiter one averaged sample per window.

    ``WindowedLimit.java`` with ``ImmutableAverageSampleWindow`` (defaults minWindowTime =
    maxWindowTime = 1 s = 100 rounds, windowSize 10, minRttThreshold 100 us = 0.01 rounds)::

        if rtt < minRttThreshold: ignore
        add (rtt, inflight, didDrop) to the window
        if now > nextUpdateTime:
            nextUpdateTime = now + clamp(2 * window's min rtt, minWindowTime, maxWindowTime)
            if window has >= windowSize samples:
                delegate.onSample(average rtt, max inflight, any drop)
            start a new window

    So a drop with no round trip (rtt 0) is filtered out, as an instant drop is by the
    source. Departure from ``ImmutableAverageSampleWindow.java`` (commit e3e1039): the average
    is exact (the source divides nanoseconds as integers).
    """

    timed = True

    def __init__(
        self,
        delegate: AdaptiveLimit,
        *,
        min_window: float = ROUNDS_PER_SECOND,
        max_window: float = ROUNDS_PER_SECOND,
        window_size: int = 10,
        min_rtt_threshold: float = 0.01,
    ) -> None:
        self.delegate = delegate
        super().__init__(delegate.limit, delegate.min_limit, delegate.max_limit)
        self.min_window = check_real("min_window", min_window, 0.0, math.inf, low_open=True)
        self.max_window = check_real("max_window", max_window, self.min_window, math.inf)
        self.window_size = check_int("window_size", window_size, 1)
        self.min_rtt_threshold = check_real("min_rtt_threshold", min_rtt_threshold, 0.0, math.inf)
        self._now = 0.0
        self._next_update = 0.0
        self._new_window()

    def _new_window(self) -> None:
        self._min_rtt, self._sum, self._max_inflight, self._count, self._dropped = math.inf, 0.0, 0, 0, False

    @property
    def limit(self) -> int:
        return self.delegate.limit

    @property
    def baseline(self) -> float:
        return self.delegate.baseline

    def tick(self, now: float) -> None:
        self._now = now
        self.delegate.tick(now)

    def on_sample(self, rtt: float, inflight: int, dropped: bool = False) -> int:
        if check_rtt(rtt, dropped) < self.min_rtt_threshold:
            return self.delegate.limit
        self._min_rtt = min(self._min_rtt, rtt)
        self._sum += rtt
        self._max_inflight = max(self._max_inflight, inflight)
        self._count += 1
        self._dropped = self._dropped or dropped
        if self._now > self._next_update:
            window = (self._min_rtt, self._sum / self._count, self._max_inflight, self._count, self._dropped)
            self._new_window()
            self._next_update = self._now + min(max(window[0] * 2, self.min_window), self.max_window)
            if window[3] >= self.window_size:
                self.delegate.on_sample(window[1], window[2], window[4])
        return self.delegate.limit
