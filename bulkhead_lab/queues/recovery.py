"""How long the storm outlives its trigger: goodput against the healthy day's, after the slowdown ends.

The healthy day is :attr:`~bulkhead_lab.queues.settings.Setup.reference`: the same requests with no
slowdown and no fix, the dependency and callers as they are by default (so every fix of one load is
measured against one day, kept once). Goodput is *back* over the ``window`` rounds from round ``r``
when the calls answered in time there are at least ``share`` of the healthy day's in the same rounds,
and some were (half of nothing is no recovery: at 130 calls/s the reference day itself collapses).
:func:`recovery` counts how long it takes for good: the first round ``r`` from the slowdown's end from
which goodput is back in *every* window to the end of the run, minus that end (``None``: not back for
good in the run). A storm that comes back after a first good window is not over, so a first window back
is never called a recovery. :func:`collapse` is the first window from the slowdown's start where
goodput is *not* back (``None``: it never fell).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate

from bulkhead_lab.queues.callers import Clients
from bulkhead_lab.queues.dependency import Server
from bulkhead_lab.queues.rounds import QueueRun, Trace, kept_run, run
from bulkhead_lab.queues.settings import Setup, Slowdown
from bulkhead_lab.validation import fail

WINDOW = 20  # rounds (200 ms) a recovery is judged over
SHARE = 0.5  # "back": at least half the healthy day's goodput


def _back(trace: Trace, healthy: Trace, window: int, share: float) -> list[bool]:
    """For each round ``r`` with a full window after it: is goodput back over ``r .. r + window - 1``?"""
    got, want = [0, *accumulate(trace.goodput)], [0, *accumulate(healthy.goodput)]
    return [
        got[r + window] > got[r] and got[r + window] - got[r] >= share * (want[r + window] - want[r])
        for r in range(trace.rounds - window + 1)
    ]


def recovery(
    trace: Trace, healthy: Trace, stop: int, window: int = WINDOW, share: float = SHARE
) -> int | None:
    """Rounds from ``stop`` (the trigger's end) until goodput is back for good: in every window from
    then to the end of the run; ``None``: not in the run (the last window is not back)."""
    back = _back(trace, healthy, window, share)
    first = len(back)  # the first round of the run's last unbroken stretch of windows back
    while first > stop and back[first - 1]:
        first -= 1
    return None if first == len(back) else first - stop


def collapse(
    trace: Trace, healthy: Trace, start: int, stop: int, window: int = WINDOW, share: float = SHARE
) -> int | None:
    """The first round of ``start .. stop - 1`` (the trigger) from which goodput is not back."""
    back = _back(trace, healthy, window, share)
    return next((r for r in range(start, min(stop, len(back))) if not back[r]), None)


@dataclass(frozen=True)
class Storm:
    """One setup through its slowdown and on the healthy day, and what the slowdown cost."""

    run: QueueRun
    healthy: QueueRun
    trigger: Slowdown
    fell: int | None  # the first round of the trigger from which goodput was under half (None: never)
    recovery: int | None  # rounds after the trigger's end until it was back for good (None: not in the run)

    def after(self, name: str) -> int:
        """One series summed from the trigger's end to the run's end."""
        return self.run.trace.total(name, self.trigger.stop)


def storm(
    setup: Setup,
    window: int = WINDOW,
    share: float = SHARE,
    *,
    server: type[Server] = Server,
    clients: type[Clients] = Clients,
) -> Storm:
    """``setup`` through its slowdown, beside the healthy day (``setup.trigger`` must be a slowdown);
    ``server`` and ``clients`` play the dependency and the callers (kept runs: the package's own)."""
    if setup.trigger is None:
        raise fail("trigger", None, "a Slowdown (a storm needs a trigger)")
    own = server is Server and clients is Clients
    sick, healthy = kept_run(setup) if own else run(setup, server, clients), kept_run(setup.reference)
    slow = setup.trigger
    fell = collapse(sick.trace, healthy.trace, slow.start, slow.stop, window, share)
    back = recovery(sick.trace, healthy.trace, slow.stop, window, share)
    return Storm(sick, healthy, slow, fell, back)
