"""Notebook 10's live runs as tables and fact lines: the facts (peaks, whether a limit bound, who kept the
SLO) are the same every run; timings stay out of them."""

from __future__ import annotations

import pandas as pd

from bulkhead_lab.live.stack import capstone, clients, h2, rate, throttle
from bulkhead_lab.live.stack.verdict import judge
from bulkhead_lab.live.sync import run_sync


def client_tables() -> tuple[list[clients.ClientRun], list[clients.ClientRun]]:
    """Section 1: every client with its defaults and configured with a limit of 10, all at once."""
    return run_sync(clients.both_tables())


def client_table(rows: list[clients.ClientRun]) -> pd.DataFrame:
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


def client_facts(rows: list[clients.ClientRun]) -> str:
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
                "rate x latency": r.littles_law,
            }
            for r in runs
        ]
    )


def rate_facts(runs: list[rate.RateRun]) -> str:
    """What stays true run after run: under the bucket the peak follows rate x latency; under the
    limit it never passes it."""
    lines = []
    for r in runs:
        ms = round(r.latency * 1000)
        if r.limiter == "rate":
            near = abs(r.peak - r.littles_law) <= max(3, 0.25 * r.littles_law)
            lines.append(
                f"token bucket, {ms} ms: in flight follows Little's Law (40/s x {r.latency:g} s = "
                f"{r.littles_law:g}): {'yes' if near else 'NO'}"
            )
        else:
            lines.append(f"concurrency limit {rate.LIMIT}, {ms} ms: peak at most {rate.LIMIT}: "
                         f"{'yes' if r.peak <= rate.LIMIT else 'NO'}")  # fmt: skip
    return "\n".join(lines)


def throttle_runs(make: object = throttle.AdaptiveThrottle) -> list[throttle.ThrottleRun]:
    """The refusing backend without a throttle, then with ``make`` (a class taking k)."""
    return [run_sync(throttle.throttle_run(None)), run_sync(throttle.throttle_run(make))]  # type: ignore[arg-type]


def throttle_facts(runs: list[throttle.ThrottleRun]) -> str:
    return "\n".join(
        f"{'with the throttle' if r.throttled else 'no throttle'}: {r.asked} requests asked, {r.local} "
        f"rejected here, {r.backend_calls} reached the backend, {r.accepted} accepted"
        for r in runs
    )


RIGHT_STACK_TEXT = (
    "payment and inventory: httpx.Limits(max_connections=10), httpx.Timeout(1.0); budgets 10% each"
)


def capstone_run(stack: object) -> capstone.StackRun:
    """One live capstone run (about 7 s)."""
    return run_sync(capstone.run_stack(stack))


def capstone_facts(run: capstone.StackRun) -> str:
    """The verdict's kind and the invariant facts of a run."""
    verdict = judge(run)
    pay, inv = run.compartments["payment"], run.compartments["inventory"]
    kept = not inv.failed and sum(t > capstone.SLO for t in inv.took) <= inv.requests // 100
    return "\n".join(
        [
            f"Payment held at most {run.payment_peak} calls at once (limit {pay.limit}): "
            f"{'within it' if pay.limit is not None and run.payment_peak <= pay.limit else 'NOT within it'}",
            f"requests still open {capstone.CUTOFF:g} s after the start: {sum(run.open_at_cutoff.values())}",
            f"Inventory kept its SLO: {'yes' if kept else 'no'}",
            f"verdict: {'Right' if verdict.ok else 'Not yet'}",
        ]
    )
