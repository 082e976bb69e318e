"""Lesson 000's ``run()`` transliterated line by line, lists and all.

Slow and obviously faithful: the fast port in ``bulkhead_lab.pool.rounds`` (a calendar per
flow, a precomputed stream drawn in floats) is checked against it on many parameter sets, so the
port is tested even where node is missing.
"""

from __future__ import annotations

import math

from bulkhead_lab.pool.params import Params


def literal_run(p: Params) -> dict[str, int]:
    s = p.seed % 2147483647

    def random() -> float:
        nonlocal s
        s = (s * 48271) % 2147483647
        return s / 2147483647

    def poisson(lam: float) -> int:
        big_l = math.exp(-lam)
        k, prob = 0, 1.0
        while True:
            k += 1
            prob *= random()
            if not prob > big_l:
                return k - 1

    pool = {"shared": p.total} if p.split is None else {"tracking": p.split, "event": p.total - p.split}
    busy: dict[str, list[int]] = {h: [] for h in pool}
    hold = {"tracking": p.hold_tracking, "event": p.hold_event}
    c = dict.fromkeys(
        ("tracking_responses", "tracking_dropped", "event_responses", "event_dropped", "idle", "busy_rounds"),
        0,
    )
    for t in range(p.rounds):
        for h in pool:
            busy[h] = [x for x in busy[h] if x > t]
        c["busy_rounds"] += sum(len(x) for x in busy.values())
        arrivals = ["tracking"] * poisson(p.tracking_rate / p.cycle)
        arrivals += ["event"] * poisson(p.event_rate / p.cycle)
        for i in range(len(arrivals) - 1, 0, -1):
            j = math.floor(random() * (i + 1))
            arrivals[i], arrivals[j] = arrivals[j], arrivals[i]
        for flow in arrivals:
            h = "shared" if p.split is None else flow
            slow = flow == "event" and p.mode == "slowdown" and t >= p.start
            duration = p.slow if slow else hold[flow]
            if len(busy[h]) < pool[h]:
                busy[h].append(t + duration)
                c[f"{flow}_responses"] += 1
                continue
            c[f"{flow}_dropped"] += 1
            for o in pool:
                if o != h:
                    c["idle"] += pool[o] - len(busy[o])
    return c
