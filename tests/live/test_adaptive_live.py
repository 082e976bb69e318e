"""Issue 13's live part: an adaptive limit around Payment, moved by each Payment call's round trip.

A steady load of orders (20 a second) while Payment is healthy, slow (1 s a call) for a
while, then healthy again. Facts are the limit's direction (it falls, then climbs again),
Payment's own count never above what the limit in force let in, and counts; no number of
milliseconds. Gradient2 is the default algorithm; its settings are :func:`live_spec`'s.
"""

from __future__ import annotations

import asyncio

import pytest
from loopback import listening_ports, until
from outside import http, serving

from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.orders.adaptive import AdaptiveSettings, live_spec
from bulkhead_lab.live.orders.load import OrdersLoad, run_orders
from bulkhead_lab.live.orders.reading.adaptive import adaptive_facts, over_limit
from bulkhead_lab.live.orders.steady import SteadyLoad, run_adaptive

pytestmark = [pytest.mark.anyio, pytest.mark.live]

STEADY = SteadyLoad(healthy_for=1.0, slow_for=4.0, recover_for=2.0, slow_latency=1.0)


async def test_gradient2s_limit_falls_in_a_slowdown_climbs_after_it_and_payment_follows() -> None:
    progress: list[tuple[int, int]] = []
    run = await run_adaptive(load=STEADY, on_progress=lambda done, total: progress.append((done, total)))
    facts = adaptive_facts(run)
    assert facts.algorithm == "Gradient2"
    assert facts.limit_before == 20  # a healthy Payment never fills half the limit: it stays put
    assert facts.limit_lowest <= 10 < facts.limit_before  # the slow round trips pull it down
    assert facts.limit_highest_after > facts.limit_lowest  # healthy round trips push it up again
    assert over_limit(run) == [] and facts.peak_within_limit  # Payment never held more than it let in
    start, stop = run.slow_window or (0.0, 0.0)
    pay = run.timelines["payment"]
    early = max(n for t, n in pay if start <= t < start + 1.0)
    late = max(n for t, n in pay if stop - 1.0 <= t < stop)
    assert late < early  # Payment's own count fell with the limit
    assert facts.refused[1] > 0  # the orders the lower limit turned away, at once
    assert run.payment.calls == run.served == len(run.orders) - run.refused
    assert progress[-1] == (len(run.orders), len(run.orders)) == (140, 140)
    assert run.bulkhead_after is not None and run.bulkhead_after["algorithm"] == "Gradient2"
    assert run.bulkhead_after["samples"] == run.served  # each answered call one sample


async def test_every_algorithm_runs_the_steady_load_and_keeps_payment_within_its_limit() -> None:
    for algorithm in ("Vegas", "aimd", "Envoy"):
        run = await run_adaptive(
            algorithm, SteadyLoad(rate=10.0, healthy_for=0.5, slow_for=1.0, recover_for=0.5)
        )
        assert over_limit(run) == [], algorithm
        assert run.served + run.refused == len(run.orders) == 20
        assert run.settings is not None and run.settings.algorithm.lower() == algorithm.lower()


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
        (
            {"algorithm": "Gradient3"},
            "algorithm must be one of AIMD, Vegas, Gradient2, Envoy (got 'Gradient3')",
        ),
        ({"limiter_options": {"queue": 4}}, "queue is not a setting of Gradient2: it takes initial, "),
        ({"limiter_options": {"initial": 0}}, "initial must be an integer in 1..200 (got 0)"),
        ({"limiter_options": {"max_limit": 5000}}, "max_limit must be an integer in 1..1000 (got 5000)"),
        ({"rate": 0}, "rate must be a number > 0 and <= 200 (got 0)"),
        ({"slow_for": -1}, "slow_for must be a number >= 0 and <= 600 (got -1)"),
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


async def test_an_interrupted_steady_load_leaves_nothing_listening() -> None:
    before = listening_ports()
    task = asyncio.create_task(run_adaptive(load=STEADY))
    await until(lambda: len(listening_ports() - before) == 3, "Payment, Inventory and Order Service up")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert listening_ports() == before
