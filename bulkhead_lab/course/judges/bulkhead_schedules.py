"""The schedules notebook 04's bulkhead judge runs (:mod:`~bulkhead_lab.course.judges.bulkhead`): what one
is, how Hypothesis's bytes become one, how one is written (``"arrive, arrive | finish 1 / cancel 2"``),
told as numbered steps, and made smaller while it still fails.

A schedule is a list of loop ticks, each a few events applied in one go: a call arrives (at bulkhead ``a``, or
at a second one, ``b``), a running call finishes, fails (its fn raises ValueError) or is interrupted (its fn
raises a BaseException), a call is cancelled. Calls are numbered 1, 2, ... as they arrive, at either bulkhead.
In writing, events are separated by ", "; " | " ends a tick after which the loop settles (runs a few steps,
see ``bulkhead.SETTLE``), " / " one after which it runs one loop step only, so the next events come before
what the last ones set off has resumed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

KINDS = ("arrive", "finish", "cancel", "fail", "interrupt", "arrive b", "finish", "arrive")  # by byte % 8
Event = tuple[str, Any]  # ("arrive", 0 | 1) or (kind, n), n a call's number or, to finish every call, "all"
Tick = tuple[tuple[Event, ...], bool]  # its events, and whether only one loop step follows
LAST: Tick = ((("finish", "all"),), False)  # every call still running or waiting finishes

# Each promise of section 4 on its smallest schedule, run before the generated ones: (limit, queue), b's
# sizes or None, the schedule.
PROBES = (
    ((1, 1), None, "arrive | arrive | arrive | finish all"),  # one runs, one waits, one is refused
    ((1, 0), None, "arrive | arrive | finish all"),  # no waiting place: refused at once
    ((1, 1), (1, 1), "arrive | arrive b | arrive | arrive b | finish all"),  # two bulkheads, independent
    ((2, 2), None, "arrive, arrive, arrive, arrive, arrive | finish 2 | finish all"),
    ((1, 2), None, "arrive | arrive | arrive | finish 1 | finish all"),  # first come, first served
    ((3, 3), None, "arrive, arrive, arrive, arrive, arrive, arrive, arrive | finish 2 | finish 1, finish 3"),
    ((1, 1), None, "arrive | arrive | fail 1 | finish all"),  # a call that raises gives its place back
    ((1, 1), None, "arrive | arrive | interrupt 1 | finish all"),  # a BaseException too
    ((1, 1), None, "arrive | arrive | cancel 1 | finish all"),  # a running call cancelled too
    ((1, 1), None, "arrive | arrive | finish 1, arrive | finish all"),  # no barging
    ((2, 2), None, "arrive, arrive, arrive | finish 1, finish 2, arrive | finish all"),  # two places freed
    ((1, 1), None, "arrive | arrive | cancel 2 | arrive | finish all"),  # a cancelled waiter costs no place
    ((1, 1), None, "arrive | arrive | cancel 2 | finish 1 | finish all"),
    ((1, 3), None, "arrive | arrive | arrive | arrive | cancel 3 | finish 1 | finish all"),  # from mid-line
    ((1, 1), None, "arrive | arrive | finish 1, cancel 2 | finish all"),
    ((1, 1), None, "arrive | arrive | finish 1 / cancel 2 | arrive | finish all"),  # handed, then cancelled
)


@dataclass(frozen=True)
class Plan:
    """One schedule to run: the sizes, a second bulkhead's or None, the ticks, and whether its events name
    calls by a generated pick (see ``bulkhead._resolve``) or by their numbers."""

    sizes: tuple[int, int]
    twin: tuple[int, int] | None
    ticks: tuple[Tick, ...]
    picks: bool = False


def events(code: bytes) -> list[Tick]:
    """A generated schedule's bytes as ticks, the smaller the simpler: 0 is no event; else, less 1, the low
    3 bits are the kind (:data:`KINDS`), the next 2 what follows (0: the loop settles, 1 or 3: the next
    event in the same tick, 2: one loop step), the top 3 which call it applies to (a pick)."""
    ticks: list[Tick] = []
    tick: list[Event] = []
    for byte in code:
        if not byte:
            continue
        kind, then, pick = KINDS[(byte - 1) % 8], (byte - 1) // 8 % 4, (byte - 1) // 32
        tick.append(("arrive", int(kind == "arrive b")) if kind.startswith("arrive") else (kind, pick))
        if then in (0, 2):
            ticks.append((tuple(tick), then == 2))
            tick = []
    return ticks + ([(tuple(tick), False)] if tick else [])


def sizes(byte: int) -> tuple[int, int]:
    """(limit, queue), limit 1..4 and queue 0..4, from one byte (0: (1, 0))."""
    return 1 + byte % 4, byte // 4 % 5


def plan(code: bytes) -> Plan:
    """A generated schedule: its first byte the sizes, its second a second bulkhead's (none below 128),
    the rest its events (see :func:`events`); at the end every call still there finishes."""
    twin = sizes(code[1] - 128) if code[1] >= 128 else None
    return Plan(sizes(code[0]), twin, (*events(code[2:]), LAST), picks=True)


_EVENT = re.compile(r"^(arrive)(?: ([ab]))?$|^(finish|fail|interrupt|cancel) (\d+|all)$")


def parse(text: str) -> tuple[Tick, ...]:
    """``"arrive, arrive | cancel 2 / finish 1 | arrive b"`` as ticks (a ValueError names what is wrong)."""
    parts = re.split(r"\s*([|/])\s*", text.strip())
    ticks: list[Tick] = []
    for i in range(0, len(parts), 2):
        found: list[Event] = []
        for word in filter(None, (w.strip() for w in parts[i].split(","))):
            m = _EVENT.match(word)
            if m is None:
                raise ValueError(f"{word!r} is not arrive, arrive b, finish N, fail N, interrupt N, cancel N")
            n = None if m[1] else m[4] if m[4] == "all" else int(m[4])
            found.append(("arrive", int(m[2] == "b")) if m[1] else (m[3], n))
        ticks.append((tuple(found), i + 1 < len(parts) and parts[i + 1] == "/"))
    return tuple(ticks)


def probes() -> list[Plan]:
    return [Plan(size, twin, parse(text)) for size, twin, text in PROBES]


def written(ticks: Sequence[Tick]) -> str:
    """The schedule as :func:`parse` reads it."""
    out = ""
    for tick, step in ticks:
        words = [("arrive" + (" b" if arg else "")) if k == "arrive" else f"{k} {arg}" for k, arg in tick]
        out += ", ".join(words) + (" / " if step else " | ")
    return out[:-3]


def event_text(event: Event, boxes: int, n: int = 0) -> str:
    """One event in words (``n``: the number of the call an arrival is)."""
    kind, arg = event
    if kind == "arrive":
        return f"call {n} arrives" + (f" at {'ab'[arg]}" if boxes > 1 else "")
    if arg == "all":
        return "every call still running or waiting finishes"
    verb = {"finish": "finishes", "fail": "fails (ValueError)", "cancel": "is cancelled",
            "interrupt": "is interrupted (a BaseException)"}[kind]  # fmt: skip
    return f"call {arg} {verb}"


def numbered(steps: Sequence[tuple[str, bool]]) -> list[str]:
    """The ticks' texts as a numbered list; a tick followed by one loop step only shares the next's item."""
    items: list[str] = []
    joined = ""
    for text, step in steps:
        if step:
            joined += f"{text} and, one loop step later, "
            continue
        items.append(f"{len(items) + 1}. {joined}{text}")
        joined = ""
    return items


def without(planned: Plan, drop: set[tuple[int, int]]) -> Plan:
    """``planned`` without the events at (tick, index) in ``drop``, and without the calls those arrivals
    were: the events naming them go, later calls are numbered down; a tick left empty goes."""
    gone: list[int] = []
    arrived = 0
    for t, (tick, _) in enumerate(planned.ticks):
        for i, (kind, _) in enumerate(tick):
            arrived += kind == "arrive"
            if kind == "arrive" and (t, i) in drop:
                gone.append(arrived)
    ticks: list[Tick] = []
    for t, (tick, step) in enumerate(planned.ticks):
        kept = [
            (kind, arg if kind == "arrive" or arg == "all" else arg - sum(g < arg for g in gone))
            for i, (kind, arg) in enumerate(tick)
            if (t, i) not in drop and (kind == "arrive" or arg == "all" or arg not in gone)
        ]
        ticks += [(tuple(kept), step)] if kept else []
    return replace(planned, ticks=tuple(ticks))


def smaller(planned: Plan) -> Iterator[Plan]:
    """Schedules a little simpler than ``planned``, the most simplifying first: no second bulkhead, a tick
    fewer, an event fewer, a tick that settles, smaller sizes, a failing call that finishes instead."""
    at = [(t, i) for t, (tick, _) in enumerate(planned.ticks) for i in range(len(tick))]
    if planned.twin:
        b = {(t, i) for t, i in at if planned.ticks[t][0][i] == ("arrive", 1)}
        yield replace(without(planned, b), twin=None)
    for t, (tick, _) in enumerate(planned.ticks):
        yield without(planned, {(t, i) for i in range(len(tick))})
    for t, i in at:
        if len(planned.ticks[t][0]) > 1:
            yield without(planned, {(t, i)})
    for t, (tick, step) in enumerate(planned.ticks):
        if step:
            yield replace(planned, ticks=(*planned.ticks[:t], (tick, False), *planned.ticks[t + 1 :]))
    yield from (replace(planned, sizes=size) for size in _less(planned.sizes))
    yield from (replace(planned, twin=size) for size in _less(planned.twin) if planned.twin)
    for t, i in at:
        kind, arg = planned.ticks[t][0][i]
        if kind in ("fail", "interrupt"):
            tick, step = planned.ticks[t]
            changed = (*tick[:i], ("finish" if kind == "fail" else "fail", arg), *tick[i + 1 :])
            yield replace(planned, ticks=(*planned.ticks[:t], (changed, step), *planned.ticks[t + 1 :]))


def _less(size: tuple[int, int] | None) -> list[tuple[int, int]]:
    """One running place fewer, one waiting place fewer: those that are sizes still."""
    limit, queue = size or (1, 0)
    return [s for s in ((limit - 1, queue), (limit, queue - 1)) if s[0] >= 1 and s[1] >= 0]
