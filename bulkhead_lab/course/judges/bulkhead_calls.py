"""Calls through a set of bulkheads, for notebook 04's judge (:mod:`~bulkhead_lab.course.judges.bulkhead`):
one :class:`Side` runs each call's ``execute(fn)`` as a task whose fn waits for its gate, and records what
became of it (waiting, running, returned, raised, refused, cancelled), the order the fns began in and the
first moment more ran than a limit allows. The learner's bulkheads and the course's are two sides of one
schedule; as each call arrives, each side also notes what the judge's leeway reads: the course's whether
a waiter handed a place or cancelled had not resumed yet, the learner's how many calls were waiting.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bulkhead_lab.course.judges.contract import error
from bulkhead_lab.course.ui.trial import Overtime, short_repr
from bulkhead_lab.live.bulkhead import Bulkhead


class Interrupted(BaseException):
    """What an interrupted call's fn raises: not an Exception, as KeyboardInterrupt is not."""


class Unawaited:
    """What an ``execute`` returned that returned ``fn()`` itself: a coroutine (closed, never awaited)."""

    def __repr__(self) -> str:
        return "fn() unawaited, a coroutine"


class Result:
    """What call ``n``'s fn returns: an object no other call's fn returns."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __repr__(self) -> str:
        return f"<call {self.n}'s result>"


@dataclass(eq=False)
class Call:
    """One call through one of a side's bulkheads, and what became of it."""

    n: int
    box: int  # 0: bulkhead a, 1: bulkhead b
    gate: asyncio.Future[str]  # its fn waits here for "finish", "fail" or "interrupt"
    result: Result
    entered: int = 0  # times its fn began
    left: bool = False  # its fn ended
    done: bool = False  # its execute returned or raised
    cancel: bool = False  # it was cancelled before it ended
    lagging: bool = False  # (the course's side) as it arrived, a waiter handed a place or cancelled had not
    # resumed yet: the learner's may refuse it if its line looked full (see ``seen``)
    may_queue: bool = False  # (the course's side) the leeway: the learner's may let it wait
    seen: int = 0  # (the learner's side) calls waiting as it arrived: not begun, not ended
    stalled: bool = False  # (the learner's side) as it arrived, calls waited with a running place free
    tolerated: bool = False  # (the course's side) cancelled to match the learner's refusal
    value: object = None
    raised: BaseException | None = None
    thrown: BaseException | None = None  # what its fn raised
    fault: str = ""
    task: asyncio.Task[None] | None = None


class Side:
    """A set of bulkheads (the learner's, or the course's) and every call through them."""

    def __init__(self, bulkheads: list[Any], sizes: list[tuple[int, int]], oracle: bool = False) -> None:
        self.bulkheads, self.sizes, self.oracle = bulkheads, sizes, oracle
        self.calls: list[Call] = []
        self.began: list[int] = []  # call numbers, in the order their fns began
        self.settled: tuple[int, set[int]] = (0, set())  # at the last settled tick: len(began), who waited
        self.inside = [0 for _ in bulkheads]  # calls whose fn has begun and not ended, per bulkhead
        self.over = ""  # the first moment more calls ran than a limit allows
        self.overtime: BaseException | None = None

    def arrive(self, box: int) -> None:
        loop = asyncio.get_running_loop()
        c = Call(len(self.calls) + 1, box, loop.create_future(), Result(len(self.calls) + 1))
        self.calls.append(c)
        c.task = loop.create_task(self._through(c))

    def apply(self, kind: str, n: int) -> None:
        c = self.calls[n - 1]
        if kind == "cancel":
            if c.task is not None and not c.done:  # a call already ended stays as it ended
                c.cancel = True
                c.task.cancel()
        elif not c.gate.done():
            c.gate.set_result(kind)

    async def _fn(self, c: Call) -> Result:
        c.entered += 1
        self.began.append(c.n)
        self.inside[c.box] += 1
        limit = self.sizes[c.box][0]
        if self.inside[c.box] > limit and not self.over:
            running = [o.n for o in self.calls if o.box == c.box and o.entered and not o.left]
            self.over = f"calls {_and(running)} ran at once{self.at(c.box)}, above the limit of {limit}"
        try:
            how = await c.gate
        finally:
            c.left = True
            self.inside[c.box] -= 1
        if how in ("fail", "interrupt"):
            c.thrown = ValueError(f"call {c.n} failed") if how == "fail" else Interrupted(f"call {c.n}")
            raise c.thrown
        return c.result

    async def _through(self, c: Call) -> None:
        bulkhead = self.bulkheads[c.box]
        if self.oracle:
            self._leeway(c, bulkhead)
        else:
            c.seen = sum(1 for o in self.calls if o.box == c.box and not o.entered and not o.done) - 1
            c.stalled = c.seen > 0 and self.inside[c.box] < self.sizes[c.box][0]
        try:
            made = bulkhead.execute(functools.partial(self._fn, c))
            if not inspect.isawaitable(made):
                c.fault = f"execute(fn) returned {short_repr(made)}, not something to await"
            else:
                c.value = await made
                if inspect.iscoroutine(c.value):
                    c.value.close()  # never awaited, so never warned about later
                    c.value = Unawaited()
        except BaseException as exc:  # whatever the learner's code raised is this call's outcome
            c.raised = exc.with_traceback(None)  # its type and words are enough: no frames kept alive
            if isinstance(exc, Overtime):
                self.overtime = exc
        finally:
            c.done = True

    def _leeway(self, c: Call, bulkhead: Bulkhead) -> None:
        """Is newcomer ``c`` arriving while waiters handed a place or cancelled have not resumed yet? Then
        the learner's may count them as waiting, or not, and refuse ``c`` or let it wait."""
        line = bulkhead.waiting
        live = sum(1 for place in line if not place.done())  # neither handed a place nor cancelled
        handed = bulkhead.running - self.inside[c.box]
        c.lagging = handed > 0 or any(o.cancel and not o.done for o in self.calls if o.box == c.box)
        c.may_queue = live < bulkhead.queue <= len(line)

    def signature(self) -> list[tuple[Any, ...]]:
        """Everything :meth:`status` reads of each call, in one comprehension (cheap under a trial's
        tracer): equal signatures, equal states."""
        return [
            (c.fault, c.tolerated, c.done, c.entered, c.left, c.raised is None, c.cancel, c.value is c.result,
             type(c.raised) is type(c.thrown))
            for c in self.calls
        ]  # fmt: skip

    def status(self, c: Call) -> str:
        if c.fault:
            return "fault"
        if c.tolerated:
            return "refused"
        if not c.done:
            return "waiting" if not c.entered else "running" if not c.left else "stuck"
        if c.raised is not None:
            if c.cancel:
                return "cancelled"
            if not c.entered:
                return "refused"
            return "raised" if type(c.raised) is type(c.thrown) else "raised other"
        return "returned" if c.entered == 1 and c.value is c.result else "returned other"

    def words(self, c: Call) -> str:
        """What became of call ``c``: as the learner's did it, or (the course's) as the contract has it."""
        s = self.status(c)
        if self.oracle:
            thrown = type(c.thrown).__name__ if c.thrown else "an error"
            return {"waiting": "waits", "running": "runs", "refused": "is refused at once",
                    "cancelled": "is cancelled", "returned": "returns its fn's result",
                    "raised": f"raises what its fn raised, {thrown}"}[s]  # fmt: skip
        if s in ("refused", "raised other"):
            fn = f", where its fn raised {error(c.thrown)}" if c.thrown else ""
            return f"{'was refused with' if s == 'refused' else 'raised'} {error(c.raised)}{fn}"
        if s == "returned other":
            ran = {0: " without running its fn", 1: ""}.get(c.entered, " (its fn ran twice)")
            return f"returned {short_repr(c.value)}{ran}"
        return {"waiting": "waits", "running": "runs", "stuck": "has not returned, though its fn has ended",
                "cancelled": "was cancelled", "returned": "returned its fn's result",
                "raised": "raised what its fn raised", "fault": c.fault}[s]  # fmt: skip

    def at(self, box: int) -> str:
        """ " at a" or " at b" when there are two bulkheads."""
        return f" at {'ab'[box]}" if len(self.bulkheads) > 1 else ""

    def state(self) -> str:
        """Who runs and who waits, at each bulkhead."""
        at = [
            f"running {[c.n for c in self.calls if c.box == b and self.status(c) == 'running']}, "
            f"waiting {[c.n for c in self.calls if c.box == b and self.status(c) == 'waiting']}"
            for b in range(len(self.bulkheads))
        ]
        return at[0] if len(at) == 1 else "; ".join(f"{'ab'[b]}: {s}" for b, s in enumerate(at))


def _and(ns: Sequence[int]) -> str:
    return ", ".join(map(str, ns[:-1])) + f" and {ns[-1]}" if len(ns) > 1 else str(ns[0])
