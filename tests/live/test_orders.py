"""Lesson 004's Order Service: the three variants, check.js, keep-alive, and what a failure leaves.

Most runs scale Payment's slowdown down (the facts are counts and rounds, not seconds);
one test runs the lesson's own numbers against ``python -m bulkhead_lab serve-orders``.
"""

from __future__ import annotations

import asyncio
import gc
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import aiohttp
import pytest
from loopback import listening_addresses

from bulkhead_lab.live import orders_views as ov
from bulkhead_lab.live.dependency import LOOPBACK
from bulkhead_lab.live.orders import (
    KEEPALIVE_TIMEOUT,
    OrderService,
    OrderSettings,
    check_orders,
    drive,
    inventory,
    keepalive_facts,
    payment,
    run_orders,
)

pytestmark = [pytest.mark.anyio, pytest.mark.live]

SLOW = 0.4  # seconds: Payment's scaled-down slowdown
SHARED_SLOW = 0.8  # a shared pool's stock check waits ~slowdown - 0.1 s: keep that far above 300 ms


def own_sockets(state: str) -> list[tuple[int, int]]:
    """(local port, remote port) of this process's TCP sockets in ``state`` (from /proc, nothing assumed)."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            cols = line.split()
            if cols[3] == state and cols[9] in inodes:
                found.append((int(cols[1].split(":")[1], 16), int(cols[2].split(":")[1], 16)))
    return found


def listening_ports() -> set[int]:
    """The TCP ports this process is listening on."""
    return {local for local, _ in own_sockets("0A")}  # 0A = LISTEN


def refused(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex((LOOPBACK, port)) != 0


# --- the three variants through the API -------------------------------------------------------


async def test_limited_serves_ten_refuses_ten_at_once_and_payment_never_sees_more_than_five() -> None:
    run = await run_orders("limited", slow_latency=SLOW)
    assert (run.served, run.refused) == (10, 10)
    assert {r.status for r in run.orders} <= {200, 503}
    assert run.refused_arrivals() == list(range(11, 21))  # the last ten to arrive
    assert run.served_rounds() == {1: 5, 2: 5}  # 5 after one slow call, 5 after two
    assert run.payment["peak"] == 5 and run.payment["calls"] == 10
    assert run.bulkhead_busy == {
        "running": 5,
        "queued": 5,
        "executionSlots": 0,
        "queueSlots": 0,
        "rejected": 10,
    }
    assert run.bulkhead_after == {
        "running": 0,
        "queued": 0,
        "executionSlots": 5,
        "queueSlots": 5,
        "rejected": 10,
    }
    assert all(r.body["error"] == "busy, try again" for r in run.orders if r.status == 503)
    assert all(
        r.body["bulkhead"] == "bulkhead full: 5/5 running, 5/5 queued" for r in run.orders if r.status == 503
    )
    assert [c.passed for c in check_orders(run)] == [True, True, True, True]
    assert run.slowest("stock") < 0.3
    assert run.slowest("order", "refused") < 0.2


async def test_a_shared_pool_makes_healthy_stock_checks_wait_for_slow_payment() -> None:
    run = await run_orders("shared", slow_latency=SHARED_SLOW)
    assert run.served == 20 and run.refused == 0
    assert run.payment["peak"] == 10  # Payment had the whole pool
    assert run.slowest("stock") >= SHARED_SLOW / 2  # waited for a slow call to free a connection
    assert [c.passed for c in check_orders(run)] == [False, False, False, True]  # as check.js: 3 fail


async def test_separate_pools_keep_stock_checks_fast_but_orders_queue_in_four_rounds() -> None:
    run = await run_orders("separate", slow_latency=SLOW)
    assert run.served == 20 and run.payment["peak"] == 5
    assert run.inventory["peak"] <= 5
    assert run.slowest("stock") < 0.3
    assert run.served_rounds() == {1: 5, 2: 5, 3: 5, 4: 5}
    assert run.slowest("order") >= 4 * SLOW


async def test_a_healthy_payment_answers_fast_in_every_variant() -> None:
    for variant in ("shared", "separate"):
        run = await run_orders(variant, slow=False)
        assert (run.served, run.refused) == (20, 0)
        assert run.slowest("stock") < 0.3 and run.slowest("order") < 1.0
    run = await run_orders("limited", slow=False)  # a burst of 20 at once can still overflow 5 + 5
    assert run.served + run.refused == 20 and run.served >= 10 and run.payment["peak"] <= 5
    assert run.slowest("stock") < 0.3 and run.slowest("order") < 1.0


async def test_a_bigger_queue_serves_more_and_refuses_fewer() -> None:
    run = await run_orders("limited", limit=3, queue=7, slow_latency=0.2)
    assert (run.served, run.refused) == (10, 10)
    assert run.payment["peak"] == 3
    run = await run_orders("limited", limit=5, queue=15, slow_latency=0.2)
    assert (run.served, run.refused) == (20, 0)


# --- keep-alive: aiohttp's limit counts connections in use, not idle ones -------------------------


async def test_idle_keepalive_connections_do_not_count_against_aiohttps_shared_limit() -> None:
    open_at_end: list[int] = []

    def at_last_answer(done: int, total: int) -> None:
        if done == total:  # every order and stock check answered: which sockets are still open?
            open_at_end.extend(remote for _, remote in own_sockets("01"))  # 01 = ESTABLISHED

    run = await run_orders("shared", pool=10, keepalive=True, slow=False, on_progress=at_last_answer)
    to_payment = open_at_end.count(run.ports["payment"])
    to_inventory = open_at_end.count(run.ports["inventory"])
    assert to_payment == 10  # Payment's connections sat idle, open, through all the stock checks
    assert to_payment + to_inventory > 10  # more sockets open at once than the pool's limit
    facts = keepalive_facts(run)
    assert facts.payment_opened == 10 and facts.payment_reused == 10  # 10 sockets, kept and reused
    assert facts.kept_open > facts.pool_limit  # more sockets open at once than the pool's limit
    assert run.duration < KEEPALIVE_TIMEOUT  # so none of Payment's idle sockets had closed
    assert facts.slowest_stock < 0.3 and not facts.idle_counted


# --- nothing stays listening -----------------------------------------------------------------


async def test_nothing_listens_after_a_run() -> None:
    before = listening_ports()
    run = await run_orders("limited", slow=False, orders=5, stock_checks=2)
    assert listening_ports() == before
    assert all(refused(port) for port in run.ports.values())


async def test_nothing_listens_after_an_exception_mid_run() -> None:
    before = listening_ports()

    def explode(done: int, total: int) -> None:
        raise RuntimeError("the cell broke")

    with pytest.raises(RuntimeError, match="the cell broke"):
        await run_orders("limited", slow_latency=SLOW, on_progress=explode)
    assert listening_ports() == before


async def test_nothing_listens_after_an_interrupted_run() -> None:
    before = listening_ports()
    task = asyncio.create_task(run_orders("separate", slow_latency=2.0))
    await asyncio.sleep(0.5)
    assert len(listening_ports() - before) == 3  # Payment, Inventory, Order Service
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert listening_ports() == before


async def test_bad_settings_are_refused_with_one_line() -> None:
    cases = [
        ({"variant": "pooled"}, "variant must be one of shared, separate, limited (got 'pooled')"),
        ({"limit": 0}, "limit must be an integer in 1..1000 (got 0)"),
        ({"pool": -3}, "pool must be an integer in 1..1000 (got -3)"),
        ({"queue": -1}, "queue must be an integer in 0..1000 (got -1)"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValueError) as info:
            OrderSettings(**kwargs)
        assert str(info.value) == message
    with pytest.raises(ValueError, match=r"^slow_latency must be a number >= 0 and <= 60 \(got -1\)$"):
        await run_orders("limited", slow_latency=-1)


async def test_an_order_service_on_a_busy_port_refuses_with_one_line_and_closes_its_pools() -> None:
    with socket.socket() as busy:
        busy.bind((LOOPBACK, 0))
        busy.listen()
        port = busy.getsockname()[1]
        service = OrderService(
            OrderSettings("separate"), "http://127.0.0.1:1", "http://127.0.0.1:2", port=port
        )
        with pytest.raises(ValueError, match=rf"^port {port} on 127\.0\.0\.1 is busy"):
            await service.start()
    assert service.pool_stats() == {"variant": "separate", "shared": False}  # no pool left open
    gc.collect()  # an unclosed session would warn here, and warnings are errors


# --- a dependency killed mid-run -----------------------------------------------------------------


async def test_a_payment_killed_mid_run_gives_clear_errors_frees_every_slot_and_the_next_run_is_clean() -> (
    None
):
    settings = OrderSettings("limited", limit=5, queue=5)
    async with inventory() as inv:
        pay = payment(slow_latency=1.0)
        await pay.start()
        port = pay.port
        try:
            async with OrderService(settings, pay.url, inv.url) as service:
                load = asyncio.create_task(drive(service.url, pay.url, inv.url, stock_delay=0.1))
                await asyncio.sleep(0.4)
                assert service.bulkhead_stats()["running"] == 5
                await pay.kill()
                run = await load
                failed = [r for r in run.orders if r.status == 502]
                assert len(failed) == 10 and run.refused == 10  # the 5 running and the 5 waiting
                assert all(
                    re.fullmatch(r"payment (unreachable|answered HTTP \d+).*", r.body["error"])
                    for r in failed
                )
                assert run.slowest("stock") < 0.3  # Inventory's pool never noticed
                assert service.bulkhead_stats() == {
                    "running": 0,
                    "queued": 0,
                    "executionSlots": 5,
                    "queueSlots": 5,
                    "rejected": 10,
                }
                connector = service._pools["payment"].session.connector
                assert connector is not None and not connector._acquired  # every pool slot given back

                async with payment(port=port, slow_latency=0.2) as again:  # Payment restarts
                    run = await drive(service.url, again.url, inv.url)
                    assert (run.served, run.refused) == (10, 10)
                    assert run.payment["peak"] == 5
                    assert [c.passed for c in check_orders(run)] == [True, True, True, True]
        finally:
            await pay.stop()


# --- python -m bulkhead_lab serve-orders, driven from outside ------------------------------------


@contextmanager
def serve_orders(*args: str) -> Iterator[dict[str, str]]:
    """Run ``serve-orders`` on free ports; yield its three URLs; stop it with Ctrl-C (SIGINT)."""
    cmd = [sys.executable, "-m", "bulkhead_lab", "serve-orders", "--port", "0", "--payment-port", "0"]
    cmd += ["--inventory-port", "0", *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        urls = {}
        for _ in range(3):
            line = proc.stdout.readline()  # type: ignore[union-attr]
            m = re.match(r"(Payment|Inventory|Order Service) on (http://127\.0\.0\.1:\d+)", line)
            assert m, (
                f"unexpected line {line!r}; stderr: {proc.stderr.read() if proc.poll() is not None else ''}"
            )  # type: ignore[union-attr]
            urls[m.group(1)] = m.group(2)
        for url in urls.values():
            assert listening_addresses(int(url.rsplit(":", 1)[1])) == {LOOPBACK}  # 127.0.0.1 only
        yield urls
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        assert proc.returncode == 0, err
        assert out.strip() == "serve-orders: stopped" and err == ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


async def drive_service(urls: dict[str, str], **kw: object):  # type: ignore[no-untyped-def]
    return await drive(urls["Order Service"], urls["Payment"], urls["Inventory"], **kw)  # type: ignore[arg-type]


async def test_serve_orders_limited_passes_check_js_at_the_lessons_own_numbers() -> None:
    with serve_orders("--variant", "limited") as urls:
        run = await drive_service(urls)  # Payment slow at its own 3 s, 20 orders, 10 stock checks
        checks = check_orders(run)
        assert [c.passed for c in checks] == [True, True, True, True], checks
        assert (run.served, run.refused) == (10, 10)
        assert {r.status for r in run.orders} == {200, 503}
        assert run.slowest("order", "refused") < 0.2
        assert 5.9 < run.slowest("order") < 7.0  # 5 after 3 s, 5 after 6 s
        assert run.bulkhead_busy is not None and run.bulkhead_busy["running"] == 5
        assert run.bulkhead_busy["queueSlots"] == 0


async def test_serve_orders_shared_fails_three_of_check_js_checks() -> None:
    with serve_orders("--variant", "shared", "--pool", "10") as urls:
        run = await drive_service(urls, slow_latency=SHARED_SLOW)
        assert [c.passed for c in check_orders(run)] == [False, False, False, True]
        assert run.payment["peak"] == 10


async def test_serve_orders_separate_queues_orders_and_keeps_stock_fast() -> None:
    with serve_orders("--variant", "separate", "--limit", "5") as urls:
        run = await drive_service(urls, slow_latency=SLOW)
        assert run.served == 20 and run.payment["peak"] == 5
        assert run.slowest("stock") < 0.3 and run.slowest("order") >= 4 * SLOW


async def test_serve_orders_with_keepalive_keeps_payments_idle_connections_without_blocking_stock() -> None:
    with serve_orders("--variant", "shared", "--pool", "10", "--keepalive") as urls:
        run = await drive_service(urls, slow=False)
        assert run.pools is not None
        assert run.pools["payment"] == {"limit": 10, "opened": 10, "reused": 10}
        assert run.pools["inventory"]["opened"] >= 1 and run.slowest("stock") < 0.3


async def test_serve_orders_admin_routes_answer_bad_values_with_400_and_one_line() -> None:
    with serve_orders("--variant", "shared") as urls:
        async with aiohttp.ClientSession() as client:
            async with client.post(urls["Payment"] + "/admin/slow?on=2") as r:
                assert r.status == 400 and (await r.json())["error"] == "on must be 1 or 0 (got '2')"
            async with client.post(urls["Payment"] + "/admin/slow?on=1&ms=abc") as r:
                assert r.status == 400
                assert (await r.json())["error"] == "ms must be an integer in 0..3600000 (got 'abc')"
            async with client.get(urls["Order Service"] + "/admin/bulkhead") as r:
                assert r.status == 404 and (await r.json())["error"] == "variant shared has no bulkhead"
            async with client.get(urls["Payment"] + "/admin/stats") as r:
                assert await r.json() == {"peak": 0, "open": 0, "calls": 0}


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "bulkhead_lab", "serve-orders", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--variant", "pooled"], "variant must be one of shared, separate, limited (got 'pooled')"),
        (["--variant", "limited", "--limit", "0"], "limit must be an integer in 1..1000 (got 0)"),
        (["--variant", "limited", "--limit", "-2"], "limit must be an integer in 1..1000 (got -2)"),
        (["--variant", "limited", "--queue", "-1"], "queue must be an integer in 0..1000 (got -1)"),
        (["--variant", "shared", "--pool", "0"], "pool must be an integer in 1..1000 (got 0)"),
        (
            ["--variant", "shared", "--host", "0.0.0.0"],
            "host must be 127.0.0.1, loopback only (got '0.0.0.0')",
        ),
        (["--variant", "shared", "--port", "70000"], "port must be an integer in 0..65535 (got 70000)"),
        (["--variant", "shared", "--port", "3005", "--payment-port", "3005"], "ports must differ"),
    ],
)
def test_serve_orders_refuses_bad_values_with_one_line_and_exit_2(args: list[str], line: str) -> None:
    done = run_cli(*args)
    assert done.returncode == 2
    assert done.stdout == ""  # nothing started
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"bulkhead-lab serve-orders: error: {line}")


@pytest.mark.parametrize("which", ["--port", "--payment-port", "--inventory-port"])
def test_serve_orders_refuses_a_busy_port_with_one_line_and_starts_nothing(which: str) -> None:
    with socket.socket() as busy:
        busy.bind((LOOPBACK, 0))
        busy.listen()
        port = busy.getsockname()[1]
        args = ["--variant", "limited", "--port", "0", "--payment-port", "0", "--inventory-port", "0"]
        args[args.index(which) + 1] = str(port)
        started = time.monotonic()
        done = run_cli(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert re.fullmatch(
        r"bulkhead-lab serve-orders: error: (\w+ )?port \d+ on 127\.0\.0\.1 is busy .*\n", done.stderr
    )
    assert time.monotonic() - started < 10


# --- notebook 04's views ---------------------------------------------------------------------


def test_an_interrupted_notebook_run_leaves_nothing_listening() -> None:
    """Jupyter's stop button raises KeyboardInterrupt in the kernel's thread while its loop runs."""
    before = listening_ports()
    timer = threading.Timer(0.6, os.kill, (os.getpid(), signal.SIGINT))  # a real Ctrl-C

    async def cell() -> None:
        timer.start()
        ov.run("separate", slow_latency=3.0)  # blocks the running loop, as a notebook cell does

    loop = asyncio.new_event_loop()
    try:
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            loop.run_until_complete(cell())
        assert time.monotonic() - started < 3.0  # not the 12 s the run would take
        assert listening_ports() == before
    finally:
        timer.cancel()
        loop.close()


def test_the_views_show_the_runs_numbers() -> None:
    limited = ov.run("limited", slow_latency=0.2)
    facts = ov.facts(limited).splitlines()
    assert facts[0] == "limited (pools 5+5, bulkhead 5+5), Payment slow (0.2 s)"
    assert "orders: 10 served, 10 refused, 0 failed" in facts
    assert "refused: orders 11 to 20 in order of arrival" in facts
    assert "served per round of Payment's latency: 5 after 1 x 0.2 s, 5 after 2 x 0.2 s" in facts
    assert "bulkhead while busy: 5 running, 0 free waiting places" in facts
    assert ov.checks_text(limited).count("PASS") == 4
    table = ov.summary_table([limited])
    row = table.iloc[0]
    assert (row["orders served"], row["orders refused"], row["Payment peak"]) == (10, 10, 5)
    requests = ov.requests_table(limited)
    assert len(requests) == 30 and set(requests["status"]) == {200, 503}
    assert list(ov.checks_table(limited)["passed"]) == [True] * 4
    fig = ov.orders_figure(limited)
    assert len(fig.axes) == 2 and fig.axes[1].get_ylabel() == "calls at once"


def test_the_live_panel_runs_the_load_and_counts_its_answers() -> None:
    panel = ov.orders_panel(variant="limited", limit=3, queue=2, slow_latency=0.2)
    assert panel.result.served == 5 and panel.result.refused == 15
    progress = panel.widget.children[0].children[0]
    assert "bl-progress-orders" in progress._dom_classes and progress.value == progress.max == 30
    for name in ("pool", "limit", "queue", "slowdown"):
        assert any(f"bl-slider-{name}" in c._dom_classes for c in panel.controls.values())
    assert "bl-view-orders" in panel.output._dom_classes
    run = panel.set(variant="separate", limit=4)
    assert run.settings.variant == "separate" and run.payment["peak"] == 4 and run.refused == 0
    html = [o["data"]["text/html"] for o in panel.output.outputs if "text/html" in o.get("data", {})]
    assert html and "separate (pools 4+4)" in html[0]
    with pytest.raises(ValueError, match="slider must be one of"):
        panel.set(bogus=1)
