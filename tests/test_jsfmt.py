"""JavaScript's number formatting, where it differs from Python's."""

from __future__ import annotations

import subprocess

import pytest

from bulkhead_lab.pool.jsfmt import js_str, to_fixed

CASES = [
    0.125,
    0.0625,
    2.675,
    1.005,
    17.3125,
    -0.0004,
    0.5,
    1.5,
    2.5,
    49640.0,
    93.4846,
    1e-7,
    2.5e-6,
    1.5e17,
    40.0,
    4000 / 3,
    0.1 + 0.2,
]


def test_to_fixed_rounds_ties_away_from_zero_like_javascript() -> None:
    assert to_fixed(0.125, 2) == "0.13"  # Python's format gives 0.12
    assert to_fixed(2.5, 0) == "3"
    assert to_fixed(-0.0004, 3) == "-0.000"  # the sign survives rounding to zero


@pytest.mark.node
@pytest.mark.parametrize("x", CASES)
def test_formatting_equals_node(x: float, node: str) -> None:
    shown = "[x.toFixed(0), x.toFixed(1), x.toFixed(2), x.toFixed(3), String(x)]"
    js = f"const x = {x!r}; console.log({shown}.join('|'))"
    expected = subprocess.run([node, "-e", js], capture_output=True, text=True, check=True).stdout.strip()
    assert "|".join([to_fixed(x, 0), to_fixed(x, 1), to_fixed(x, 2), to_fixed(x, 3), js_str(x)]) == expected
