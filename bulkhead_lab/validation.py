"""The one-line checks, made once where a value arrives: one line naming the parameter and its range.

A value is checked where it comes in: a function a notebook cell calls, a slider, a settings class, a
command-line option or an HTTP parameter. Inner functions trust what their callers checked (a
constant, or a value checked on its way in), so a check is not repeated at every layer.

The API raises :class:`ValueError` with one line naming the parameter, its value and
the allowed range; the command line prints that same line and exits 2; the live
services answer it as HTTP 400. Each module keeps the *ranges* of its own parameters
beside them (the model's in :mod:`bulkhead_lab.pool.params`, a pool's in
:mod:`bulkhead_lab.live.placement.pools`); this module only knows how to check and say them.
It imports nothing from the package, so anything may import it.
"""

from __future__ import annotations

import math
import re
from numbers import Integral, Real
from typing import TypeVar

Choice = TypeVar("Choice", bound=str)
_ASCII_INT = re.compile(r"[0-9]{1,12}")  # str.isdigit() would take '²' or '①', which int() refuses


def fail(name: str, value: object, allowed: str) -> ValueError:
    """The one-line error: ``name must be <allowed> (got <value>)``."""
    return ValueError(f"{name} must be {allowed} (got {value!r})")


def is_int(value: object) -> bool:
    """True for a real integer (``bool`` is not a pool size)."""
    return isinstance(value, Integral) and not isinstance(value, bool)


def int_range(low: int, high: int | None) -> str:
    """How an integer range reads in a message: ``an integer in 1..31`` or ``an integer >= 1``."""
    return f"an integer >= {low}" if high is None else f"an integer in {low}..{high}"


def check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    """Return ``value`` if it is an integer in ``low..high`` (``high`` None: no top)."""
    if not is_int(value):
        raise fail(name, value, int_range(low, high))
    number = int(value)  # type: ignore[call-overload]  # is_int() said Integral, which int() takes
    if number < low or (high is not None and number > high):
        raise fail(name, value, int_range(low, high))
    return number


def check_real(name: str, value: object, low: float, high: float, *, low_open: bool = False) -> float:
    """Return ``value`` if it is a finite number in the range (``low`` excluded if open)."""
    allowed = f"a number {'>' if low_open else '>='} {low:g} and <= {high:g}"
    if isinstance(value, bool) or not isinstance(value, Real):
        raise fail(name, value, allowed)
    v = float(value)
    if not math.isfinite(v) or v > high or v < low or (low_open and v == low):
        raise fail(name, value, allowed)
    return v


def check_choice(name: str, value: object, choices: tuple[Choice, ...]) -> Choice:
    """Return ``value`` if it is one of ``choices``, typed as they are (a ``Literal`` stays one)."""
    for choice in choices:
        if isinstance(value, str) and value == choice:
            return choice
    raise fail(name, value, "one of " + ", ".join(choices))


def parse_int(name: str, raw: str | None, low: int, high: int | None = None) -> int:
    """An integer typed as text (a query parameter, a form field): ASCII digits only, in range.

    ``None`` (the parameter is missing) is refused as "missing", not as "got None".
    """
    if raw is None:
        raise ValueError(f"{name} is missing: it must be {int_range(low, high)}")
    if not _ASCII_INT.fullmatch(raw):
        raise fail(name, raw, int_range(low, high))
    return check_int(name, int(raw), low, high)
