"""Notebook 10's live runs as tables and fact lines: the facts (peaks, whether a limit bound, who kept the
SLO) are the same every run; timings stay out of them."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from bulkhead_lab.course.judges.capstone import judge
from bulkhead_lab.course.ui.panel import LiveProgress
from bulkhead_lab.course.your_own_stack import throttle_storm
from bulkhead_lab.live.stack import capstone, client_pools, h2, rate, throttle
from bulkhead_lab.live.sync import run_sync
from bulkhead_lab.pool.params import LESSON_SPLIT, split_label
from bulkhead_lab.retries.seeded import LESSON, SLOWDOWN


def client_tables() -> tuple[list[client_pools.ClientRun], list[client_pools.ClientRun]]:
    """Section 1: every client with its defaults and configured with a limit of 10, all at once."""
    return run_sync(client_pools.both_tables())


def client_table(rows: list[client_pools.ClientRun]) -> pd.DataFrame:
    """One table: the client, the setting that bounds it, its value, what the dependency saw."""
    return pd.DataFrame(
        [
            {
                "client": r.client,
                "setting": r.setting,
                "value": r.value,
                "calls at once": r.calls,
                "peak the dependency saw": "-" if r.skipped else r.peak,
                "bound?": r.skipped or ("yes" if r.bound else "no"),
                "connections thrown away": r.discarded,
            }
            for r in rows
        ]
    ).set_index("client")


def client_facts(rows: list[client_pools.ClientRun]) -> str:
    """One line per client: its peak and whether the setting bound anything."""
    lines = []
    for r in rows:
        if r.skipped:
            lines.append(f"{r.client}: not run ({r.skipped})")
            continue
        said = f"{r.setting}={r.value}"
        verdict = "the setting bound nothing" if not r.bound else f"bound at {r.peak}"
        thrown = f"; {r.discarded} connections opened and thrown away" if r.discarded else ""
        lines.append(f"{r.client} ({said}): peak {r.peak} of {r.calls}: {verdict}{thrown}")
    return "\n".join(lines)


def h2_runs() -> list[h2.H2Run]:
    return run_sync(h2.three_runs())


def h2_facts(runs: list[h2.H2Run]) -> str:
    return "\n".join(
        f"{r.bound_by}: {r.calls} calls on {r.connections} connection{'s' * (r.connections != 1)}, "
        f"peak {r.peak} at the dependency"
        for r in runs
    )


def rate_runs() -> list[rate.RateRun]:
    return run_sync(rate.four_runs())


def rate_table(runs: list[rate.RateRun]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "limiter": "token bucket, 40/s" if r.limiter == "rate" else f"concurrency limit {rate.LIMIT}",
                "latency (ms)": round(r.latency * 1000),
                "offered": r.offered,
                "let through": r.passed,
                "refused": r.refused,
                "peak in flight": r.peak,
                "mean in flight": round(r.mean_in_flight(), 1),
                "rate x latency": r.littles_law,
            }
            for r in runs
        ]
    )


def rate_facts(runs: list[rate.RateRun]) -> str:
    """What stays true on any machine: under the bucket the slow dependency holds more calls at once than
    the healthy one and more than the concurrency limit's 10; under the limit never more than 10. The
    numbers themselves (peak, mean in flight against Little's Law's 2 and 20) move on a busy machine,
    which bunches the calls and slows the dependency's answers: they are in :func:`rate_table`."""
    by = {(r.limiter, r.latency): r for r in runs}
    healthy, slow = by[("rate", rate.HEALTHY)], by[("rate", rate.SLOW)]
    law = f"Little's Law: 40/s x {rate.SLOW:g} s = {slow.littles_law:g}, against {healthy.littles_law:g}"
    lines = [
        f"token bucket: the dependency held more calls at once at {round(rate.SLOW * 1000)} ms than at "
        f"{round(rate.HEALTHY * 1000)} ms ({law}): {_yes(slow.peak > healthy.peak)}",
        f"token bucket, {round(rate.SLOW * 1000)} ms: it held more than the concurrency limit's "
        f"{rate.LIMIT}: {_yes(slow.peak > rate.LIMIT)}",
    ]
    for r in runs:
        if r.limiter == "concurrency":
            lines.append(f"concurrency limit {rate.LIMIT}, {round(r.latency * 1000)} ms: peak at most "
                         f"{rate.LIMIT}: {_yes(r.peak <= rate.LIMIT)}")  # fmt: skip
    return "\n".join(lines)


def _yes(held: bool) -> str:
    return "yes" if held else "NO"


def throttle_runs() -> list[throttle.ThrottleRun]:
    """The refusing backend without a throttle, then with the course's."""
    return [run_sync(throttle.throttle_run(None)), run_sync(throttle.throttle_run(throttle.AdaptiveThrottle))]


def throttle_facts(runs: list[throttle.ThrottleRun]) -> str:
    return "\n".join(
        f"{'with the throttle' if r.throttled else 'no throttle'}: {r.asked} requests asked, {r.local} "
        f"rejected here, {r.backend_calls} reached the backend, {r.accepted} accepted"
        for r in runs
    )


def capstone_live(stack: object) -> capstone.StackRun:
    """Section 6's live run (about 7 s at most) under a progress bar counting its requests as they end; it
    says done, or where Kernel > Interrupt stopped it (every service the run started closed first, one line
    in the cell)."""
    progress = LiveProgress("capstone", unit="requests ended", total=capstone.REQUESTS)
    with progress.shown("Run this cell to run the capstone live (a bar counts its requests)."):
        run = run_sync(capstone.run_stack(stack, progress.on_progress))
    ended = sum(len(p.took) for p in run.compartments.values())
    progress.done(f"done: {ended} requests ended in {run.seconds:.1f} s")
    return run


def capstone_facts(run: capstone.StackRun) -> str:
    """The verdict's kind and the invariant facts of a run."""
    verdict = judge(run)
    pay, inv = run.compartments["payment"], run.compartments["inventory"]
    kept = not inv.failed and inv.late(capstone.SLO) <= inv.requests // 100
    return "\n".join(
        [
            f"Payment held at most {run.payment_peak} calls at once (limit {pay.limit}): "
            f"{'within it' if pay.limit is not None and run.payment_peak <= pay.limit else 'NOT within it'}",
            f"requests still open {capstone.CUTOFF:g} s after the start: {sum(run.open_at_cutoff.values())}",
            f"Inventory kept its SLO: {'yes' if kept else 'no'}",
            f"verdict: {'Right' if verdict.ok else 'Not yet'}",
        ]
    )


# --- section 5: the throttle in notebook 06's storm model, and live against lesson 004's Order Service


Make = Callable[[float], object]
STORM_DAYS = {  # the runs section 5 prints: 06's 24/8 through the slowdown, its healthy day, one pool
    "slowdown": SLOWDOWN,
    "healthy": LESSON.with_(split=SLOWDOWN.split),
    "one pool": SLOWDOWN.with_(split=None),
}


def storm_runs(
    make: Make = throttle.AdaptiveThrottle,
) -> dict[tuple[str, bool], throttle_storm.ThrottledStorm]:
    """Each of :data:`STORM_DAYS` without a throttle and with ``make``'s, by (day, throttled)."""
    return {
        (day, m is not None): throttle_storm.run(p, make=m)
        for day, p in STORM_DAYS.items()
        for m in (None, make)
    }


def _rejected(run: throttle_storm.ThrottledStorm) -> int:
    return run.tracking.rejected_here + run.event.rejected_here


def _accepted(flow: throttle_storm.FlowLoad) -> str:
    return f"{flow.served / flow.reached:.0%}"


def storm_facts(
    runs: dict[tuple[str, bool], throttle_storm.ThrottledStorm], whose: str = "with the throttle"
) -> str:
    """What the throttle did to the load reaching the pool, in the seeded model's exact counts."""
    plain, thr = runs[("slowdown", False)], runs[("slowdown", True)]
    e0, e1 = plain.event, thr.event
    one = runs[("one pool", True)]
    healthy = runs[("healthy", True)]
    split, attempts = split_label(SLOWDOWN.split), throttle_storm.SETUP.policy.attempts
    return "\n".join(
        [
            f"06's storm: lesson 000's 40 s, callers making up to {attempts} attempts "
            "(the AWS SDK's full jitter), no budget; a throttle per flow, K = 2",
            f"{split}, slowdown day, event flow: {e0.requests} requests",
            f"  no throttle: {e0.reached} calls reached its {SLOWDOWN.total - LESSON_SPLIT} slots "
            f"({e0.per_request:.2f} a request), {e0.served} served, {e0.refused} refused",
            f"  {whose}: {e1.rejected_here} rejected here, {e1.reached} reached them "
            f"({e1.per_request:.2f} a request), {e1.served} served, {e1.refused} refused",
            f"{split}, slowdown day, tracking flow: {thr.tracking.rejected_here} rejected here "
            f"({_accepted(thr.tracking)} of its calls accepted)",
            f"{split}, healthy day: {_rejected(healthy)} rejected here",
            f"one pool, slowdown day: {_rejected(one)} rejected here "
            f"(tracking had {_accepted(one.tracking)} of its calls accepted, events {_accepted(one.event)}: "
            "K = 2 throttles only under half)",
        ]
    )


def orders_live(make: Make = throttle.AdaptiveThrottle) -> tuple[throttle.OrdersThrottleRun, ...]:
    """Lesson 004's limited Order Service without a throttle and with ``make``'s, side by side (about
    3 s) under a progress bar; interrupted, both runs' services close and the cell says so in one line."""
    total = 2 * int(throttle.ORDERS_RATE * throttle.ORDERS_SECONDS)
    progress = LiveProgress("orders", unit="orders ended", total=total)
    with progress.shown("Run this cell to run it live (a bar counts the orders)."):
        runs = run_sync(throttle.orders_runs(make, progress.on_progress))
    progress.done(f"done: {total} orders in {max(r.seconds for r in runs):.1f} s")
    return runs


def orders_table(runs: tuple[throttle.OrdersThrottleRun, ...]) -> pd.DataFrame:
    """Per client: what it asked for, rejected itself, sent; what the Order Service answered and
    counted; what Payment served (counts vary a little run to run)."""
    return pd.DataFrame(
        [
            {
                "client": "with the throttle" if r.throttled else "no throttle",
                "orders asked": r.asked,
                "rejected here": r.local,
                "sent": r.sent,
                "Order Service received": r.received,
                "refused (503)": r.refused,
                "served (200)": r.served,
                "Payment calls": r.payment_calls,
                "seconds": round(r.seconds, 2),
            }
            for r in runs
        ]
    ).set_index("client")


def orders_facts(runs: tuple[throttle.OrdersThrottleRun, ...], whose: str = "with the throttle") -> str:
    """What holds on any machine, busy or not."""
    plain, thr = runs
    yes = {True: "yes", False: "no"}
    return "\n".join(
        [
            f"lesson 004's limited Order Service ({throttle.LIMIT} running, {throttle.QUEUE} waiting, "
            f"a 503 at once when full), Payment slow at {throttle.ORDERS_SLOW:g} s; {plain.asked} orders "
            f"asked over {throttle.ORDERS_SECONDS:g} s",
            f"no throttle: every order asked reached the Order Service: {yes[plain.received == plain.asked]}",
            f"the Order Service counted exactly the orders each client sent: "
            f"{yes[all(r.received == r.sent for r in runs)]}",
            f"{whose}: under half the orders reached the Order Service: {yes[2 * thr.received < thr.asked]}",
            f"{whose}: the Order Service refused fewer at once (503): {yes[thr.refused < plain.refused]}",
        ]
    )
