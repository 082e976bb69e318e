"""Notebook 10's exercise 2: does the learner's throttle keep the SRE book's client-side throttling rule?

The contract (:class:`~bulkhead_lab.live.stack.throttle.AdaptiveThrottle`, the oracle): a throttle
built as ``MyThrottle(k)`` counts ``on_request()`` (a request the application asked for, sent or
rejected here) and ``on_accept()`` (one the backend accepted); ``probability()`` only asks (asked
twice, it answers the same and counts nothing) and is ``max(0, (requests - k x accepts) / (requests +
1))`` of the counts so far: 0 before any request, 0 while requests are no more than k x accepts, and
close to 1 when nothing is accepted. Its answer is any real number (numpy's included) within 1e-9 of
the oracle's; any ``k`` from 1 up, whole or fractional; each instance keeps its own counts.

:func:`check` drives the learner's class through the boundaries above (:data:`FIXED`) and
:data:`EXAMPLES` scenarios Hypothesis draws (the same ones every run: up to three instances with their
own ``k``, blocks of requests, accepts and asks interleaved), asking ``probability()`` after every
block, and names the smallest failing sequence with a line to replay it in a cell.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import strategies as st

from bulkhead_lab.course.judges.contract import EXITS, Broke, Verdict, as_real, first_broken, search
from bulkhead_lab.course.ui.trial import Fault, short_repr
from bulkhead_lab.live.stack.throttle import AdaptiveThrottle

KS = (2.0, 1.0, 1.5, 3.0, 1.1)  # the first is what shrinking tends to
NAMES = "abc"
EXAMPLES = 80
TOLERANCE = 1e-9
METHODS = ("on_request", "on_accept", "probability")


@dataclass(frozen=True)
class Block:
    """``n`` x ``on_request()`` ("request") or ``on_accept()`` ("accept", never more than requests not
    yet accepted) on instance ``who``; every block ends with ``probability()`` asked twice."""

    kind: str
    who: int
    n: int = 1


@dataclass(frozen=True)
class Scenario:
    ks: tuple[float, ...]
    blocks: tuple[Block, ...]


FIXED = (
    Scenario((2.0,), ()),  # before any request: 0
    Scenario((2.0,), (Block("request", 0),)),  # one request, none accepted: 1/2
    Scenario((2.0,), (Block("request", 0, 4), Block("accept", 0, 2))),  # requests = k x accepts: 0
    Scenario((2.0,), (Block("request", 0, 5), Block("accept", 0, 2))),  # one over: 1/6
    Scenario((1.5,), (Block("request", 0, 7), Block("accept", 0, 3))),  # a fractional k
    Scenario((2.0,), (Block("request", 0, 100),)),  # nothing accepted: 100/101
    Scenario((2.0, 1.0), (Block("request", 0, 3), Block("request", 1, 3), Block("accept", 1, 1))),
)
BLOCKS = st.builds(
    Block, st.sampled_from(("request", "accept")), st.integers(0, 2), st.integers(1, 40)
)  # fmt: skip
SCENARIOS = st.builds(
    Scenario, st.tuples(*(st.sampled_from(KS) for _ in NAMES)), st.lists(BLOCKS, max_size=12).map(tuple)
)  # fmt: skip


def statement(block: Block, name: str) -> str:
    call = f"{name}.on_{block.kind}()"
    return call if block.n == 1 else f"[{call} for _ in range({block.n})]"


class Drive:
    """One scenario on the learner's class beside the oracle; :class:`Broke` at the first answer unlike
    the oracle's, with every statement up to it as the replay."""

    def __init__(self, cls: type, scenario: Scenario) -> None:
        self.cls, self.scenario = cls, scenario
        self.made: dict[int, dict[str, Callable[[], object]]] = {}
        self.oracle: dict[int, AdaptiveThrottle] = {}
        self.said: list[str] = []

    def run(self) -> None:
        self.build(0)
        self.ask(0)
        for block in self.scenario.blocks:
            self.build(block.who)
            oracle = self.oracle[block.who]
            n = block.n if block.kind == "request" else min(block.n, oracle.requests - oracle.accepts)
            if n == 0:
                continue
            block = Block(block.kind, block.who, n)
            self.said.append(statement(block, NAMES[block.who]))
            for _ in range(n):
                self.send(block.who, f"on_{block.kind}")
                getattr(oracle, f"on_{block.kind}")()
            self.ask(block.who)

    def build(self, who: int) -> None:
        if who in self.made:
            return
        k = self.scenario.ks[who]
        self.said.append(f"{NAMES[who]} = {self.cls.__name__}({k!r})")
        try:
            throttle = self.cls(k)
        except EXITS as exc:
            raise self.broke(f"building it raised {type(exc).__name__}: {exc}", "where it builds") from None
        found = {m: getattr(throttle, m, None) for m in METHODS}
        missing = [m for m, f in found.items() if not callable(f)]
        if missing:
            raise self.broke(f"it has no {missing[0]}()", "where a throttle has on_request(), on_accept() "
                             "and probability()")  # fmt: skip
        self.made[who] = found  # type: ignore[assignment]
        self.oracle[who] = AdaptiveThrottle(k)

    def send(self, who: int, method: str) -> None:
        try:
            result = self.made[who][method]()
        except EXITS as exc:
            raise self.broke(
                f"{method}() raised {type(exc).__name__}: {exc}", "where it only counts"
            ) from None
        if inspect.iscoroutine(result):
            result.close()
            raise self.broke(f"{method}() returned a coroutine", "where the contract asks a plain def")

    def ask(self, who: int) -> None:
        name, oracle = NAMES[who], self.oracle[who]
        want = oracle.probability()
        for time in ("", " asked again"):
            self.said.append(f"{name}.probability()")
            try:
                said = self.made[who]["probability"]()
                got = as_real(said, "probability()")
            except Fault as fault:
                raise self.broke(str(fault).rstrip("."), self.why(oracle)) from None
            except EXITS as exc:
                raise self.broke(
                    f"probability() raised {type(exc).__name__}: {exc}", self.why(oracle)
                ) from None
            if not math.isclose(got, want, rel_tol=TOLERANCE, abs_tol=TOLERANCE):
                raise self.broke(f"probability(){time} returned {short_repr(said)}", self.why(oracle))
            self.said.pop()

    @staticmethod
    def why(oracle: AdaptiveThrottle) -> str:
        r, a, k, p = oracle.requests, oracle.accepts, oracle.k, oracle.probability()
        return (
            f"where the contract expects max(0, ({r} - {k:g} x {a}) / ({r} + 1)) = {p:.6g} "
            f"after {r} {'request' if r == 1 else 'requests'}, {a} accepted"
        )

    def broke(self, got: str, expected: str) -> Broke:
        return Broke("after the calls of the replay", got, expected, "; ".join(self.said))


def check(candidate: object) -> Verdict:
    """The verdict on ``candidate`` as a throttle class: every boundary and generated scenario kept,
    or the smallest failing one, named with its replay."""
    if not isinstance(candidate, type):
        raise Fault(f"{short_repr(candidate)} is not a class: pass the class itself, e.g. check(MyThrottle).")
    count = 0

    def holds(scenario: Scenario) -> None:
        nonlocal count
        count += 1
        Drive(candidate, scenario).run()

    found = first_broken(holds, FIXED) or search(holds, SCENARIOS, examples=EXAMPLES)
    if found is not None:
        return Verdict.broke(found)
    return Verdict.right(
        count,
        (
            "probability() is max(0, (requests - k x accepts) / (requests + 1)) after every block, "
            "within 1e-9: 0 before any request and while requests are at most k x accepts, 100/101 "
            "after 100 refused, fractional k",
            "asked twice it answers the same",
            "up to three throttles side by side keep their own counts and k",
        ),
    )
