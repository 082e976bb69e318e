"""The numbers notebook 07 shows, as sentences and tables: timeouts against Little's Law, a tiny run
traced round by round, the storm and why it stays, the fixes side by side, the limits at the knee.

Every number comes from :mod:`bulkhead_lab.queues` in this run (its kept runs, so a slider moved
back and forth replays nothing). Times in rounds, as the model counts them (100 rounds = 1 s).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from functools import partial

import pandas as pd

from bulkhead_lab.course.ui.claim_table import Claim, count, fact, table
from bulkhead_lab.memo import Memo
from bulkhead_lab.pool.params import CYCLE, EVENT_RATE
from bulkhead_lab.queues import design, knee, timeouts
from bulkhead_lab.queues.callers import Clients
from bulkhead_lab.queues.dependency import Server
from bulkhead_lab.queues.fixes import FIXES, TABLE, Fix, with_fix
from bulkhead_lab.queues.recovery import WINDOW, Storm, storm
from bulkhead_lab.queues.rounds import SERIES, QueueRun
from bulkhead_lab.queues.settings import SERVICE, SLOW_SERVICE, WORKERS, Callers, Dependency, Setup
from bulkhead_lab.retries.budgets import RatioBudget
from bulkhead_lab.retries.policy import RetryPolicy

DEFAULT = Setup()
NEVER = "never in the run"
QUEUE_TIMEOUT: Fix = "CoDel-like timeout"  # Fail at Scale's, fixed M and N: not RFC 8289's CoDel
PER_ROUND = EVENT_RATE / CYCLE  # lesson 000's event flow, in calls a round
BIN = 20  # rounds per point of the storm figure (200 ms)
# A tiny run to trace by hand: 1 worker, 2 rounds a call, callers who give up after 3 rounds and
# retry once at once; two requests in round 0.
TINY = Setup(
    Dependency(workers=1, service=2),
    Callers(timeout=3, policy=RetryPolicy(attempts=2, backoff=None)),
    None,
    rounds=8,
    arrivals=(2, 0, 0, 0, 0, 0, 0, 0),
)
ONCE = DEFAULT.with_(callers=Callers(policy=RetryPolicy(1, None)))  # callers who make one attempt, no retry


def _ms(rounds: float) -> str:
    return f"{rounds * 1000 / CYCLE:g} ms"


def in_rounds(value: int | None) -> object:
    """A number of rounds, or :data:`NEVER` for None (never in the run)."""
    return NEVER if value is None else value


# --- 1. timeouts -------------------------------------------------------------------------------


def occupancy_table() -> pd.DataFrame:
    """Calls held at once by lesson 000's event flow (97.22 calls/s), a healthy (60 ms) and a slow
    (220 ms) call, under each timeout: rate x min(latency, timeout), and the same simulated."""
    rows = [
        {
            "latency": _ms(latency),
            "timeout": "none" if timeout >= 1000 else _ms(timeout),
            "held: rate x min(latency, timeout)": round(timeouts.occupancy(PER_ROUND, latency, timeout), 2),
            "held: simulated": round(timeouts.held(EVENT_RATE, latency, timeout), 2),
        }
        for latency in (SERVICE, SLOW_SERVICE)
        for timeout in (5, 10, 30, 1000)
    ]
    return pd.DataFrame(rows).set_index(["latency", "timeout"])


def occupancy_fact() -> str:
    """What the table says, for the slow call: held without a timeout, with 100 ms, and the stream's rate."""
    untimed, hundred = (timeouts.occupancy(PER_ROUND, SLOW_SERVICE, t) for t in (1000, 10))
    stream = timeouts.held(EVENT_RATE, 1, 1000)  # each call held one round: the stream's own rate
    return (
        f"a slow call (220 ms) at {EVENT_RATE:g} calls/s: {untimed:.1f} held without a timeout, {hundred:.1f}"
        f" with a 100 ms timeout (lesson 000 gives the event flow 8 slots); the seeded stream brings"
        f" {stream * CYCLE:.1f} calls/s over these rounds, so the simulated figures are that much higher"
    )


def queue_table() -> pd.DataFrame:
    """A call joining the healthy dependency's queue behind n calls: its latency, in time?"""
    d, timeout = DEFAULT.dependency, DEFAULT.callers.timeout
    latency = pd.Series({n: timeouts.queued_latency(d, n) for n in (0, 8, 16, 24, 31, 32, 40)})
    frame = pd.DataFrame(
        {"latency (rounds)": latency, f"answered inside {timeout} rounds": latency <= timeout}
    )
    return frame.rename_axis("calls ahead")


def queue_fact() -> str:
    d, timeout = DEFAULT.dependency, DEFAULT.callers.timeout
    return (
        f"{d.workers} workers, {d.service} rounds a call: one frees every {d.service / d.workers:g} rounds; "
        f"with a {timeout}-round timeout at most {timeouts.longest_queue(d, timeout)} calls may wait "
        f"and the last still be answered in time"
    )


# --- 2. the mechanism, traced, and the storm ----------------------------------------------------


def round_table(run: QueueRun) -> pd.DataFrame:
    """What each round of ``run`` counted, one row a round."""
    frame = pd.DataFrame({name: getattr(run.trace, name) for name in SERIES})
    frame.index.name = "round"
    return frame.drop(columns=["limit"] if not any(run.trace.limit) else [])


def the_storm(server: type[Server] = Server, clients: type[Clients] = Clients) -> Storm:
    """The default setup through its slowdown, with these classes playing dependency and callers."""
    return storm(DEFAULT, server=server, clients=clients)


def storm_facts(s: Storm) -> str:
    """When the trigger ended, how long goodput stayed below half the healthy day's, and why."""
    trace, stop = s.run.trace, s.trigger.stop
    offered = s.after("offered") / (trace.rounds - stop) * CYCLE
    capacity = s.run.setup.dependency.capacity * CYCLE
    below = "to the end of the run" if s.recovery is None else f"{s.recovery} rounds more"
    return "\n".join(
        [
            f"the dependency slowed from round {s.trigger.start} to round {stop}"
            f" ({s.trigger.service} rounds a call instead of {s.run.setup.dependency.service})",
            f"goodput fell below half the healthy day's at round {s.fell}",
            f"after the slowdown ended, it stayed below half: {below}",
            f"after the end the callers offered {offered:.0f} calls/s; the dependency serves {capacity:.0f}",
            f"retries were {s.after('retries') / max(1, s.after('offered')):.0%} of them",
            f"of the {s.after('served')} calls it served after the end, {s.after('wasted')} were for callers"
            " who had given up",
            f"its queue held {trace.queue[stop]} calls when the slowdown ended, {trace.queue[-1]} at the end",
        ]
    )


def recovery_row(s: Storm, label: str) -> dict[str, object]:
    trace, healthy, stop, start = s.run.trace, s.healthy.trace, s.trigger.stop, s.trigger.start

    def share(first: int, last: int | None = None) -> str:
        return f"{trace.total('goodput', first, last) / max(1, healthy.total('goodput', first, last)):.0%}"

    return {
        "fix": label,
        "rounds to recover": in_rounds(s.recovery),
        "goodput through the slowdown": share(start, stop),
        "goodput after it": share(stop),
        "wasted after it": s.after("wasted"),
        "refused or dropped after it": s.after("refused") + s.after("dropped"),
        "longest queue": max(trace.queue),
    }


def recovery_table(fixes: tuple[Fix, ...] = TABLE) -> pd.DataFrame:
    """Each fix alone on the same stream: rounds from the slowdown's end until goodput is back for good
    (half the healthy day's or more in every 200 ms to the end of the run), and what it cost."""
    return pd.DataFrame([recovery_row(storm(with_fix(DEFAULT, f)), f) for f in fixes]).set_index("fix")


# --- the panel's view ---------------------------------------------------------------------------

BOUNDS: dict[str, int | None] = {"no bound": None, "5": 5, "10": 10, "20": 20, "32": 32, "40": 40, "80": 80}
BUDGETS: dict[str, RatioBudget | None] = {
    "none": None,
    "5%": RatioBudget(0.05),
    "10% (SRE)": RatioBudget(0.10),
    "20%": RatioBudget(0.20),
}
RATES = (60.0, 80.0, EVENT_RATE, 110.0, 120.0, 130.0)
# The panel's fixes: the queue bound and the retry budget have sliders of their own.
PANEL_FIXES: tuple[Fix, ...] = tuple(f for f in FIXES if f not in ("bounded queue", "retry budget"))


def setup_of(
    rate: float = EVENT_RATE,
    timeout: int = DEFAULT.callers.timeout,
    bound: str = "no bound",
    attempts: int = 3,
    budget: str = "none",
    fix: Fix = "no fix",
) -> Setup:
    """The setup the panel's sliders describe (their labels as they read)."""
    callers = Callers(timeout, RetryPolicy(attempts, DEFAULT.callers.policy.backoff), BUDGETS[budget])
    base = DEFAULT.with_(rate=rate, dependency=Dependency(queue=BOUNDS[bound]), callers=callers)
    return with_fix(base, fix)


@dataclass(frozen=True)
class StormView:
    """One setup's storm, binned per :data:`BIN` rounds in calls/s (the queue in calls)."""

    storm: Storm
    time: tuple[float, ...]  # each bin's start, in seconds
    series: dict[str, tuple[float, ...]]  # offered, goodput, wasted, requests, healthy goodput, queue
    frame: pd.DataFrame
    what: str  # the setup, as the title says it

    @property
    def label(self) -> str:
        back = self.storm.recovery
        if back is None:
            return "goodput not back for good in the run"
        return f"goodput back for good {back} rounds after the slowdown ends"


HEALTHY_REFUSED = "healthy day: refused"  # the panel's row for exercise 1's first condition


def _binned(values: tuple[int, ...], per_second: bool = True) -> tuple[float, ...]:
    scale = CYCLE / BIN if per_second else 1 / BIN
    return tuple(sum(values[i : i + BIN]) * scale for i in range(0, len(values), BIN))


def describe(setup: Setup) -> str:
    """A setup in a few words: the dependency's queue and rules, the callers' timeout and retries."""
    d, c = setup.dependency, setup.callers
    parts = ["no queue bound" if d.queue is None else f"queue {d.queue}"]
    parts += [d.order] if d.order != "fifo" else []
    parts += [f"drop {d.deadline}"] if d.deadline != "ignored" else []
    parts += [QUEUE_TIMEOUT] if d.queue_timeout is not None else []
    parts += [f"timeout {c.timeout}", f"{c.policy.attempts} attempts"]
    parts += [c.budget.label] if c.budget is not None else []
    parts += [f"bulkhead {c.bulkhead.limit}+{c.bulkhead.queue}"] if c.bulkhead is not None else []
    return ", ".join(parts)


_storm_views: Memo[Setup, StormView] = Memo("storm_views", 64)


def storm_view(setup: Setup = DEFAULT) -> StormView:
    """``setup``'s storm, binned for the figure (kept), named by :func:`describe`."""
    return _storm_views.get(setup, lambda: _storm_view(setup, describe(setup)))


def _storm_view(setup: Setup, label: str) -> StormView:
    s = storm(setup)
    trace = s.run.trace
    series = {key: _binned(getattr(trace, key)) for key in ("offered", "goodput", "wasted")}
    series["requests"] = _binned(tuple(o - r for o, r in zip(trace.offered, trace.retries, strict=True)))
    series["healthy goodput"] = _binned(s.healthy.trace.goodput)
    series["queue"] = _binned(trace.queue, per_second=False)
    time = tuple(i / CYCLE for i in range(0, trace.rounds, BIN))
    row = {**recovery_row(s, label), HEALTHY_REFUSED: f"{design.healthy_refused(setup):.1%}"}
    frame = pd.DataFrame([row]).set_index("fix").T  # one column: this setup
    frame.columns.name = None
    return StormView(s, time, series, frame, label)


# --- 4. limits at the knee ----------------------------------------------------------------------


def knee_runs() -> dict[str, QueueRun]:
    """Each of :data:`~bulkhead_lab.queues.knee.LIMITS` under overload (kept runs)."""
    return {name: knee.overload(name) for name in knee.LIMITS}


def knee_table() -> pd.DataFrame:
    """Each bulkhead limit under overload, and through the storm: where its limit sat, what it answered."""
    most = DEFAULT.dependency.capacity * DEFAULT.rounds
    rows = []
    for name in knee.LIMITS:
        trace = knee.overload(name).trace
        s = storm(knee.limited(name, DEFAULT))
        rows.append(
            {
                "bulkhead limit": name,
                "limit (median)": statistics.median(trace.limit[WINDOW * 50 :]),
                "overload: goodput of the most": f"{trace.total('goodput') / most:.0%}",
                "overload: wasted": trace.total("wasted"),
                "storm: rounds to recover": in_rounds(s.recovery),
            }
        )
    return pd.DataFrame(rows).set_index("bulkhead limit")


# --- appendix: the sources beside this run ------------------------------------------------------

SOURCES = "each source"


def source_claims() -> list[Claim]:
    """Each claim of the sources this notebook uses, beside what this run computed (timing-free facts)."""
    fixes = recovery_table()
    back = fixes["rounds to recover"]
    s, knee = the_storm(), knee_table()
    once = storm(ONCE)
    vegas, gradient = knee.loc["Vegas", "limit (median)"], knee.loc["Gradient2", "limit (median)"]
    held = timeouts.occupancy(PER_ROUND, SLOW_SERVICE, 10)
    edge = WORKERS + timeouts.longest_queue(DEFAULT.dependency, DEFAULT.callers.timeout)
    return [
        fact("Bronson et al., HotOS '21", "a metastable failure outlives its trigger, held up by work the "
             "failure itself makes", "it stays after the trigger is gone", s.recovery is None,
             f"the slowdown ends at round {s.trigger.stop}; goodput back: never in the run",
             f"back {s.recovery} rounds after the end"),
        fact("Huang et al., OSDI '22", "22 such failures in 11 organisations; triggers that take capacity, "
             "amplified by extra work (retries)", "retries sustain it", once.recovery is not None,
             f"with 1 attempt goodput is back {in_rounds(once.recovery)} rounds after the end; with 3, never",
             "it stays without retries too"),
        fact("AWS, Avoiding insurmountable queue backlogs", "bound the queue, serve the newest first: an "
             "old backlog drains slowly", "bounded queue, LIFO", back["bounded queue"] != NEVER,
             f"bounded queue: back after {back['bounded queue']}; adaptive LIFO: {back['adaptive LIFO']}",
             "the bounded queue never recovers"),
        fact("AWS, Using load shedding to avoid overload", "work for a caller that timed out is wasted; "
             "use the caller's deadline to skip it", "skip what cannot be in time",
             fixes.loc["deadline drop", "wasted after it"] == 0,
             f"no fix: {s.after('wasted')} calls served for no one after the end; deadline drop: 0",
             "the deadline drop still wastes work"),
        fact("Maurer, Fail at Scale (ACM Queue 2015)", "a CoDel-like queue timeout (fixed M = 5 ms, "
             "N = 100 ms) and adaptive LIFO keep queues short and serve fresh calls", "both end the storm",
             back[QUEUE_TIMEOUT] != NEVER and back["adaptive LIFO"] != NEVER,
             f"CoDel-like timeout: back after {back[QUEUE_TIMEOUT]} rounds; adaptive LIFO: "
             f"{back['adaptive LIFO']}",
             "one of them never recovers"),
        fact("Google SRE book ch. 21", "a 10% retry budget holds retries near a tenth of the load",
             "the storm stops feeding itself", back["retry budget"] != NEVER,
             f"retry budget: back after {back['retry budget']} rounds (the backlog still drains)",
             "the budgeted storm never ends"),
        fact("Little's Law", "calls held = arrival rate x time held", "97.22/s x 0.1 s = 9.72",
             f"{held:.2f}" == "9.72", f"{held:.2f} held at 97.22/s, 220 ms calls, a 100 ms timeout",
             f"{held:.2f}"),
        fact("Netflix concurrency-limits (Vegas, Gradient2)", "delay-based limits find the concurrency past "
             "which latency grows", "a limit near the knee", WORKERS <= vegas <= edge,
             f"Vegas' median limit {vegas:g}, from the knee ({WORKERS}) to {edge}; Gradient2's {gradient:g}",
             f"Vegas' median limit {vegas:g}"),
    ]  # fmt: skip


claims_table = partial(table, lesson=SOURCES, appendix=True)  # numbered, where, reproduced or not
claims_count = partial(count, lesson=SOURCES, invariants="each a fact of the seeded runs")


def retries_fact() -> str:
    """The same slowdown with callers that do not retry: the storm's sustaining effect, removed."""
    once, thrice = storm(ONCE), storm(DEFAULT)
    return (
        f"1 attempt per request: goodput back {in_rounds(once.recovery)} rounds after the end"
        f" (its queue held {once.run.trace.queue[once.trigger.stop]} calls);"
        f" {DEFAULT.callers.policy.attempts} attempts: {in_rounds(thrice.recovery)}"
    )
