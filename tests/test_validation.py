"""Every model parameter has one allowed range, and a bad value says which."""

from __future__ import annotations

import pytest

from bulkhead_lab.pool.params import Params

BAD = [
    ("split", 0, "an integer in 1..31"),
    ("split", 32, "an integer in 1..31"),
    ("split", 2.5, "an integer in 1..31"),
    ("split", True, "an integer in 1..31"),
    ("total", 1, "an integer >= 2"),
    ("rounds", 0, "an integer in 1..1000000"),
    ("rounds", 1_000_001, "an integer in 1..1000000"),
    ("start", -1, "an integer in 0..4000"),
    ("start", 4001, "an integer in 0..4000"),
    ("hold_tracking", 0, "an integer >= 1"),
    ("hold_event", 1.5, "an integer >= 1"),
    ("slow", 0, "an integer >= 1"),
    ("tracking_rate", -0.01, "a number >= 0 and <= 10000"),
    ("event_rate", float("nan"), "a number >= 0 and <= 10000"),
    ("event_rate", 10001, "a number >= 0 and <= 10000"),
    ("cycle", 0, "a number > 0"),
    ("cycle", -5, "a number > 0"),
    ("seed", 0, "not a multiple of 2147483647"),
    ("seed", 2147483647 * 3, "not a multiple of 2147483647"),
    ("seed", -7, "an integer in 1.."),
    ("seed", "abc", "an integer in 1.."),
    ("mode", "broken", "one of healthy, slowdown"),
]


@pytest.mark.parametrize(("name", "value", "allowed"), BAD, ids=lambda v: str(v)[:20])
def test_a_bad_value_is_refused_in_one_line_naming_parameter_and_range(name, value, allowed) -> None:
    with pytest.raises(ValueError) as info:
        Params(**{name: value})
    message = str(info.value)
    assert message.startswith(f"{name} must be ")
    assert allowed in message
    assert repr(value) in message
    assert "\n" not in message


def test_the_split_range_follows_the_total() -> None:
    Params(total=4, split=3)
    with pytest.raises(ValueError, match=r"split must be an integer in 1\.\.3 "):
        Params(total=4, split=4)


def test_edges_of_every_range_are_allowed() -> None:
    Params(split=1), Params(split=31), Params(total=2, split=1), Params(rounds=1, start=0)
    (
        Params(start=4000),
        Params(tracking_rate=0, event_rate=0),
        Params(seed=2147483646),
        Params(seed=2147483648),
    )
