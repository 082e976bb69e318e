"""Lesson 003's batches on real sockets, beyond what notebook 03 shows.

The lesson's facts at its own numbers (each batch's peaks, its catalog done before, its duration over
its ideal), the ideal durations and the code cost are notebook 03's claims table and ideal table
(cells c38 and c13), which nbval compares; so is one slot running the stream one call after another
(claims 2, 21 and 23: every call at least 300 ms, a peak of 1, at least 40 x 300 ms). Here: the figures'
latencies and timelines, a dependency that dies, bad input. The ``serve-pools`` command's tests are in
test_serve.py.
"""

from __future__ import annotations

import asyncio
import gc

import aiohttp
import pytest
from loopback import until

from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.net.key import key_headers
from bulkhead_lab.live.net.server import LoopbackServer
from bulkhead_lab.live.placement.batch import (
    loan_app,
    parse_run_query,
    rounded,
    run_batch,
    run_placement,
)

pytestmark = pytest.mark.live
anyio = pytest.mark.anyio


@anyio
async def test_the_result_carries_latencies_and_timelines_for_the_plots() -> None:
    steps: list[tuple[int, int]] = []
    result = await run_placement(
        "separate",
        2,
        2,
        0,
        calls=6,
        notification_latency=0.1,
        catalog_latency=0.05,  # long enough for both catalog slots to be seen open at once
        on_progress=lambda d, t: steps.append((d, t)),
    )
    assert steps == [(i, 12) for i in range(1, 13)]
    assert len(result.latencies_ms["notification"]) == len(result.latencies_ms["catalog"]) == 6
    assert max(result.latencies_ms["notification"]) >= 3 * 100 - 5  # ceil(6 / 2) waves of 100 ms
    for stream, limit in (("notification", 2), ("catalog", 2)):
        opens = [o for _, o in result.timelines[stream]]
        assert max(opens) == limit and opens[-1] == 0


@anyio
async def test_a_dependency_killed_mid_batch_is_a_502_with_one_line_and_the_next_run_is_clean() -> None:
    async with Dependency("catalog", 0.002) as catalog:
        async with Dependency("notification", 0.3) as notification:
            async with (
                LoopbackServer(loan_app(notification, catalog)) as loan,
                aiohttp.ClientSession(headers=key_headers(loan.url)) as s,
            ):
                pending = asyncio.ensure_future(s.get(loan.url + "/run?placement=separate&notif=4&cat=4"))
                await until(lambda: notification.open == 4, "four notification calls open")
                await notification.kill()
                async with await pending as r:
                    assert r.status == 502
                    error = (await r.json())["error"]
        assert error.startswith(f"GET http://127.0.0.1:{notification.port}/send failed: ")
        assert "\n" not in error
        gc.collect()  # an unclosed session or socket would warn (an error under pytest) here
        async with Dependency("notification", 0.1) as notification:
            result = await run_batch(notification, catalog, "separate", 4, 4, 0)
    assert (result.catalog_before, result.notification, result.catalog) == (40, 4, 4)
    assert notification.open == 0 and catalog.open == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"placement": "both"}, r"^placement must be one of single, separate \(got 'both'\)$"),
        ({"notif": 0}, r"^notif must be an integer in 1\.\.1000 \(got 0\)$"),
        ({"notif": 4.0}, r"^notif must be an integer"),
        ({"skip": 41}, r"^skip must be an integer in 0\.\.40 \(got 41\)$"),
        ({"calls": 0}, r"^calls must be an integer in 1\.\.1000"),
        ({"notification_latency": -0.1}, r"^notification_latency must be a number >= 0"),
        (
            {"placement": "single", "notif": 600, "cat": 600},
            r"^notif \+ cat must be at most 1000 under placement single",
        ),
    ],
)
@anyio
async def test_bad_batch_parameters_are_refused_with_one_line_before_any_service_starts(
    monkeypatch: pytest.MonkeyPatch, kwargs: dict, message: str
) -> None:
    def started(self: Dependency) -> None:
        raise AssertionError("a dependency was started for a batch that was refused")

    monkeypatch.setattr(Dependency, "start", started)
    with pytest.raises(ValueError, match=message):
        await run_placement(**kwargs)


def test_the_protocol_rounds_duration_to_500_ms_like_math_round() -> None:
    assert [rounded(x) for x in (0, 249.9, 250, 1249, 1250, 2999, 12031)] == [
        0,
        0,
        500,
        1000,
        1500,
        3000,
        12000,
    ]


def test_a_missing_skip_means_no_skipped_call_site() -> None:
    assert parse_run_query({"placement": "single", "notif": "4", "cat": "4"}) == ("single", 4, 4, 0)
