"""An hour of one compartment, minute by minute: what its alerts read, and the SRE workbook's burn alerts.

:func:`run_hour` feeds a compartment of ``limit`` places and ``queue`` waiting places (first
come, first served; refused at once when both are full) with Poisson arrivals whose rate
changes every minute, and lognormal holds whose mean may be multiplied from a given minute on
(a slowdown). It counts per minute, by the minute a call arrived in: the calls, the refused,
the answered later than the SLO's latency, and the seconds every place was taken; and keeps
the waits of the calls of the last :data:`SHORT` minutes.

An :class:`HourRun` reads it the way the alerts do (:mod:`bulkhead_lab.compartments.watch`):
saturation, refusal ratio and p99 wait over the last :data:`SHORT` minutes, and the SLO's burn
rate over any number of the last minutes. The page is the SRE workbook's fast multi-window
burn-rate alert ("Alerting on SLOs"): burn at least 14.4 over the last hour *and* over the last
5 minutes (2% of a 30-day error budget spent in an hour, and still burning). Its slower page
(6 over 6 hours and 30 minutes) and its ticket (1 over 3 days and 6 hours) read windows longer
than the hour run here. Pure: seeded, no I/O.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from bulkhead_lab.compartments import watch
from bulkhead_lab.compartments.watch import Alerts, Readings, Slo

MINUTE = 60.0  # s
SHORT = 5  # minutes: the page's short window, and the one the other three readings are read over
ALERTS, SLO = Alerts(), Slo()  # the default lines, and the default SLO (99% within 250 ms)


@dataclass(frozen=True)
class Minute:
    """One minute's counts, by the minute each call arrived in."""

    calls: int
    refused: int
    late: int  # answered, later than the SLO's latency
    full: float  # seconds of the minute with every running place taken


@dataclass(frozen=True)
class HourRun:
    """A compartment's counters over an hour (or any whole number of minutes), minute by minute."""

    minutes: tuple[Minute, ...]
    waits: tuple[float, ...]  # the waits of the calls admitted in the last SHORT minutes
    slo: Slo

    def _last(self, n: int) -> tuple[Minute, ...]:
        return self.minutes[-n:]

    def burn(self, last: int) -> float:
        """The SLO's burn rate over the last ``last`` minutes: the share of calls refused or late, over
        the share the SLO allows."""
        ms = self._last(last)
        calls = sum(m.calls for m in ms)
        bad = sum(m.refused + m.late for m in ms)
        return bad / calls / (1 - self.slo.target) if calls else 0.0

    def minute_burns(self) -> tuple[float, ...]:
        """Each minute's burn rate, in order."""
        return tuple(self.burn_of(m) for m in self.minutes)

    def burn_of(self, m: Minute) -> float:
        return (m.refused + m.late) / m.calls / (1 - self.slo.target) if m.calls else 0.0

    def readings(self, last: int = SHORT) -> Readings:
        """The four readings over the last ``last`` minutes (the p99 wait over the last :data:`SHORT`)."""
        ms = self._last(last)
        calls, refused = sum(m.calls for m in ms), sum(m.refused for m in ms)
        return Readings(
            calls,
            refused,
            sum(m.full for m in ms) / (MINUTE * len(ms)),
            refused / calls if calls else 0.0,
            watch.p99(self.waits),
            self.burn(last),
        )

    def pages(self, alerts: Alerts = ALERTS) -> bool:
        """The workbook's page: burn at least ``alerts.burn`` over the last hour and the last 5 minutes."""
        long_ = min(alerts.long_window, len(self.minutes))
        return self.burn(long_) >= alerts.burn and self.burn(alerts.short_window) >= alerts.burn

    def firing(self, alerts: Alerts = ALERTS) -> tuple[str, ...]:
        """The alerts on: the three readings over the last :data:`SHORT` minutes past their lines, and
        the page ("SLO burn") by both of its windows."""
        r = self.readings()
        over = (
            ("saturation", r.saturation >= alerts.saturation),
            ("refusals", r.refusal_ratio >= alerts.refusal_ratio),
            ("queue wait", r.p99_wait >= alerts.wait_share * self.slo.latency),
            ("SLO burn", self.pages(alerts)),
        )
        return tuple(name for name, on in over if on)


def _spread_full(full: list[float], start: float, end: float) -> None:
    """Add the seconds ``[start, end)`` to the minutes they fall in."""
    while start < end:
        m = int(start // MINUTE)
        if m >= len(full):
            return
        cut = min(end, (m + 1) * MINUTE)
        full[m] += cut - start
        start = cut


class _Hour:
    """The compartment while an hour plays: its places, queue and per-minute counts."""

    def __init__(self, n: int, limit: int, queue: int, slo: Slo, seed: int) -> None:
        draw = random.Random(seed)
        self.gauss, self.expo = draw.gauss, draw.expovariate
        self.limit, self.queue, self.late_after = limit, queue, slo.latency
        self.counts = [[0, 0, 0] for _ in range(n)]  # calls, refused, late
        self.full = [0.0] * n
        self.keep_from = max(0, n - SHORT) * MINUTE  # the waits kept: the last SHORT minutes'
        self.waits: list[float] = []
        self.ends: list[float] = []  # running calls' end times
        self.waiting: deque[tuple[float, int]] = deque()  # (arrival, minute) of queued calls
        self.full_since = -1.0  # when every place was last taken (< 0: not now)

    def start(self, arrived: float, m: int, at: float, mu: float, spread: float) -> None:
        hold = math.exp(mu + spread * self.gauss(0.0, 1.0))
        heapq.heappush(self.ends, at + hold)
        if at - arrived + hold > self.late_after:
            self.counts[m][2] += 1
        if arrived >= self.keep_from:
            self.waits.append(at - arrived)
        if at == arrived and len(self.ends) == self.limit:
            self.full_since = at

    def free_until(self, now: float, mu_of: list[float], spread: float) -> None:
        """End the calls due by ``now``; each freed place goes to the oldest waiter, if any."""
        ends, waiting = self.ends, self.waiting
        while ends and ends[0] <= now:
            end = heapq.heappop(ends)
            if waiting:
                arrived, m = waiting.popleft()
                self.start(arrived, m, end, mu_of[m], spread)
            elif self.full_since >= 0:
                _spread_full(self.full, self.full_since, end)
                self.full_since = -1.0

    def minute(self, m: int, rate: float, mu_of: list[float], spread: float) -> None:
        """Minute ``m``'s Poisson arrivals at ``rate``: each starts, waits or is refused."""
        t, stop, row, mu = m * MINUTE + self.expo(rate), (m + 1) * MINUTE, self.counts[m], mu_of[m]
        while t < stop:
            if self.ends and self.ends[0] <= t:
                self.free_until(t, mu_of, spread)
            row[0] += 1
            if len(self.ends) < self.limit:
                self.start(t, m, t, mu, spread)
            elif len(self.waiting) < self.queue:
                self.waiting.append((t, m))
            else:
                row[1] += 1
            t += self.expo(rate)


def run_hour(
    rates: Sequence[float],
    mean_hold: float,
    limit: int,
    queue: int,
    slo: Slo = SLO,
    *,
    slower: float = 1.0,
    slow_from: int | None = None,
    spread: float = 0.6,
    seed: int = 1,
) -> HourRun:
    """``rates[m]`` calls/s in minute ``m`` (Poisson), lognormal holds of mean ``mean_hold`` s (times
    ``slower`` from minute ``slow_from`` on), through ``limit`` places and ``queue`` waiting places."""
    n = len(rates)
    slowed = [slow_from is not None and m >= slow_from for m in range(n)]
    mu_of = [math.log(mean_hold * (slower if s else 1.0)) - spread**2 / 2 for s in slowed]
    hour = _Hour(n, limit, queue, slo, seed)
    for m, rate in enumerate(rates):
        hour.minute(m, rate, mu_of, spread)
    hour.free_until(math.inf, mu_of, spread)  # the calls still running or waiting finish after the hour
    minutes = tuple(Minute(c, r, late, f) for (c, r, late), f in zip(hour.counts, hour.full, strict=True))
    return HourRun(minutes, tuple(hour.waits), slo)
