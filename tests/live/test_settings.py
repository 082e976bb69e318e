"""A run's settings are typed and checked once: the Order Service's, the burst load's, the steady load's.

The Literals are what mypy checks a misspelt variant, pool rule, outcome or kind against; at run
time the same names are the only values each dataclass takes, and every bad value is one line
naming the parameter and its range (no socket is opened here). The Order Service's settings are
test_serve's, through ``serve-orders``, which builds them.
"""

from __future__ import annotations

from typing import get_args

import pytest

from bulkhead_lab.live.orders.clients import Kind, Outcome, RequestResult
from bulkhead_lab.live.orders.load import OrdersLoad, orders_setup
from bulkhead_lab.live.orders.service import ALL_VARIANTS, OrderSettings, Variant
from bulkhead_lab.live.orders.socket_pools import POOL_RULES, PoolRule
from bulkhead_lab.live.orders.steady import SteadyLoad
from bulkhead_lab.live.placement.pools import PLACEMENTS, Placement


def test_the_literals_are_the_choices_each_check_takes() -> None:
    assert get_args(Variant) == ALL_VARIANTS == ("shared", "separate", "limited", "adaptive")
    assert get_args(PoolRule) == POOL_RULES == ("aiohttp", "node")
    assert get_args(Placement) == PLACEMENTS == ("single", "separate")
    assert get_args(Kind) == ("order", "stock")
    outcomes = {RequestResult("order", 1, status, 0.0, 0.0, 0.0).outcome for status in (200, 503, 502, 0)}
    assert outcomes == set(get_args(Outcome))


@pytest.mark.parametrize(
    ("make", "line"),
    [
        (lambda: OrdersLoad(slow_latency=-1), "slow_latency must be a number >= 0 and <= 60 (got -1)"),
        (lambda: OrdersLoad(orders=-1), "orders must be an integer in 0..10000 (got -1)"),
        (lambda: OrdersLoad(slow="yes"), "slow must be True or False (got 'yes')"),  # type: ignore[arg-type]
        (lambda: SteadyLoad(recover_for=-2), "recover_for must be a number >= 0 and <= 600 (got -2)"),
        (lambda: orders_setup("shared", keepalvie=True), "keepalvie is not a setting of a run: it takes "),
    ],
)
def test_every_bad_setting_is_one_line_naming_it(make, line: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError) as info:
        make()
    assert str(info.value).startswith(line) and "\n" not in str(info.value)


def test_a_cells_short_form_splits_into_the_services_settings_and_the_load() -> None:
    settings, load = orders_setup("shared", keepalive=True, pool_rule="node", slow=False, orders=5)
    assert settings == OrderSettings("shared", keepalive=True, pool_rule="node")
    assert (
        load == OrdersLoad(slow=False, orders=5) and load.requests == 15 and load.latency == load.fast_latency
    )
    assert OrdersLoad().slowdown == 3.0 and OrdersLoad(slow_latency=0.5).latency == 0.5
    assert SteadyLoad(rate=10, healthy_for=1, slow_for=2, recover_for=1).orders == 40
