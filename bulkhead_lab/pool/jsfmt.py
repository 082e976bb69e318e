"""JavaScript's number formatting, so the lesson's printed text comes out byte for byte.

``Number.prototype.toFixed`` rounds the exact binary value half away from zero, where
Python's ``format`` rounds half to even; ``String(x)`` drops a trailing ``.0``.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal


def to_fixed(x: float, digits: int = 2) -> str:
    """``x.toFixed(digits)`` for ``|x| < 1e21`` (and JavaScript's NaN and Infinity)."""
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    q = Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    return f"{q:f}"  # a negative that rounds to zero keeps its sign, as in JavaScript


def js_str(x: float | int) -> str:
    """``String(x)`` for a finite number in JavaScript's plain (non-exponent) range."""
    if isinstance(x, int) or float(x).is_integer():
        return str(int(x))
    text = repr(float(x))  # shortest round-trip digits, as JavaScript picks them
    if 1e-6 <= abs(x) < 1e21:
        return f"{Decimal(text):f}"
    mantissa, _, exponent = text.partition("e")
    sign = "-" if exponent.startswith("-") else "+"
    return f"{mantissa}e{sign}{int(exponent.lstrip('+-'))}"
