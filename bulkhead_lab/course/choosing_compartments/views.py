"""The numbers notebook 08 shows, as tables: each section's view over :mod:`bulkhead_lab.compartments`
(section 1 also over lesson 000's model), sections 3 and 5's live runs (:mod:`bulkhead_lab.live`), and
section 5's seeded tables, kept in :mod:`.watching` and shown here under the same names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from bulkhead_lab.compartments import breaker, composed, isolation_cost, shuffle, watch
from bulkhead_lab.compartments.breaker import BreakerRun
from bulkhead_lab.compartments.isolation_cost import EqualBlocking
from bulkhead_lab.compartments.shuffle import Deal, Fleet
from bulkhead_lab.course.choosing_compartments import watching
from bulkhead_lab.course.ui import claim_table
from bulkhead_lab.live.isolation import ISOLATIONS, IsolationRun, IsolationSettings, run_isolation
from bulkhead_lab.live.sync import run_sync
from bulkhead_lab.live.watched import WatchedRun, WatchSettings, run_watched
from bulkhead_lab.memo import Memo
from bulkhead_lab.pool import rounds
from bulkhead_lab.pool.params import MODES, Params

ISOLATION = IsolationSettings()  # section 3's run: 8 calls, 4 slots, a 2-s dependency, 0.2-s timeouts
WATCHED = WatchSettings()  # section 5's live bulkhead: 5 running, 5 waiting, 0.1-s calls
SLO, ALERTS, COUNT_ALERT = watching.SLO, watching.ALERTS, watching.COUNT_ALERT  # section 5's, seeded
limits_table, alert_lines, hours_table = watching.limits_table, watching.alert_lines, watching.hours_table
pages_table, watched_hour = watching.pages_table, watching.watched_hour


def _share(dropped: int, served: int) -> float:
    return round(100 * dropped / (dropped + served), 2) if dropped + served else 0.0


# --- 1. what isolation costs -------------------------------------------------------------------


@dataclass(frozen=True)
class CostView:
    """Section 1 at one target: the sizes by Erlang-B, and the seeded model run at those sizes."""

    cost: EqualBlocking

    def table(self) -> pd.DataFrame:
        """Slots per pool and what Erlang-B says each refuses."""
        c = self.cost
        rows = [
            (f"{flow} pool, apart", load, slots, b)
            for flow, load, slots, b in zip(
                isolation_cost.FLOWS, c.loads, c.apart, c.blocking_apart, strict=True
            )
        ]
        weighted = sum(a * b for a, b in zip(c.loads, c.blocking_apart, strict=True)) / sum(c.loads)
        rows.append(("both pools apart", sum(c.loads), c.split_total, weighted))
        rows.append(("one pool, together", sum(c.loads), c.together, c.blocking_together))
        frame = pd.DataFrame(rows, columns=["pool", "offered load", "slots", "Erlang-B blocking %"])
        frame["offered load"] = frame["offered load"].round(2)
        frame["Erlang-B blocking %"] = (100 * frame["Erlang-B blocking %"]).round(2)
        return frame.set_index("pool")

    def model_table(self) -> pd.DataFrame:
        """Lesson 000's seeded days at these sizes: the share of each flow's calls dropped."""
        labels = ("split {}/{}".format(*self.cost.apart), f"one pool of {self.cost.together}")
        rows: dict[str, dict[str, float]] = {label: {} for label in labels}
        for day in MODES:
            for label, params in zip(labels, self.cost.model_params(day), strict=True):
                c = rounds.counters(params)
                rows[label][f"{day}: tracking dropped %"] = _share(c.tracking_dropped, c.tracking_responses)
                rows[label][f"{day}: event dropped %"] = _share(c.event_dropped, c.event_responses)
        return pd.DataFrame.from_dict(rows, orient="index").rename_axis("layout")

    def sentence(self) -> str:
        c = self.cost
        apart = " + ".join(map(str, c.apart))
        return (
            f"At {c.target:.1%} blocking the two flows need {apart} = {c.split_total} slots apart and "
            f"{c.together} together: the wall costs {c.extra} slots ({c.extra / c.together:.0%} more)."
        )


def cost_view(target: float = isolation_cost.TARGET) -> CostView:
    """Not memoised: Erlang-B's sizes are quick, and :func:`rounds.counters` keeps the model's days."""
    return CostView(isolation_cost.equal_blocking(target))


def cost_by_target() -> pd.DataFrame:
    """Every target of the slider: slots apart, together, and what the wall costs."""
    costs = [isolation_cost.equal_blocking(target) for target in isolation_cost.TARGETS]
    rows = [(f"{c.target:.1%}", *c.apart, c.split_total, c.together, c.extra) for c in costs]
    columns = ["target", "tracking apart", "event apart", "apart in all", "together", "the wall costs"]
    return pd.DataFrame(rows, columns=columns).set_index("target")


# --- 2. shuffle sharding --------------------------------------------------------------------------


@dataclass(frozen=True)
class ShardView:
    """Section 2 for one fleet: by the formula and by the seeded deal, shuffle beside plain."""

    fleet: Fleet
    deals: tuple[Deal, Deal]  # shuffle, plain

    def table(self) -> pd.DataFrame:
        """The share of other tenants sharing 0, 1, ... every worker with the poison tenant's shard."""
        rows = {}
        for deal in self.deals:
            name = deal.fleet.sharding
            rows[f"{name}: formula %"] = [round(100 * s, 2) for s in shuffle.overlap_shares(deal.fleet)]
            rows[f"{name}: seeded deal %"] = [round(100 * s, 2) for s in deal.overlap]
        size = self.fleet.size
        index = [f"{o} of {size}" + (" (every worker)" if o == size else "") for o in range(size + 1)]
        return pd.DataFrame(rows, index=pd.Index(index, name="workers shared"))

    def sentence(self) -> str:
        shuffled, plain = self.deals
        f = self.fleet
        return (
            f"{f.workers} workers in shards of {f.size}: {shuffled.fleet.shards} shuffle shards against "
            f"{plain.fleet.shards} plain ones. One poison tenant leaves "
            f"{shuffle.overlap_shares(shuffled.fleet)[-1]:.2%} of the others with no healthy worker "
            f"(seeded deal of {f.tenants} tenants: {shuffled.lose_every_worker:.2%}), against "
            f"{shuffle.overlap_shares(plain.fleet)[-1]:.2%} with plain sharding "
            f"({plain.lose_every_worker:.2%})."
        )


_shard_views: Memo[Any, ShardView] = Memo("08 shard view", 64)


def shard_view(workers: int = shuffle.WORKERS, size: int = shuffle.SIZE) -> ShardView:
    fleet, plain = Fleet(workers, size), Fleet(workers, size, sharding="plain")
    return _shard_views.get(
        (workers, size), lambda: ShardView(fleet, (shuffle.simulate(fleet), shuffle.simulate(plain)))
    )


COUNTED_FLEETS = ((8, 2), (16, 2), (8, 3), (32, 2), (16, 3))  # section 2's fleet, then the exercise's


def shard_counts() -> pd.DataFrame:
    """Per fleet, by the formula: how many shuffle shards C(workers, size), the share of other tenants a
    poison tenant leaves with no healthy worker, the share that lose a worker, and what one more worker
    per shard multiplies the count by, (workers - size) / (size + 1), and twice the workers."""
    rows = []
    for workers, size in COUNTED_FLEETS:
        shares = shuffle.overlap_shares(Fleet(workers, size))
        count = math.comb(workers, size)
        rows.append(
            {
                "fleet": f"{workers} workers, shards of {size}",
                "shards C(n, k)": count,
                "no healthy worker %": round(100 * shares[-1], 3),
                "lose a worker or more %": round(100 * (1 - shares[0]), 1),
                "workers a poison tenant takes down": size,
                "one more per shard: count x": round((workers - size) / (size + 1), 2),
                "twice the workers: count x": round(math.comb(2 * workers, size) / count, 2),
            }
        )
    return pd.DataFrame(rows).set_index("fleet")


# --- 3. thread pool against semaphore (live) -------------------------------------------------------


def isolation_runs(
    settings: IsolationSettings = ISOLATION, progress: object = None
) -> tuple[IsolationRun, ...]:
    """The three variants, live, one after another (about 5 s)."""
    runs = []
    for done, variant in enumerate(ISOLATIONS):
        if progress is not None:
            progress.on_progress(done, len(ISOLATIONS))  # type: ignore[attr-defined]
        runs.append(run_sync(run_isolation(variant, settings)))
    return tuple(runs)


def isolation_facts(runs: tuple[IsolationRun, ...]) -> pd.DataFrame:
    """What each variant did, in counts that are the same on every run (nbval compares them)."""
    rows = [
        {
            "isolation": r.isolation,
            "calls": len(r.outcomes),
            "refused at once": r.count("refused"),
            "timed out": r.count("timed out"),
            "answered": r.count("answered"),
            "held when all had answers": "-" if r.isolation == "on the loop" else r.held_at_answers,
            "one more call then": "-" if r.isolation == "on the loop" else r.next_call,
            "dependency's calls": r.dependency_calls,
            "threads started": r.threads_started,
            "loop stood still": "yes" if r.longest_pause >= 0.9 * r.settings.latency else "no",
            "dependency let go early": "yes" if r.closed_after < 0.9 * r.settings.latency else "no",
        }
        for r in runs
    ]
    return pd.DataFrame(rows).set_index("isolation")


def isolation_timings(runs: tuple[IsolationRun, ...]) -> pd.DataFrame:
    """What varies from run to run: when the callers had answers, the slots were free and the dependency
    had nothing open; the longest the caller's loop went without a tick; the memory added meanwhile."""
    rows = [
        {
            "isolation": r.isolation,
            "every caller answered (s)": round(r.answered_after, 3),
            "every slot free (s)": round(r.freed_after, 3),
            "dependency idle (s)": round(r.closed_after, 3),
            "longest loop pause (s)": round(r.longest_pause, 3),
            "address space added (KiB)": None if r.memory_added is None else r.memory_added[0],
            "resident memory added (KiB)": None if r.memory_added is None else r.memory_added[1],
        }
        for r in runs
    ]
    return pd.DataFrame(rows).set_index("isolation")


def composed_table() -> pd.DataFrame:
    """resilience4j's time limiter and semaphore bulkhead, ported call for call and composed both ways
    (:mod:`bulkhead_lab.compartments.composed`): one permit, a 2-s call, a 0.2-s timeout, a second
    call at 0.5 s."""
    rows = [
        {
            "composed": c.order,
            "caller's answer": f"{c.answer} at {c.answered:g} s",
            "permit back (s)": c.permit_back,
            "work ended (s)": c.work_ended,
            "a second call at 0.5 s": c.second_call,
            "calls running at once (limit 1)": c.most_running,
        }
        for c in composed.both()
    ]
    return pd.DataFrame(rows).set_index("composed")


# --- 4. a bulkhead and a breaker ------------------------------------------------------------------


def breaker_table(runs: tuple[BreakerRun, ...]) -> pd.DataFrame:
    rows = [
        {
            "layout": r.layout,
            "tracking dropped": r.counters.tracking_dropped,
            "event calls to the broken dependency": r.reached,
            "breaker opened after (rounds)": "never" if r.detected is None else r.detected,
            "event slot-rounds until then": r.before_open,
            "tracking dropped until then": r.tracking_before_open,
            "times opened": r.opens,
        }
        for r in runs
    ]
    return pd.DataFrame(rows).set_index("layout")


# --- 5. sizing from production, and what to watch ----------------------------------------------------


def readings_table(readings: list[tuple[str, watch.Readings]], slo: watch.Slo) -> pd.DataFrame:
    """Stretches read as one each (the live run's seconds-long stretches)."""
    rows = [
        {
            "stretch": label,
            "calls": r.calls,
            "refused": r.refused,
            "refusal ratio %": round(100 * r.refusal_ratio, 2),
            "saturation %": round(100 * r.saturation, 1),
            "p99 queue wait (ms)": round(1000 * r.p99_wait, 1),
            "SLO burn": round(r.burn, 2),
            "alerts": ", ".join(r.firing(slo)) or "none",
            "count alert (any refused)": "fires" if r.refused > COUNT_ALERT else "-",
        }
        for label, r in readings
    ]
    return pd.DataFrame(rows).set_index("stretch")


LIVE_SLO = watch.Slo(latency=0.5, target=0.99)


def watched_run(settings: WatchSettings = WATCHED) -> WatchedRun:
    return run_sync(run_watched(settings))


def watched_table(run: WatchedRun) -> pd.DataFrame:
    steady = ("steady, one call at a time", run.steady.readings(LIVE_SLO))
    burst = (f"a burst of {run.settings.burst}", run.burst.readings(LIVE_SLO))
    return readings_table([steady, burst], LIVE_SLO)


def counted(r: watch.Readings, slo: watch.Slo) -> tuple[str, ...]:
    """The alerts the counts alone set off: refusals, and the burn the refused calls make by themselves.

    Saturation, the p99 wait and late answers are timed: how busy this machine is moves them, so
    they stay in the table (which nbval does not compare) and out of the facts.
    """
    untimed = replace(r, saturation=0.0, p99_wait=0.0, burn=r.refusal_ratio / (1 - slo.target))
    return untimed.firing(slo)


def watched_facts(run: WatchedRun) -> str:
    """The counts every live run repeats, and the alerts those counts set off."""
    lines = []
    for label, stretch in (("steady", run.steady), ("burst", run.burst)):
        r = stretch.readings(LIVE_SLO)
        peak = max(p.running for p in stretch.timeline)
        alerts = ", ".join(counted(r, LIVE_SLO)) or "none"
        lines.append(
            f"{label}: {r.calls} calls, {r.refused} refused ({r.refusal_ratio:.0%}), "
            f"at most {peak} running of {run.settings.limit}; the refusals set off: {alerts}"
        )
    dependency = f"the dependency counted {run.dependency_calls} calls, at most {run.dependency_peak} at once"
    return "\n".join([*lines, dependency])


# --- the lessons' figures beside ours ----------------------------------------------------------------

BREAKER_WHY = "the breaker lesson's model is not in this course; this breaker judges a call only when it ends"


def _breaker_claims(runs: tuple[BreakerRun, ...]) -> list[claim_table.Claim]:
    single = next(r for r in runs if r.layout == "single pool + breaker")
    where = "lesson 000, its opening and its failing day"
    drew = "slot-rounds the broken dependency drew until the breaker opened (ratio 0.50)"
    decided = "rounds the breaker needed to decide (its detection window)"
    return [
        claim_table.not_here(where, drew, breaker.LESSON_SLOT_ROUNDS, str(single.before_open), BREAKER_WHY),
        claim_table.not_here(where, decided, breaker.LESSON_DETECTION, str(single.detected), BREAKER_WHY),
    ]


def appendix_claims() -> list[claim_table.Claim]:
    """Every figure this notebook quotes from a source, beside the package's."""
    shards = shard_view()
    c = rounds.counters(Params(split=24))
    dropped = f"{c.event_dropped} of {c.event_dropped + c.event_responses}"
    lesson, aws = "lesson 000, its first table", "AWS Builders' Library, shuffle sharding"
    every = 1 / shuffle.overlap_shares(shards.fleet)[-1]
    sourced = (
        (lesson, "24/8's event pool drops on the healthy day", "406 of 3958", dropped),
        (aws, "8 workers in pairs make this many shuffle shards", 28, shards.deals[0].fleet.shards),
        (aws, "other tenants a poison tenant's shard takes down", "1 in 28", f"1 in {every:.0f}"),
    )
    return [*(claim_table.exact(*claim) for claim in sourced), *_breaker_claims(breaker.day_runs())]


def appendix_table() -> pd.DataFrame:
    return claim_table.table(appendix_claims(), "the source", appendix=True)


def appendix_count() -> str:
    return claim_table.count(appendix_claims(), "the source")
