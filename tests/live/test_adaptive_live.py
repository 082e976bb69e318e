"""Issue 13's live part: an adaptive limit around Payment, moved by each Payment call's round trip.

Gradient2 through notebook 05's slowdown (the limit falls, climbs again, Payment follows, refusals
while slow) is the live panel's ``checked()``, which nbval compares (cell c39); Vegas moved on that panel
is the browser tests' (MOVES["05_adaptive_limits.ipynb"]), and test_interrupts.py cancels a steady load at
random points. Here: the other algorithms, a burst, the command, and bad settings.
"""

from __future__ import annotations

import pytest
from outside import http, serving

from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.orders.adaptive import AdaptiveSettings, live_spec
from bulkhead_lab.live.orders.load import OrdersLoad, run_orders
from bulkhead_lab.live.orders.reading.adaptive import over_limit
from bulkhead_lab.live.orders.steady import SteadyLoad

pytestmark = [pytest.mark.anyio, pytest.mark.live]


async def test_aimd_and_envoy_run_the_steady_load_and_keep_payment_within_the_limit() -> None:
    for algorithm in ("aimd", "Envoy"):
        load = SteadyLoad(rate=10.0, healthy_for=0.5, slow_for=1.0, recover_for=0.5)
        run = await run_orders(AdaptiveSettings(algorithm=algorithm), load)
        assert over_limit(run) == [], algorithm
        assert run.served + run.refused == len(run.orders) == 20
        assert run.payment.calls == run.served  # a refused order never reached Payment
        assert run.settings is not None and run.settings.algorithm.lower() == algorithm.lower()
        assert run.bulkhead_after is not None and run.bulkhead_after["samples"] == run.served  # one a call


async def test_a_burst_meets_the_adaptive_limit_as_it_stands() -> None:
    run = await run_orders(AdaptiveSettings(), OrdersLoad(slow_latency=0.6, orders=30))
    assert run.bulkhead_busy is not None and run.bulkhead_busy["limit"] == 20  # nothing to judge yet
    assert (run.served, run.refused) == (25, 5)  # 20 running + 5 waiting, as a bulkhead(20, 5)
    assert run.payment.peak == 20 and over_limit(run) == []


def test_serve_orders_adaptive_reports_its_limit_and_algorithm_on_admin_bulkhead() -> None:
    with serving("serve-orders", "--variant", "adaptive", "--algorithm", "vegas") as s:
        order = s.port("Order Service")
        status, body = http(order, "GET", "/admin/bulkhead")
        assert status == 200
        assert (body["limit"], body["algorithm"], body["samples"], body["queueSlots"]) == (20, "Vegas", 0, 5)
        assert http(order, "POST", "/orders")[0] == 200
        body = http(order, "GET", "/admin/bulkhead?timeline=1")[1]
        assert body["samples"] == 1 and [row[4] for row in body["timeline"]] == [20, 20, 20]


@pytest.mark.parametrize(
    ("kwargs", "line"),
    [
        ({"limiter_options": {"queue": 4}}, "queue is not a setting of Gradient2: it takes initial, "),
        ({"limiter_options": {"initial": 0}}, "initial must be an integer in 1..200 (got 0)"),
        ({"rate": 0}, "rate must be a number > 0 and <= 200 (got 0)"),
        (
            {"rate": 200, "slow_for": 60},
            "rate x (healthy_for + slow_for + recover_for) must be at most 10000",
        ),
        ({"slow_for": 200}, "allow_long must be True for a run this long"),
    ],
)
async def test_a_bad_adaptive_run_is_one_line_and_starts_nothing(
    monkeypatch: pytest.MonkeyPatch, kwargs: dict[str, object], line: str
) -> None:
    def started(self: Dependency) -> None:
        raise AssertionError("a service was started for a run that was refused")

    monkeypatch.setattr(Dependency, "start", started)
    service = {k: kwargs.pop(k) for k in ("algorithm", "limiter_options") if k in kwargs}
    with pytest.raises(ValueError) as info:
        await run_orders(AdaptiveSettings(**service), SteadyLoad(**kwargs))  # type: ignore[arg-type]
    assert str(info.value).startswith(line) and "\n" not in str(info.value)


def test_the_live_settings_are_the_sources_but_the_floor_and_the_unit() -> None:
    spec = live_spec()
    assert dict(spec.settings) == {
        "initial": 20,
        "min_limit": 1,
        "max_limit": 200,
        "smoothing": 0.2,
        "queue_size": 4,
        "long_window": 600,
        "tolerance": 1.5,
    }
    assert live_spec("AIMD").get("timeout") == 5000.0  # the source's 5 s, in milliseconds
    assert AdaptiveSettings().pool_sizes() == {"payment": 200, "inventory": 5}
