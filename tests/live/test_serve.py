"""The two foreground commands, ``serve-pools`` and ``serve-orders``, driven from outside.

serve-orders runs once, at the lesson's own numbers.
"""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys

import pytest
from loopback import listening
from outside import http, one_line_error, serving

from bulkhead_lab.live.net.server import LOOPBACK
from bulkhead_lab.live.orders.load import drive
from bulkhead_lab.live.orders.reading.burst import check_orders
from bulkhead_lab.live.orders.service import SLOW_LATENCY

pytestmark = [pytest.mark.anyio, pytest.mark.live]

# --- serve-pools: lesson 003's services.mjs ---------------------------------------------------


def test_the_loan_service_answers_the_lessons_fields_and_400_for_bad_queries() -> None:
    with serving("serve-pools") as s:  # serving() asserts every service binds 127.0.0.1 alone
        status, body = http(s.port("loan"), "GET", "/run?placement=separate&notif=40&cat=4&skip=0")
        bad, reason = http(s.port("loan"), "GET", "/run?placement=both&notif=4&cat=4")
    assert status == 200 and list(body) == ["n", "catalogBefore", "notification", "catalog", "duration"]
    assert (body["n"], body["notification"], body["catalog"]) == (40, 40, 4)
    # separate pools: catalog's calls never wait for notification's, so at least its first wave of 4
    # (5 ms) is back before notification's first answer (300 ms); all 40 on a quiet machine
    assert 4 <= body["catalogBefore"] <= 40
    assert body["duration"] % 500 == 0
    assert bad == 400 and one_line_error(reason).startswith("placement must be one of single, separate")


def test_serve_pools_on_a_busy_port_exits_2_with_one_line_and_leaves_nothing_listening() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        busy = holder.getsockname()[1]
        free = []
        for _ in range(2):
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                free.append(probe.getsockname()[1])
        run = subprocess.run(
            [sys.executable, "-m", "bulkhead_lab", "serve-pools", "--port", str(busy)]
            + ["--notification-port", str(free[0]), "--catalog-port", str(free[1])],
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.splitlines() == [
        f"bulkhead-lab serve-pools: error: port {busy} on 127.0.0.1 is busy "
        "(something is already listening there)"
    ]
    assert not any(listening(p) for p in free)


# --- python -m bulkhead_lab serve-orders, driven from outside ---------------------------------


async def test_serve_orders_limited_keeps_check_js_budgets_stock_under_300_ms_refusals_under_200_ms() -> None:
    """The one test that pins lesson 004's wall-clock budgets: check.js's own four checks at its own
    numbers (Payment slow at 3 s). The lesson measured 30 - 53 ms and 16 ms against them. The other
    variants' facts are notebook 04's (nbval); test_keepalive.py checks the command's pool rule."""
    with serving("serve-orders", "--variant", "limited") as s:
        # Payment slow at its own 3 s, 20 orders, 10 stock checks
        run = await drive(s.urls["Order Service"], s.urls["Payment"], s.urls["Inventory"])
        checks = check_orders(run)
        assert [c.passed for c in checks] == [True, True, True, True], checks
        assert (run.served, run.refused) == (10, 10)
        assert {r.status for r in run.orders} == {200, 503}
        assert run.slowest("order", "refused") < 0.2
        assert run.served_waves(SLOW_LATENCY) == {1: 5, 2: 5}  # 5 after 3 s, 5 after 6 s
        assert run.bulkhead_busy is not None and run.bulkhead_busy["running"] == 5
        assert run.bulkhead_busy["queueSlots"] == 0


def test_serve_orders_without_a_bulkhead_answers_its_route_with_a_404_in_one_line() -> None:
    with serving("serve-orders", "--variant", "shared") as s:
        status, body = http(s.port("Order Service"), "GET", "/admin/bulkhead")
    assert status == 404 and one_line_error(body) == "variant shared has no bulkhead"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "bulkhead_lab", "serve-orders", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["--variant", "pooled"],
            "variant must be one of shared, separate, limited, adaptive (got 'pooled')",
        ),
        (["--variant", "limited", "--limit", "0"], "limit must be an integer in 1..1000 (got 0)"),
        (["--variant", "limited", "--queue", "-1"], "queue must be an integer in 0..1000 (got -1)"),
        (["--variant", "shared", "--pool", "0"], "pool must be an integer in 1..1000 (got 0)"),
        (
            ["--variant", "shared", "--host", "0.0.0.0"],
            "host must be 127.0.0.1, loopback only (got '0.0.0.0')",
        ),
        (["--variant", "shared", "--port", "70000"], "port must be an integer in 0..65535 (got 70000)"),
        (
            ["--variant", "shared", "--pool-rule", "nodejs"],
            "pool_rule must be one of aiohttp, node (got 'nodejs')",
        ),
        (
            ["--variant", "adaptive", "--algorithm", "cubic"],
            "algorithm must be one of AIMD, Vegas, Gradient2, Envoy (got 'cubic')",
        ),
    ],
)
def test_serve_orders_refuses_bad_values_with_one_line_and_exit_2(args: list[str], line: str) -> None:
    done = run_cli(*args)
    assert done.returncode == 2
    assert done.stdout == ""  # nothing started
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"bulkhead-lab serve-orders: error: {line}")


def test_serve_orders_refuses_a_busy_port_with_one_line_and_starts_nothing() -> None:
    with socket.socket() as busy:
        busy.bind((LOOPBACK, 0))
        busy.listen()
        port = busy.getsockname()[1]
        args = ["--variant", "limited", "--port", "0", "--payment-port", "0", "--inventory-port", "0"]
        args[-1] = str(port)  # Inventory's port is taken
        done = run_cli(*args)  # run_cli's timeout fails the test if it hangs instead of refusing
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert re.fullmatch(
        r"bulkhead-lab serve-orders: error: (\w+ )?port \d+ on 127\.0\.0\.1 is busy .*\n", done.stderr
    )


# --- both commands: one way to stop -----------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("serve-pools", ["--port", "0", "--notification-port", "0", "--catalog-port", "0"]),
        (
            "serve-orders",
            ["--variant", "limited", "--port", "0", "--payment-port", "0", "--inventory-port", "0"],
        ),
    ],
)
def test_both_commands_stop_on_sigterm_as_on_ctrl_c(command: str, args: list[str]) -> None:
    """Ctrl-C (SIGINT) stops every command :func:`outside.serving` starts, and it checks how."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bulkhead_lab", command, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        ports = [int(p) for p in re.findall(r"http://127\.0\.0\.1:(\d+)", line)]
        assert ports and all(listening(p) for p in ports), line
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0 and err == ""
    assert out.splitlines()[-1] == f"{command}: stopped"
    assert not any(listening(p) for p in ports)
