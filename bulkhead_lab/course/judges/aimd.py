"""Notebook 05's exercise 3: a learner's AIMD limiter judged against the course's :class:`AIMDLimit`.

The contract, as section 2 and the exercise state it: ``MyAIMD(initial, min_limit, max_limit)`` is one
limiter; ``on_sample(rtt, inflight, dropped)`` returns the new limit: the old one x 0.9, rounded down,
after a drop or a round trip *over* 500 ms (once, whichever), else one more when *at least half* the
limit was in flight, else the same; then kept within ``min_limit..max_limit``. The oracle is the
package's :class:`~bulkhead_lab.adaptive.limits.AIMDLimit` at backoff 0.9, timeout 500 ms; any real
number of the right value is a limit. Driven: :data:`TOUR` (one small scenario per stated boundary),
then generated scenarios (one limiter at and around every boundary; two or three interleaved; long
runs). A failure is named by its smallest case found, with a line that replays it in a cell.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import itertools
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from numbers import Number
from typing import Any

from hypothesis import strategies as st

from bulkhead_lab.adaptive.limits import AIMDLimit
from bulkhead_lab.course.judges.contract import Broke, Stuck, Verdict, first_broken, search, traced, untraced
from bulkhead_lab.course.ui.trial import DEADLINE, Fault, build, call, short_repr

BACKOFF, TIMEOUT = 0.9, 500.0  # the exercise's: back off by 0.9 on a drop or a round trip over 500 ms
CALL_BUDGET = 0.15  # seconds one call into the learner's code may take before it is named as stuck
NAMES = "abc"  # the limiters of one scenario, as the replay names them
Sample = tuple[float, int, bool]  # (rtt in ms, inflight, dropped), passed to on_sample in that order
Settings = tuple[int, int, int]  # (initial, min_limit, max_limit)
Given = list[tuple[int, Sample]]  # the samples given, in order, each with the index of its limiter


@dataclass(frozen=True)
class Step:
    """``times`` samples for limiter ``who``; in flight ``inflight`` plus 0 (``base`` "abs"), half the
    oracle's limit then, rounded up ("half"), or the limit ("limit"); never under 1 (the call itself)."""

    rtt: float
    inflight: int
    dropped: bool
    base: str = "abs"
    who: int = 0
    times: int = 1

    def sample(self, limit: int) -> Sample:
        start = {"abs": 0, "half": (limit + 1) // 2, "limit": limit}[self.base]
        return (self.rtt, max(1, start + self.inflight), self.dropped)


@dataclass(frozen=True)
class Plan:
    """One scenario: each limiter's settings (all built first), and the steps, in order."""

    settings: tuple[Settings, ...]
    steps: tuple[Step, ...]


def one(settings: Settings, *samples: Sample | Step) -> Plan:
    return Plan((settings,), tuple(s if isinstance(s, Step) else Step(*s) for s in samples))


# The stated boundaries, one scenario each, smallest first (the template's limit never moves: it fails
# the first). What each pins is in its comment; the expected limits are the oracle's.
TOUR = (
    one((20, 15, 22), (80, 12, False)),  # a success with at least half in flight: 21
    one((20, 15, 22), (0, 9, True)),  # a drop with no round trip: int(18.0) = 18
    one((20, 15, 22), (120, 9, True)),  # a drop after 120 ms (a deadline, a reset): 18
    one((20, 15, 22), (900, 10, False)),  # a round trip over 500 ms is a loss: 18
    one((20, 1, 200), (500, 10, False)),  # 500 ms is not over 500 ms; 10 is half of 20: 21
    one((20, 1, 200), (500.001, 10, False)),  # just over 500 ms: 18
    one((20, 1, 200), (499.999, 9, False)),  # under 500 ms, 9 under half of 20: 20
    one((21, 1, 200), (80, 10, False), (80, 11, False)),  # half of 21 is 10.5: 21, then 22
    one((15, 1, 200), (0, 1, True)),  # 13.5 rounded down: 13, not 14
    one((35, 1, 200), (0, 1, True)),  # 31.5 rounded down: 31, not 32
    one((22, 15, 22), (80, 22, False)),  # a success at the max stays at the max
    one((15, 15, 22), (0, 1, True)),  # a drop at the min stays at the min
    one((16, 15, 22), (0, 1, True)),  # int(14.4) = 14 is under the min: 15
    one((20, 1, 200), (900, 15, True)),  # a drop that is also slow backs off once: 18
    one((20, 1, 200), (0, 20, True)),  # a drop with the whole limit in flight: 18, no growth
    one((20, 1, 200), (900, 20, False)),  # a slow call with the whole limit in flight: 18
    one((5, 5, 5), (80, 5, False), (0, 1, True)),  # min equal to max: 5, 5
    one((1, 1, 200), (80, 1, False), (0, 1, True)),  # 1 in flight is half of 1: 2; int(1.8) = 1
    one((8, 1, 32), (6, 5, False), (0, 9, True), (22, 7, False)),  # section 2's steps (its timeout 500)
    one((20, 1, 200), Step(80, 200, False, times=300), Step(0, 1, True, times=60)),  # up to the max, down
    Plan(((20, 15, 22), (8, 1, 32)), (Step(80, 12, False), Step(80, 5, False, who=1))),  # side by side
)
SETTINGS = (20, 1, 200)  # what a limiter is built with first (section 6's live settings)

# Generated scenarios draw each step and each limiter's settings as one index into a table built once
# (Hypothesis's cost is per draw); an index shrinks to 0, so each table starts with its simplest entry.
RTTS = (80, 0, 500, 500.001, 499.999, 500.0, math.nextafter(500, 501), 499, 501, 20, 6, 900, 1000, 5000)
NEAR = [("half", 0), ("half", -1), ("half", 1), ("limit", 0), ("half", -2), ("half", 2), ("limit", 1)]
NEAR += [("abs", 1), ("abs", 400)]
INFLIGHTS = (1, 2, 3, 5, 10, 20, 50, 100, 200, 400)
REPEATS = (1, 2, 3, 10, 50, 100, 300)  # how many times a long run's step gives its sample


def _tables(rng: random.Random) -> tuple[list[Step], list[Step], list[Settings], list[Settings]]:
    """Samples at every boundary, then anywhere; absolute ones for long runs (a run reads as runs of one);
    settings at the bounds, then anywhere: narrow (bounds a long run reaches) and wide."""

    def rtt() -> float:
        return rng.randint(1, 2000) if rng.random() < 0.5 else round(rng.uniform(0.001, 5000), 3) or 0.001

    near = [Step(r if r or d else 80, n, d, b) for d in (False, True) for r in RTTS for b, n in NEAR]
    near += [Step(rtt(), rng.randint(-2, 400), rng.random() < 0.5, b) for b in ["half", "abs"] * 200]
    absolute = [Step(r if r or d else 80, n, d) for d in (False, True) for r in RTTS for n in INFLIGHTS]
    absolute += [Step(rtt(), rng.randint(1, 400), rng.random() < 0.3) for _ in range(200)]

    def bounds(low: int, span: int) -> Settings:
        return low + rng.choice([0, span, rng.randint(0, span)]), low, low + span

    narrow = [(20, 1, 200), (20, 15, 22), (8, 1, 32), (1, 1, 1), (5, 5, 5), (22, 15, 22), (15, 15, 22)]
    narrow += [bounds(rng.randint(1, 60), rng.randint(0, 200)) for _ in range(200)]
    wide = narrow + [bounds(rng.randint(1, 25), rng.randint(0, 12)) for _ in range(200)]
    wide += [bounds(rng.randint(1, 10**4), rng.randint(0, 10**5)) for _ in range(200)]
    return near, absolute, wide, narrow


SAMPLES, ABSOLUTE, WIDE, NARROW = _tables(random.Random(36))


def plans(limiters: tuple[int, int], most: int, times: int = 1) -> st.SearchStrategy[Plan]:
    """Scenarios of ``limiters`` (least, most) limiters and up to ``most`` steps; with ``times`` over 1,
    long runs: absolute samples, each given up to ``times`` times, to limiters of narrow bounds."""
    samples, table = (SAMPLES, WIDE) if times == 1 else (ABSOLUTE, NARROW)
    repeats = [r for r in REPEATS if r <= times]
    ways = len(repeats) * limiters[1]  # one index: the sample, whose, how many times

    def step(i: int) -> Step:
        way, n = i % ways, i // ways
        return replace(samples[n], who=way % limiters[1], times=repeats[way // limiters[1]])

    steps = st.integers(0, len(samples) * ways - 1).map(step)
    some = st.lists(steps, min_size=1, max_size=most // 4)  # what ``many`` shrinks to when it can
    settings = st.lists(st.sampled_from(table), min_size=limiters[0], max_size=limiters[1])
    drawn = st.tuples(settings, some | st.lists(steps, min_size=most // 4, max_size=most))
    return drawn.map(lambda d: Plan(tuple(d[0]), tuple(replace(s, who=s.who % len(d[0])) for s in d[1])))


def make(candidate: Any, settings: Settings) -> Callable[..., Any]:
    """The bound ``on_sample`` of ``candidate(*settings)`` (a class or a maker), or a one-line Fault."""
    if isinstance(candidate, type):
        made = build(candidate, *settings)
    elif inspect.isfunction(candidate):  # a function that returns a limiter works as a class does
        made = call(candidate, *settings)
    else:
        raise Fault(f"{short_repr(candidate)} is not a class: pass the class itself, e.g. check(MyAIMD).")
    name, on_sample = f"{getattr(candidate, '__name__', 'MyAIMD')}{settings}", getattr(made, "on_sample", 0)
    if not callable(on_sample):
        raise Fault(f"{name} has no on_sample method: define on_sample(self, rtt, inflight, dropped).")
    if inspect.iscoroutinefunction(on_sample):
        raise Fault(f"{name}'s on_sample is an async def: this asks for a plain def.")
    return on_sample


def drive(candidate: Any, plan: Plan) -> None:
    """Each sample of ``plan`` to the learner's limiters and the oracle's; :class:`Missed` at a miss."""
    oracles = [AIMDLimit(*s, backoff_ratio=BACKOFF, timeout=TIMEOUT) for s in plan.settings]
    learners = _built(candidate, plan)
    given: Given = []
    returned: list[object] = []
    expected: list[int] = []
    for step in plan.steps:
        for _ in range(step.times):
            before = oracles[step.who].limit
            sample = step.sample(before)
            given.append((step.who, sample))
            expected.append(oracles[step.who].on_sample(*sample))
            got, fault = _asked(learners[step.who], sample)
            returned.append(got if fault is None else fault)
            if fault is None and (
                got == expected[-1] if type(got) is int else traced(_same, got, expected[-1])
            ):
                continue  # anything but an int is compared under the deadline: its __eq__ is the learner's
            said = fault or f"the last on_sample returned {traced(short_repr, got)}"
            said += " (each before it was right)" if fault is None and len(given) > 1 else ""
            reason = f"the contract expects {expected[-1]}: {why(before, sample, plan.settings[step.who])}"
            raise Missed(_broke(candidate, plan, given, said, reason), plan, given, returned, expected)


class Missed(Broke):
    """A :class:`Broke` that keeps its scenario: the plan, the samples given, what came back, the limits."""

    def __init__(self, broke: Broke, plan: Plan, given: Given, returned: list[object], limits: list[int]):
        super().__init__(broke.case, broke.got, broke.expected, broke.replay)
        self.plan, self.given, self.returned, self.limits = plan, given, returned, limits


def _built(candidate: Any, plan: Plan) -> list[Callable[..., Any]]:
    """The learner's limiters for ``plan``, or :class:`Broke` naming the settings it could not build."""
    try:
        return [traced(make, candidate, s) for s in plan.settings]
    except (Fault, Stuck) as fault:
        built = "; ".join(f"{getattr(candidate, '__name__', 'MyAIMD')}{s}" for s in plan.settings)
        said = str(fault).rstrip(".") or f"{built} was still running after {CALL_BUDGET:g} s"
        case = " and ".join(f"initial {i}, min_limit {lo}, max_limit {hi}" for i, lo, hi in plan.settings)
        within = "the contract builds one for any initial within min_limit..max_limit"
        raise Broke(f"built with {case}", said, within, built) from None


def _asked(on_sample: Callable[..., Any], sample: Sample) -> tuple[object, str | None]:
    """What ``on_sample(*sample)`` returned, or None and the line of what it raised (or that it hung)."""
    try:
        return traced(call, on_sample, *sample), None
    except (Fault, Stuck) as fault:
        hung = f"on_sample{sample!r} was still running after {CALL_BUDGET:g} s"
        return None, str(fault).rstrip(".") or hung


def _same(got: object, expected: object) -> bool:
    """``got`` is ``expected``: a number (numpy's, a Decimal; not a bool) of its value, or the same."""
    if isinstance(expected, Number) and not isinstance(expected, bool):
        with contextlib.suppress(Exception):
            return isinstance(got, Number) and not isinstance(got, bool) and bool(got == expected)
        return False
    return repr(got) == repr(expected)


def _shared(candidate: Any, missed: Missed) -> Broke | None:
    """The case of two runs when the same samples given to new limiters of the same settings come back
    otherwise (a limit every limiter shares: a global, a class attribute, a default argument)."""
    if "still running" in str(missed.returned[-1]):
        return None  # a call that hangs hangs again: no second run
    try:
        learners = _built(candidate, missed.plan)
    except Broke:
        return None
    for n, (who, sample) in enumerate(missed.given):
        got, fault = _asked(learners[who], sample)
        if not _same(got if fault is None else fault, missed.returned[n]):
            return _twice(candidate, missed, n, got if fault is None else fault)
        if fault is not None:
            return None
    return None


def final(candidate: Any, broke: Broke, until: float) -> Broke:
    """The case to name for ``broke``: two runs when the limiters share their limit, else its samples
    (Hypothesis shrank the scenario) made fewer while they still fail, until ``until``."""
    if not isinstance(broke, Missed):
        return broke
    twice, best = _shared(candidate, broke), broke
    while twice is None and (smaller := _smaller(candidate, best, until)) is not None:
        best = smaller
    return twice or best


def _smaller(candidate: Any, missed: Missed, until: float) -> Missed | None:
    """A smaller failing scenario: a run of equal samples fewer or shorter, or a limiter fewer; or None."""
    runs = [Step(*s, "abs", who, len(list(g))) for (who, s), g in itertools.groupby(missed.given)]
    settings = missed.plan.settings
    tries = [(settings, runs[:i] + runs[i + 1 :]) for i in range(len(runs) - 1)]
    tries += [(settings, runs[:i] + [replace(r, times=r.times // 2)] + runs[i + 1 :])
              for i, r in enumerate(runs) if r.times > 1]  # fmt: skip
    unused = [k for k in range(len(settings)) if len(settings) > 1 and all(r.who != k for r in runs)]
    tries += [(settings[:k] + settings[k + 1 :], [replace(r, who=r.who - (r.who > k)) for r in runs])
              for k in unused]  # fmt: skip
    for fewer, steps in tries:
        if time.thread_time() > until:
            return None
        try:
            drive(candidate, Plan(fewer, tuple(steps)))
        except Missed as smaller:
            return smaller
        except Broke:
            pass
    return None


def why(limit: int, sample: Sample, settings: Settings) -> str:
    """Why AIMD's limit after ``sample`` at ``limit`` is what it is, from the case's own numbers."""
    rtt, inflight, dropped = sample
    _, low, high = settings
    backed = int(limit * BACKOFF)
    if dropped:
        said = f"a drop backs {limit} off to int({limit} x 0.9) = {backed}"
        said += f" (once, though its {rtt!r} ms is over 500 too)" if rtt > TIMEOUT else ""
        new = backed
    elif rtt > TIMEOUT:
        said, new = f"{rtt!r} ms is over 500 ms, a loss: int({limit} x 0.9) = {backed}", backed
    else:
        said = f"{rtt!r} ms is not over 500 ms, so a success" if rtt >= TIMEOUT - 1 else "a success"
        if inflight * 2 >= limit:
            said, new = f"{said} with {inflight} in flight, at least half of {limit}: {limit + 1}", limit + 1
        else:
            said, new = f"{said} with {inflight} in flight, under half of {limit}: it stays {limit}", limit
    kept = min(high, max(low, new))
    return said + (f", kept within {low}..{high}: {kept}" if kept != new else "")


def _runs(samples: Sequence[Sample]) -> str:
    """``samples`` as a Python list expression, equal neighbours run together: ``[(80, 12, False)] * 3``."""
    parts: list[str] = []
    for sample, group in itertools.groupby(samples):
        n = len(list(group))
        if n == 1 and parts and "*" not in parts[-1]:
            parts[-1] = f"{parts[-1][:-1]}, {sample!r}]"
        else:
            parts.append(f"[{sample!r}]" + (f" * {n}" if n > 1 else ""))
    return " + ".join(parts)


def _shown(samples: Sequence[Sample]) -> str:
    """The samples as a case names them, ``(80, 12, False) x 3``; many by their number and the last."""
    text = _runs(samples).replace("] * ", " x ").replace("[", "").replace("]", "").replace(" + ", ", ")
    many = f"{len(samples)} samples (the replay lists them), the last {samples[-1]}"
    return text if len(text) <= 240 else many


def _named(candidate: Any, settings: tuple[Settings, ...], given: Given) -> tuple[str, str]:
    """The case (the limiters built, the samples given in order) and a replay that prints the returns."""
    name = getattr(candidate, "__name__", "MyAIMD")
    if len(settings) == 1:
        samples = [s for _, s in given]
        replay = f"a = {name}{settings[0]}; print([a.on_sample(*s) for s in {_runs(samples)}])"
        return f"{name}{settings[0]} given {_shown(samples)}", replay
    names = NAMES[: len(settings)]
    built = f"{', '.join(names)} = {', '.join(f'{name}{s}' for s in settings)}"
    calls = ", ".join(f"{names[who]}.on_sample{s!r}" for who, s in given)
    case = f"{('two', 'three')[len(names) - 2]} limiters side by side, {built}, then {calls}"
    return case, f"{built}; print([{calls}])"


def _broke(candidate: Any, plan: Plan, given: Given, got: str, expected: str) -> Broke:
    """What came back and what the contract expects, in the case of ``given``."""
    case, replay = _named(candidate, plan.settings, given)
    if len(plan.settings) > 1:
        got = got.replace("the last on_sample", f"{NAMES[given[-1][0]]}'s last on_sample")
    return Broke(case, got, expected, replay)


def _twice(candidate: Any, missed: Missed, n: int, again: object) -> Broke:
    """The case of two runs of the same first ``n + 1`` samples, each on new limiters, that differ."""
    case, replay = _named(candidate, missed.plan.settings, missed.given[: n + 1])
    first, second = (g if isinstance(g, str) else short_repr(g) for g in (missed.returned[n], again))
    said = f"the last call returned {first} the first time and {second} the second"
    same = "the same settings and samples give the same limits, whatever was built before"
    expected = f"the contract expects {missed.limits[n]} both times: {same}"
    return Broke(f"{case}, then the same on new limiters", said, expected, f"{replay}; {replay}")


# --- the judge ------------------------------------------------------------------------------

PROPERTIES = (
    "each limit on_sample returns is AIMD's (x 0.9 rounded down after a drop or a round trip over 500 ms, "
    "one more with at least half the limit in flight, then within min_limit..max_limit), at 500 ms and "
    "just over, at half an even and an odd limit and one either side, at the min and the max, and anywhere",
    "two and three limiters driven interleaved keep their own limits, and a new one starts at its own",
    "runs of up to 2,400 samples",
)
SEARCHES = ((50, (1, 1), 40, 1), (30, (2, 3), 32, 1), (10, (1, 1), 8, 300))  # (scenarios, limiters, ...)


def judge_aimd(candidate: object) -> Verdict:
    """The verdict on a learner's limiter: :data:`TOUR`, then generated scenarios (fewer if a slow limiter
    spends the trial's CPU time); Right naming how many held, or the smallest failing case found. Its clock
    is this thread's CPU time, as the trial's deadline is: other work on the machine changes nothing."""
    deadline = time.thread_time() + DEADLINE + 0.2
    make(candidate, SETTINGS)  # not a class, no on_sample, __init__ raises: one line, before any scenario
    with untraced(deadline, budget=CALL_BUDGET):
        prop = functools.partial(drive, candidate)
        found, checked, searched = first_broken(prop, TOUR), len(TOUR), 0
        for examples, limiters, most, times in SEARCHES:
            if found is not None or time.thread_time() > deadline - 1.0:
                break
            found = search(prop, plans(limiters, most, times), examples=examples)
            checked, searched = checked + examples, searched + 1
        if found is not None:
            return Verdict.broke(final(candidate, found, min(time.thread_time() + 0.3, deadline - 0.8)))
    return Verdict.right(checked, PROPERTIES[: max(1, searched)])
