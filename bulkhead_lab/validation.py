"""One place that says which parameter values are allowed.

The API raises :class:`ValueError` with one line naming the parameter, its value and
the allowed range; the command line prints that same line and exits 2. The live demo
uses the same helpers for pool sizes, queues and ports.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Params

MODULUS = 2147483647  # 2**31 - 1: a seed that is a multiple of it gives a stuck generator
MAX_SEED = 2**53 - 1  # the seed must stay exact as a JavaScript number
MAX_ROUNDS = 1_000_000  # ~2.8 model hours at 100 rounds/s; bounds memory and time
MAX_ARRIVALS_PER_ROUND = 100.0  # Knuth's Poisson draw costs O(mean) per round


def _fail(name: str, value: object, allowed: str) -> ValueError:
    return ValueError(f"{name} must be {allowed} (got {value!r})")


def is_int(value: object) -> bool:
    """True for a real integer (``bool`` is not a pool size)."""
    return isinstance(value, Integral) and not isinstance(value, bool)


def check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    """Return ``value`` if it is an integer in ``low..high`` (``high`` None: no top)."""
    allowed = f"an integer >= {low}" if high is None else f"an integer in {low}..{high}"
    if not is_int(value):
        raise _fail(name, value, allowed)
    assert isinstance(value, Integral)
    if value < low or (high is not None and value > high):
        raise _fail(name, value, allowed)
    return int(value)


def check_real(name: str, value: object, low: float, high: float, *, low_open: bool = False) -> float:
    """Return ``value`` if it is a finite number in the range (``low`` excluded if open)."""
    allowed = f"a number {'>' if low_open else '>='} {low:g} and <= {high:g}"
    if isinstance(value, bool) or not isinstance(value, Real):
        raise _fail(name, value, allowed)
    v = float(value)
    if not math.isfinite(v) or v > high or v < low or (low_open and v == low):
        raise _fail(name, value, allowed)
    return v


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``choices``."""
    if value not in choices:
        raise _fail(name, value, "one of " + ", ".join(choices))
    assert isinstance(value, str)
    return value


def check_params(p: Params) -> None:
    """Refuse a model parameter set the lesson's model cannot run as written."""
    from .model import MODES

    total = check_int("total", p.total, 2)
    if p.split is not None:
        check_int("split", p.split, 1, total - 1)
    rounds = check_int("rounds", p.rounds, 1, MAX_ROUNDS)
    check_int("start", p.start, 0, rounds)
    check_int("hold_tracking", p.hold_tracking, 1)
    check_int("hold_event", p.hold_event, 1)
    check_int("slow", p.slow, 1)
    check_choice("mode", p.mode, MODES)
    cycle = check_real("cycle", p.cycle, 0.0, 1e9, low_open=True)
    top = MAX_ARRIVALS_PER_ROUND * cycle
    check_real("tracking_rate", p.tracking_rate, 0.0, top)
    check_real("event_rate", p.event_rate, 0.0, top)
    if not is_int(p.seed) or not 1 <= p.seed <= MAX_SEED or p.seed % MODULUS == 0:
        raise _fail("seed", p.seed, f"an integer in 1..{MAX_SEED} that is not a multiple of {MODULUS}")
