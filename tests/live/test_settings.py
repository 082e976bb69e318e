"""A run's settings are typed and checked once: the Order Service's, the burst load's, the steady load's.

The Literals are what mypy checks a misspelt variant, pool rule, outcome or kind against (the
tuples each check takes are read from them); every bad value is one line naming the parameter and
its range (no socket is opened here). The Order Service's settings are
test_serve's, through ``serve-orders``, which builds them.
"""

from __future__ import annotations

from typing import get_args

import pytest

from bulkhead_lab.live.orders.clients import Outcome, RequestResult
from bulkhead_lab.live.orders.load import OrdersLoad, orders_setup
from bulkhead_lab.live.orders.service import OrderSettings
from bulkhead_lab.live.orders.steady import SteadyLoad


def test_each_status_an_answer_may_have_is_one_outcome_and_every_outcome_is_one_of_them() -> None:
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
