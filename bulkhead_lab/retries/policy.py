"""Retry policies: how many attempts a request gets, and how long a caller sleeps between them.

A bulkhead answers a full pool at once with a 503 ("busy, try again"); a caller that
retries turns each refusal into more load. The code between the saved-cells markers is
notebook 06's: the capped exponential, full jitter, and the retry loop
(:func:`call_with_retries`) that the live client runs (:mod:`bulkhead_lab.live.orders.clients`).
:mod:`bulkhead_lab.retries.budgets` says how many retries a client may send at all,
:mod:`bulkhead_lab.retries.experiments` measures what both do, and
:mod:`bulkhead_lab.retries.storm` puts them into lesson 000's seeded rounds. Sources:

- **Per-request cap.** Google SRE book, ch. 21 "Handling Overload", "Deciding to Retry": up
  to three attempts per request (:data:`SRE_MAX_ATTEMPTS`, :class:`RetryPolicy`).
- **Backoff and jitter.** Marc Brooker, "Exponential Backoff And Jitter" (AWS Architecture
  Blog, 2015) and its simulator (aws-samples/aws-arch-backoff-simulator,
  ``src/backoff_simulator.py``): after the n-th failed attempt ``expo(n) = min(cap, 2**n x
  base)``; full jitter ``uniform(0, expo(n))``; equal ``expo(n)/2 + uniform(0, expo(n)/2)``;
  decorrelated ``min(cap, uniform(base, last_sleep x 3))`` from ``last_sleep = base``
  (:class:`Backoff`), all exactly as there.
- **AWS SDK** (``standard`` mode): full jitter, 100 ms base, 20 s cap, 3 attempts (our
  defaults, in rounds). One departure: the SDKs count the exponent from 0 (aws-sdk-js-v3's
  ``defaultDelayDecider(base, retryCount)`` = ``floor(min(20 s, random x 2**retryCount x base))``
  with ``retryCount`` 0 before the first retry; botocore's ``rand x min(2**(attempt - 1),
  20)`` s), where Brooker's and ours start at ``2 x base``: with the same 100 ms base our
  sleeps are drawn below twice the SDK's (the SDK's exactly with half the base), and in
  seconds they are not rounded down to a millisecond.

Every draw comes from a ``random.Random`` seeded by the caller, through ``random()`` only
(whose sequence Python keeps for a given seed across versions); nothing here touches
lesson 000's arrival stream.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from bulkhead_lab.retries.budgets import RetryBudget
from bulkhead_lab.validation import check_choice, check_int, check_real, fail

# >>> saved cells: edit them in the notebook, then run `python -m bulkhead_lab.cells`
# Defined in notebooks/06_retries_and_budgets.ipynb, section 2. A retry loop, in code
REFUSED = 503  # a full bulkhead's answer: "busy, try again"


def capped_exponential(n: int, base: float, cap: float) -> float:
    """The longest sleep after the n-th refusal: `base` doubled n times, at most `cap`."""
    return min(cap, base * 2.0 ** min(n, 1023))


def full_jitter(n: int, base: float, cap: float, u: float) -> float:
    """The sleep after the n-th refusal: a share `u`, drawn uniformly from [0, 1), of it."""
    return u * capped_exponential(n, base, cap)


async def call_with_retries(
    call: Callable[[], Awaitable[int]],
    budget: RetryBudget,
    attempts: int,
    backoff: Callable[[int], float],
) -> int:
    """Await `call()` until it is not refused, at most `attempts` times. A retry goes only
    if `budget` allows it, after a sleep of `backoff(n)` seconds (n: refusals so far)."""
    budget.on_request()
    answer = await call()
    for n in range(1, attempts):
        if answer != REFUSED or not budget.can_retry():
            break
        budget.on_retry()
        await asyncio.sleep(backoff(n))
        answer = await call()
    return answer


# <<< saved cells


SRE_MAX_ATTEMPTS = 3  # SRE ch. 21: a per-request retry budget of up to three attempts

# The seeded model's defaults, in rounds (lesson 000: 100 rounds = 1 s). Our choice, stated:
# the AWS SDK's 100 ms base and 20 s cap, and the SRE book's (and the SDK's) 3 attempts.
BASE_ROUNDS = 10.0  # 100 ms
CAP_ROUNDS = 2000.0  # 20 s
JITTER_SEED = 20260806  # the retry RNGs' seed; lesson 000's stream keeps its own (20260801)

Jitter = Literal["none", "full", "equal", "decorrelated"]
JITTERS: tuple[Jitter, ...] = ("none", "full", "equal", "decorrelated")


# --- backoff ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Backoff:
    """Capped exponential backoff with no, full, equal or decorrelated jitter (Brooker's four);
    ``base`` and ``cap`` in the caller's unit (rounds in the seeded model)."""

    base: float = BASE_ROUNDS
    cap: float = CAP_ROUNDS
    jitter: Jitter = "full"

    def __post_init__(self) -> None:
        check_real("base", self.base, 0.0, 1e9, low_open=True)
        check_real("cap", self.cap, 0.0, 1e9, low_open=True)
        if self.cap < self.base:
            raise fail("cap", self.cap, f"a number >= base {self.base:g}")
        check_choice("jitter", self.jitter, JITTERS)

    def ceiling(self, n: int) -> float:
        """The capped exponential after the n-th failed attempt: ``min(cap, base * 2**n)``."""
        return capped_exponential(n, self.base, self.cap)

    def delay(self, n: int, u: float, previous: float | None = None) -> float:
        """The sleep after the n-th failed attempt (n = 1 after the first) for a uniform draw
        ``u`` in [0, 1); ``previous`` is the last sleep (decorrelated only; ``None``: ``base``)."""
        if self.jitter == "decorrelated":
            prev = self.base if previous is None else previous
            return min(self.cap, self.base + u * (prev * 3.0 - self.base))
        if self.jitter == "full":
            return full_jitter(n, self.base, self.cap, u)
        c = self.ceiling(n)
        if self.jitter == "none":
            return c
        return c / 2.0 + u * (c / 2.0)  # equal


def delay_rounds(delay: float) -> int:
    """A sleep as the retry's offset in rounds, ``max(1, ceil(delay))``: never the same round."""
    return max(1, math.ceil(delay))


@dataclass(frozen=True)
class RetryPolicy:
    """Up to ``attempts`` tries per request (the first included), sleeping ``backoff`` between.

    ``backoff=None`` retries at once (the next round). ``attempts=1`` never retries.
    """

    attempts: int = SRE_MAX_ATTEMPTS
    backoff: Backoff | None = Backoff()

    def __post_init__(self) -> None:
        check_int("attempts", self.attempts, 1, 100)

    @property
    def label(self) -> str:
        b = self.backoff
        how = "at once" if b is None else "no jitter" if b.jitter == "none" else f"{b.jitter} jitter"
        return "no retries" if self.attempts == 1 else f"{self.attempts} attempts, {how}"


NO_RETRIES = RetryPolicy(attempts=1, backoff=None)
