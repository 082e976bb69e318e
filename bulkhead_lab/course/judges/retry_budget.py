"""Notebook 06's exercise 4: does the learner's retry budget keep the SRE book's rule, call by call?

The contract (section 2's :class:`~bulkhead_lab.retries.budgets.RetryBudget`, the oracle): a budget built
as ``MyBudget(ratio)`` counts every call its client sends, ``on_request()`` for a request's first call and
``on_retry()`` for a retry; ``can_retry()`` only asks (it counts nothing: asked twice, it answers the same)
and is true exactly while the retries sent are under ``ratio`` x the calls sent. Its answer is read as
Python's ``if`` reads it (``bool``): ``1.0`` and numpy's ``True`` are true. Any ratio from 0 (never retry)
up, 1 and over included; each instance keeps its own counts.

At a tie (retries exactly ``ratio`` x calls) the answer is false. Where binary floating point cannot hold
the ratio (0.1, 0.017) a product can round past the tie (``0.017 * 3000`` is ``51.00000000000001``, so the
oracle itself says True at 51 retries of 3000 calls, where ``51 / 3000 < 0.017`` says False), and either
answer is accepted at a tie of such a ratio. The ratios binary holds exactly (0, 0.25, 0.5, 1, 2) pin the
boundary.

:func:`check` drives the learner's class through :data:`FIXED` scenarios (section 2's worst case, a long
run, several instances at once) and :data:`EXAMPLES` generated ones (ratios 0 to 2, up to three instances
interleaved, blocks of requests, retries, repeated asks and section 2's loop, some blocks of hundreds of
calls), compares each ``can_retry()`` with the oracle's, and names the smallest failing sequence it finds
with a line to replay it in notebook 06 (whose section 2 defines ``worst_case``).

The scenarios are drawn with :mod:`random` from a fixed seed and a failing one is made smaller greedily
(:func:`smallest`), not with :func:`~bulkhead_lab.course.judges.contract.search`: under the trial's tracer
Hypothesis takes about 10 ms to draw one scenario of blocks, and the budget needs some 50,000 calls checked
in well under the trial's 2 s.
"""

from __future__ import annotations

import inspect
import random
import time
from collections.abc import Callable, Iterator, Sized
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from functools import cache
from types import ModuleType

from bulkhead_lab.course.judges.contract import EXITS, Broke, Verdict, as_bool, raised, returned
from bulkhead_lab.course.ui.trial import Fault, short_repr
from bulkhead_lab.retries.budgets import RetryBudget

RATIOS = (0.1, 0.5, 0.0, 1.0, 0.25, 2.0, 0.001, 0.01, 0.3, 1.5)  # the first is what shrinking tends to
LONG = 500  # the most calls of one kind in one block of a generated scenario
EXAMPLES = 240  # generated scenarios
SEED = 6  # their seed: the same scenarios, so the same verdict, every run
SHRINK_SECONDS = 0.4  # how long a failing scenario may be made smaller (well inside the trial's 2 s)
ATTEMPTS = 3  # section 2's loop: a request and at most two retries
NAMES = "abc"  # the instances, as the replay names them
KINDS = ("request", "retry", "ask", "loop")


@dataclass(frozen=True)
class Block:
    """One block of calls on instance ``who``: ``n`` x ``on_request()`` ("request"); ``n`` refused calls
    retried while the budget allows, each ``can_retry()`` then ``on_retry()`` when true ("retry"); one
    ``can_retry()`` and nothing sent ("ask"); ``n`` requests through section 2's loop, every call refused,
    3 attempts ("loop": the notebook's ``worst_case(budget, n)``)."""

    kind: str
    who: int
    n: int = 1


@dataclass(frozen=True)
class Scenario:
    ratios: tuple[float, ...]  # instance i is MyBudget(ratios[i]), built when first used
    blocks: tuple[Block, ...]


def expected(ratio: float, calls: int, retries: int) -> set[bool]:
    """What ``can_retry()`` may answer after ``calls`` calls, ``retries`` of them retries: the course's
    RetryBudget's answer, or either at a tie the ratio's binary value may round past."""
    oracle = RetryBudget(ratio)
    oracle.calls, oracle.retries = calls, retries
    says = oracle.can_retry()
    decimal = Fraction(repr(ratio))
    if retries == decimal * calls and Fraction(ratio) != decimal:
        return {True, False}
    return {says}


def _why(ratio: float, calls: int, retries: int) -> str:
    """What the contract expects of ``can_retry()`` after ``calls`` calls, ``retries`` of them retries."""
    product = format((Decimal(repr(ratio)) * calls).normalize(), "f")
    allowed = expected(ratio, calls, retries)
    want = " or ".join(map(str, sorted(allowed, reverse=True)))
    counted = f"{retries} {'retry' if retries == 1 else 'retries'}"
    verb = "is" if retries == 1 else "are"
    under = f"{ratio!r} x {calls} {'call' if calls == 1 else 'calls'} = {product}"
    if len(allowed) == 2:
        said = f"exactly {under}, a tie floats may round past"
    else:
        said = f"{'' if want == 'True' else 'not '}under {under}"
    return f"where the contract expects {want}: {counted} {verb} {said}"


def statement(kind: str, name: str, n: int) -> str:
    """The replay's statement for ``n`` repeats of a block of ``kind`` on the budget called ``name``."""
    if kind == "loop":
        return f"await worst_case({name}, {n})"
    if kind == "ask":
        return f"{name}.can_retry()"
    if kind == "request":
        return f"{name}.on_request()" if n == 1 else f"[{name}.on_request() for _ in range({n})]"
    if n == 1:
        return f"{name}.can_retry() and {name}.on_retry()"
    return f"[{name}.on_retry() for _ in range({n}) if {name}.can_retry()]"


CALLS = [  # per instance: what the replay says for its on_request(), can_retry(), and a retry sent
    (f"{n}.on_request()", f"{n}.can_retry()", f"{n}.can_retry() and {n}.on_retry()") for n in NAMES
]
METHODS = ("on_request", "can_retry", "on_retry")
WANTED = "on_request(), can_retry() and on_retry()"
ASYNC = "where the contract asks a plain def, not an async def"


class Drive:
    """One scenario run on the learner's class beside section 2's RetryBudget (the oracle), call by call;
    :class:`Broke` at the first call that breaks the contract, with the replay of every call up to it."""

    def __init__(self, cls: type, scenario: Scenario) -> None:
        self.cls, self.scenario = cls, scenario
        self.made: dict[int, tuple[Callable[[], object], ...]] = {}  # who -> its three methods
        self.oracle: dict[int, RetryBudget] = {}
        self.said: list[str] = []  # the replay's statements of the blocks done
        self.now: list[str] = []  # the calls of this repeat of this block, the last the one made now
        self.block, self.times = Block("request", 0), 0  # the block under way, and its repeats done

    def run(self) -> None:
        for block in self.scenario.blocks:
            if block.kind in ("retry", "ask") and block.who not in self.made:
                continue  # the loop never asks before a request's first call: nor does the judge
            self.build(block.who)
            self.block = block
            self.repeat(block)
            self.now.clear()
            self.times = 0
            self.said.append(statement(block.kind, NAMES[block.who], block.n))

    def build(self, who: int) -> None:
        if who in self.made:
            return
        ratio = self.scenario.ratios[who]
        self.said.append(f"{NAMES[who]} = {self.cls.__name__}({ratio!r})")
        budget, fault = returned(self.cls, ratio)
        if fault is not None:
            raise self.broke(who, fault)
        self.made[who] = tuple(self.method(who, budget, name) for name in METHODS)
        self.oracle[who] = RetryBudget(ratio)

    def repeat(self, block: Block) -> None:
        """``block``'s calls: per repeat a request (and through the loop, up to two retries while the
        budget allows), a refused call retried if the budget allows, or one ask."""
        who, kind, now = block.who, block.kind, self.now
        on_request, can_retry, on_retry = self.made[who]
        oracle, (request_said, ask_said, retry_said) = self.oracle[who], CALLS[who]
        asks = ATTEMPTS - 1 if kind == "loop" else 1
        for self.times in range(1 if kind == "ask" else block.n):
            now.clear()
            if kind in ("request", "loop"):
                now.append(request_said)
                self.sent(who, on_request)
                oracle.calls += 1  # oracle.on_request()
                if kind == "request":
                    continue
            for _ in range(asks):
                now.append(ask_said)
                got, fault = returned(can_retry)
                if fault is not None:
                    raise self.broke(who, fault)
                if got is not True and got is not False:
                    got = self.truth(who, got)
                if got != oracle.can_retry() and got not in expected(
                    oracle.ratio, oracle.calls, oracle.retries
                ):
                    raise self.broke(who, f"it returned {short_repr(got)}")
                if not got or kind == "ask":
                    break
                now[-1] = retry_said
                self.sent(who, on_retry)
                oracle.calls, oracle.retries = oracle.calls + 1, oracle.retries + 1  # oracle.on_retry()

    def sent(self, who: int, fn: Callable[[], object]) -> None:
        """The learner's ``on_request()`` or ``on_retry()``: a raise or a coroutine is a :class:`Broke`."""
        if (fault := returned(fn)[1]) is not None:
            raise self.broke(who, fault, ASYNC if "coroutine" in fault else None)

    def method(self, who: int, budget: object, name: str) -> Callable[[], object]:
        """The built budget's ``name`` method; none is a :class:`Broke` naming the three the loop calls."""
        try:
            found = getattr(budget, name, None)
        except EXITS as exc:
            raise self.broke(who, raised(exc)) from None
        if not callable(found):
            raise self.broke(who, f"it has no method {name}()", f"where section 2's loop calls {WANTED}")
        return found

    def truth(self, who: int, value: object) -> bool:
        """``bool(value)``, as :func:`as_bool` reads it; an awaitable or a value with no truth: Broke."""
        if type(value) in (int, float) or type(value).__module__ == "numpy":
            try:
                return bool(value)
            except Exception:  # numpy's array of two has no truth: as_bool says so below
                pass
        try:
            return as_bool(value, CALLS[who][1])
        except Fault:
            if inspect.isawaitable(value):
                raise self.broke(who, f"it returned {short_repr(value)}, an awaitable", ASYNC) from None
            raise self.broke(who, f"it returned {short_repr(value)}, neither true nor false") from None
        except EXITS as exc:
            raise self.broke(who, f"the truth of {short_repr(value)} raised {type(exc).__name__}") from None

    def replay(self) -> str:
        now = list(self.now)
        if self.times and self.block.kind != "ask":
            now.insert(0, statement(self.block.kind, NAMES[self.block.who], self.times))
        return "; ".join([*self.said, *now])

    def broke(self, who: int, got: str, expect: str | None = None) -> Broke:
        """What broke at the call made now: the case (the budget, its counts, the call), ``got``, what
        the contract expects there and the replay."""
        name, ratio = NAMES[who], self.scenario.ratios[who]
        made = f"{name} = {self.cls.__name__}({ratio!r})"
        if who not in self.oracle:
            return Broke(
                made, got, expect or f"where the contract expects a budget with {WANTED}", self.replay()
            )
        oracle, others = self.oracle[who], len(self.made) - 1
        calls, retries = oracle.calls, oracle.retries
        last = self.now[-1].rsplit(" ", 1)[-1]
        if expect is None and last.endswith("can_retry()"):
            expect = _why(ratio, calls, retries)
        elif expect is None:
            expect = f"where {last} only counts {'a retry' if last.endswith('on_retry()') else 'a call'}"
        beside = f" (beside {others} other {'budget' if others == 1 else 'budgets'})" if others else ""
        sent = f"{calls} {'call' if calls == 1 else 'calls'} sent, {retries} of them "
        sent += "a retry" if retries == 1 else "retries"
        return Broke(f"{made}{beside}, after {sent}, then {self.now[-1]}", got, expect, self.replay())


@cache
def generated(count: int = EXAMPLES, seed: int = SEED) -> tuple[Scenario, ...]:
    """``count`` scenarios, the same every run: each instance's ratio a boundary (:data:`RATIOS`) or any
    of three decimals from 0 to 2; one to eight blocks of any kind on one to three instances, most of a
    few calls, some of up to 30, a few of up to :data:`LONG`."""
    draw = random.Random(seed)

    def ratio() -> float:
        return draw.choice(RATIOS) if draw.random() < 0.5 else draw.randint(0, 2000) / 1000

    def n() -> int:
        return draw.choices((draw.randint(1, 3), draw.randint(1, 30), draw.randint(1, LONG)), (20, 5, 1))[0]

    made = []
    for _ in range(count):
        instances = draw.choice((1, 1, 2, 3))
        blocks = [
            Block(draw.choice(KINDS), draw.randrange(instances), n()) for _ in range(draw.randint(1, 8))
        ]
        made.append(Scenario(tuple(ratio() for _ in NAMES), tuple(blocks)))
    return tuple(made)


def _blocks(*spec: tuple[str, int, int]) -> tuple[Block, ...]:
    return tuple(Block(kind, who, n) for kind, who, n in spec)


FIXED = (  # checked first, in this order: each a scenario the contract must hold on
    Scenario((0.1, 0.5, 0.0), _blocks(("loop", 0, 1000))),  # section 2's worst case
    Scenario((0.5, 1.0, 0.0), _blocks(("request", 0, 2), ("retry", 0, 2), ("ask", 0, 1), ("retry", 0, 1))),
    Scenario((0.0, 2.0, 1.0), _blocks(("loop", 0, 3), ("loop", 1, 3), ("loop", 2, 3))),
    Scenario(
        (0.25, 0.25, 0.1), _blocks(("loop", 0, 20), ("request", 1, 4), ("retry", 1, 3), ("retry", 0, 3))
    ),
    Scenario((0.1, 0.3, 0.001), _blocks(("request", 0, 3000), ("retry", 0, 400), ("loop", 0, 200))),
    Scenario(
        (0.01, 0.1, 0.5), _blocks(("loop", 1, 30), ("loop", 0, 300), ("request", 2, 1), ("retry", 2, 3))
    ),
)


def judged(cls: type, scenario: Scenario) -> None:
    """Run ``scenario`` on ``cls`` (the property): :class:`Broke` at the first call off the contract."""
    Drive(cls, scenario).run()


PROPERTIES = (
    "every can_retry() answered as section 2's RetryBudget answers it, call by call: true exactly while "
    "the retries sent are under ratio x every call sent, requests and retries",
    "false at the boundary, retries = ratio x calls (ratios 0 to 2, 0 and over 1 among them)",
    "asked again, the same answer (it only asks)",
    "up to 3 budgets at once, each with its own ratio and counts",
    "long runs: section 2's worst case of 1000 requests, 3000 requests then 400 retries",
)


def check(candidate: object) -> Verdict:
    """The verdict on the learner's retry budget class ``candidate``: the fixed scenarios, then the
    generated ones; the first that breaks the contract is shrunk to the smallest failing scenario found
    inside it, named with its calls and a replay."""
    if not isinstance(candidate, type):
        raise Fault(f"{short_repr(candidate)} is not a class: pass the class itself, e.g. check(MyBudget).")
    scenarios = [*FIXED, *generated()]
    for scenario in scenarios:
        try:
            judged(candidate, scenario)
        except Broke as broke:
            return Verdict.broke(smallest(candidate, scenario, broke))
    return Verdict.right(len(scenarios), PROPERTIES)


def smallest(cls: type, scenario: Scenario, broke: Broke) -> Broke:
    """The smallest failing scenario found inside ``scenario`` within :data:`SHRINK_SECONDS` (``broke``
    its own failure): blocks dropped, repeats cut, ratios made plainer, instances renamed, one change at a
    time while the contract still breaks. A budget keeping counts beyond its instance is named too."""
    end = time.monotonic() + SHRINK_SECONDS
    best = scenario
    while time.monotonic() < end:
        for smaller in inside(best):
            if time.monotonic() > end:
                break
            try:
                judged(cls, smaller)
            except Broke as why:
                best, broke = smaller, why
                break
        else:
            break  # nothing inside the best fails: it is as small as this search gets
    where = shared_state(cls)
    if where is None:
        return broke
    return Broke(
        f"{cls.__name__} keeps its counts in {where}, which every instance shares: {broke.case}",
        broke.got,
        f"{broke.expected} (a new budget counts from no calls: keep the counts on self)",
        broke.replay,
    )


def inside(scenario: Scenario) -> Iterator[Scenario]:
    """Scenarios one step smaller than ``scenario``, the biggest steps first."""
    blocks, ratios = scenario.blocks, scenario.ratios
    for i in range(len(blocks)):
        yield Scenario(ratios, blocks[:i] + blocks[i + 1 :])
    for i, block in enumerate(blocks):
        for n in dict.fromkeys((1, block.n // 2, block.n - 1)):
            if 0 < n < block.n:
                yield Scenario(ratios, blocks[:i] + (replace(block, n=n),) + blocks[i + 1 :])
    used = sorted({block.who for block in blocks})
    if used != list(range(len(used))):  # a, b, ... in the order the names go
        named = {who: i for i, who in enumerate(used)}
        plain = tuple(ratios[used[named[i]]] if i in named.values() else r for i, r in enumerate(ratios))
        yield Scenario(plain, tuple(replace(block, who=named[block.who]) for block in blocks))
    for who in used:
        for plainer in RATIOS[: RATIOS.index(ratios[who]) if ratios[who] in RATIOS else 4]:
            yield Scenario(ratios[:who] + (plainer,) + ratios[who + 1 :], blocks)


def _size(value: object) -> int | None:
    try:
        return len(value) if isinstance(value, Sized) else None
    except Exception:  # a learner's object with a broken __len__ is not a count
        return None


def _state(space: object) -> dict[str, tuple[int, int | None]]:
    """What a namespace holds beyond functions, classes and modules: each value's identity and size."""
    names = space if isinstance(space, dict) else vars(space)
    return {
        k: (id(v), _size(v))
        for k, v in list(names.items())
        if not k.startswith("__") and not callable(v) and not isinstance(v, ModuleType)
    }


def shared_state(cls: type) -> str | None:
    """Where ``cls``'s methods keep counts beyond the instance (a class attribute, a global), named as
    ``MyBudget.calls`` or ``the global calls``; None when a request, an ask and a retry change neither."""
    spaces: dict[str, object] = {f"{c.__name__}.": c for c in cls.__mro__ if c is not object}
    learners = getattr(getattr(cls, "on_request", None), "__globals__", None)
    if isinstance(learners, dict):
        spaces["the global "] = learners
    try:
        budget = cls(0.5)
        before = {name: _state(space) for name, space in spaces.items()}
        for name in METHODS:
            done = getattr(budget, name)()
            if inspect.iscoroutine(done):
                done.close()  # never awaited, never warned about
    except EXITS:
        return None
    for name, space in spaces.items():
        after = _state(space)
        for key, was in before[name].items():
            if after.get(key, was) != was:
                return f"{name}{key}"
    return None
