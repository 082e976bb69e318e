"""The live services under hostile input and faults (issue 9), measured from outside.

Every test here talks to ``serve-pools`` or ``serve-orders`` in a process of their own
over raw HTTP (:mod:`outside`), and every one of those commands must end with nothing on
its stderr: a client's mistake is an answer, never a traceback on the server. Waits are
polls with a deadline; the only wall-clock figures asserted are the issue's own ("gives
its place back within a second") and lower bounds no machine can beat.
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import textwrap
import time
from http.client import HTTPException
from urllib.parse import quote

import pytest
from loopback import listening_ports, until_sync
from outside import answer_of, http, one_line_error, open_request, serving

from bulkhead_lab.live.placement import batch as placement
from bulkhead_lab.live.placement.batch import run_placement

pytestmark = pytest.mark.live

BAD_DIGITS = ["\u00b2", "\u2460", "\u0661\u0662", "\uff15", "4\u00b2", " 4", "4.0", "+4", "0x4", ""]
# superscript two, circled one, Arabic-Indic twelve, fullwidth five, and ASCII look-alikes


def bulkhead(port: int) -> dict[str, int]:
    status, body = http(port, "GET", "/admin/bulkhead")
    assert status == 200, body
    return body


# --- 1. a mistake in /run's query is the caller's, named as theirs; digits are ASCII digits -------


RUN_MISTAKES = [  # /run's query, and the one line that names the mistake
    (
        "placement=single&notif=600&cat=600",  # a single pool over 1,000 slots: the caller's, not a 500
        "notif + cat must be at most 1000 under placement single, one pool of both (got 600 + 600 = 1200)",
    ),
    ("placement=single&notif=4", "cat is missing: it must be an integer in 1..1000"),
    ("notif=4&cat=4", "placement is missing: it must be one of single, separate"),
    (
        "placement=single&notif=4&cat=4&skp=3",
        "skp is not a parameter of /run: it takes placement, notif, cat, skip",
    ),
]


def test_run_names_each_mistake_in_its_query_and_every_number_must_be_ascii_digits_with_a_400() -> None:
    with serving("serve-pools") as s:
        loan, notification = s.port("loan"), s.port("notification")
        answers = [http(loan, "GET", "/run?" + query) for query, _ in RUN_MISTAKES]
        # digits are ASCII digits, the same rule on every route
        for bad in BAD_DIGITS:
            q = quote(bad)
            digits = [
                http(loan, "GET", f"/run?placement=separate&notif={q}&cat=4"),
                http(loan, "GET", f"/run?placement=separate&notif=4&cat={q}"),
                http(loan, "GET", f"/run?placement=separate&notif=4&cat=4&skip={q}"),
                http(notification, "POST", f"/admin/slow?on=1&ms={q}"),
            ]
            for (status, body), name in zip(digits, ["notif", "cat", "skip", "ms"], strict=True):
                assert status == 400, (bad, name, body)
                assert one_line_error(body).startswith(f"{name} must be an integer in ")
    for (status, body), (query, error) in zip(answers, RUN_MISTAKES, strict=True):
        assert status == 400 and one_line_error(body) == error, query


# --- 2. an abandoned order gives its place back; every call has a deadline ---------------------------


def test_orders_whose_clients_gave_up_give_their_places_back_within_a_second() -> None:
    with serving("serve-orders", "--variant", "limited") as s:
        order, pay = s.port("Order Service"), s.port("Payment")
        assert http(pay, "POST", "/admin/slow?on=1&ms=20000")[0] == 200
        clients = [open_request(order, "POST", "/orders") for _ in range(10)]
        until_sync(lambda: bulkhead(order)["queued"] == 5, "5 orders at Payment and 5 waiting")
        assert bulkhead(order)["running"] == 5
        for sock in clients:  # the clients give up
            sock.close()
        gone = time.monotonic()
        until_sync(lambda: bulkhead(order)["running"] + bulkhead(order)["queued"] == 0, "every place free")
        assert time.monotonic() - gone < 1.0  # the figure: within a second
        until_sync(lambda: http(pay, "GET", "/admin/stats")[1]["open"] == 0, "Payment's calls ended too")
        assert http(pay, "POST", "/admin/slow?on=0")[0] == 200  # healed: a new order is served at once
        status, body = http(order, "POST", "/orders", timeout=2.0)
        assert status == 200 and body["ok"] is True


def test_a_payment_call_past_its_deadline_is_a_504_with_one_line_and_frees_its_place() -> None:
    with serving("serve-orders", "--variant", "limited", "--payment-timeout", "1") as s:
        order, pay = s.port("Order Service"), s.port("Payment")
        assert http(pay, "POST", "/admin/slow?on=1&ms=3600000")[0] == 200  # an hour
        started = time.monotonic()
        status, body = http(order, "POST", "/orders")
        assert status == 504 and time.monotonic() - started >= 1.0
        assert one_line_error(body) == "payment did not answer within 1 s (payment_timeout)"
        assert bulkhead(order)["running"] == 0
        until_sync(lambda: http(pay, "GET", "/admin/stats")[1]["open"] == 0, "Payment's call ended")


# --- 3. an interrupted run says so in one line and nothing else --------------------------------------


def test_kernel_interrupt_in_a_live_cell_shows_one_line_and_closes_every_service() -> None:
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3")
    try:
        kc.execute_interactive("from bulkhead_lab.course.fail_fast_queue import views", timeout=60)
        kernel = km.provisioner.process.pid
        idle = listening_ports(kernel)  # the kernel's own channels
        outputs: list[dict] = []
        msg_id = kc.execute("r = views.run('separate', slow_latency=30.0)\nprint('not reached')")
        until_sync(lambda: len(listening_ports(kernel) - idle) == 3, "the cell's three services listening")
        time.sleep(random.Random(3).uniform(0.0, 1.0))  # Kernel > Interrupt at some point of the run
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=60)
        while True:
            msg = kc.get_iopub_msg(timeout=30)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
            if msg["msg_type"] in ("stream", "error", "execute_result", "display_data"):
                outputs.append(msg)
        assert reply["content"]["status"] == "error"
        assert [m["msg_type"] for m in outputs] == ["error"], outputs
        assert outputs[0]["content"]["traceback"] == [
            "interrupted: the live run was stopped and every service it started is closed"
        ]
        assert listening_ports(kernel) == idle
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


@pytest.mark.parametrize("command", ["serve-orders", "serve-pools"])
def test_ctrl_c_with_requests_in_flight_stops_with_one_line_and_answers_or_cuts_them_cleanly(
    command: str,
) -> None:
    args = ["--variant", "limited"] if command == "serve-orders" else []
    with serving(command, *args) as s:  # serving() asserts: exit 0, "<command>: stopped", empty stderr
        if command == "serve-orders":
            assert http(s.port("Payment"), "POST", "/admin/slow?on=1&ms=20000")[0] == 200
            clients = [open_request(s.port("Order Service"), "POST", "/orders") for _ in range(12)]
            until_sync(lambda: bulkhead(s.port("Order Service"))["rejected"] == 2, "every order arrived")
        else:
            clients = [open_request(s.port("loan"), "GET", LONG_BATCH) for _ in range(3)]
            until_sync(
                lambda: http(s.port("loan"), "GET", "/admin/runs")[1]["waiting"] == 2, "2 batches queued"
            )
        time.sleep(random.Random(5).uniform(0.0, 0.5))  # Ctrl-C at some point of the slow calls
    statuses = []
    for sock in clients:
        try:
            statuses.append(answer_of(sock, timeout=10)[0])
        except (OSError, HTTPException):  # cut off without an answer: closed, not hung
            statuses.append(0)
    assert set(statuses) <= {503, 0}


# --- 4. no other web page, and no other host name, may drive the services; a reset frees ---------------

EVIL = "http://evil.example"


def test_no_foreign_origin_or_site_may_change_anything_and_admin_reset_answers_every_open_order() -> None:
    with serving("serve-orders", "--variant", "limited") as s:
        order, pay = s.port("Order Service"), s.port("Payment")
        foreign = [
            {"Origin": EVIL},
            {"Origin": "null"},
            {"Origin": f"http://127.0.0.1:{order + 1}"},  # another port is another origin
            {"Sec-Fetch-Site": "cross-site"},
            {"Sec-Fetch-Site": "same-site"},
        ]
        for headers in foreign:
            for port, path in (
                (pay, "/admin/slow?on=1&ms=3600000"),
                (pay, "/admin/reset"),
                (order, "/orders"),
            ):
                status, body = http(port, "POST", path, headers=headers)
                assert status == 403, (headers, path, body)
                error = one_line_error(body)
                assert error.startswith(
                    ("Origin must be absent or http://127.0.0.1:", "Sec-Fetch-Site must be")
                )
        assert http(pay, "POST", "/pay", timeout=1.0)[0] == 200  # Payment is not slow
        assert http(pay, "GET", "/admin/stats")[1]["calls"] == 1  # and no foreign order reached it
        status, body = http(order, "POST", "/orders", timeout=2.0)
        assert (status, body["ok"], body["order"]) == (200, True, 1)  # the 403s were never orders

        # /admin/reset answers every open order and returns each service to its start state
        fresh = bulkhead(order)
        assert http(pay, "POST", "/admin/slow?on=1&ms=3600000")[0] == 200
        clients = [open_request(order, "POST", "/orders") for _ in range(12)]
        until_sync(lambda: bulkhead(order)["rejected"] == 2, "5 running, 5 waiting, 2 refused")
        direct = open_request(pay, "POST", "/pay")  # one more call held at Payment itself for an hour
        until_sync(lambda: http(pay, "GET", "/admin/stats")[1]["open"] == 6, "6 calls open at Payment")

        assert http(order, "POST", "/admin/reset") == (200, {"variant": "limited"})
        answers = [answer_of(c) for c in clients]
        assert sorted(status for status, _ in answers) == [503] * 12
        reset = [b for _, b in answers if b["error"] != "busy, try again"]
        assert len(reset) == 10
        assert {one_line_error(b) for b in reset} == {"order service was reset while this request was open"}
        assert bulkhead(order) == fresh

        status, stats = http(pay, "POST", "/admin/reset")
        assert (status, stats) == (200, {"peak": 0, "open": 0, "calls": 0})
        status, body = answer_of(direct)
        assert status == 503 and one_line_error(body) == "payment was reset while this request was open"
        status, body = http(order, "POST", "/orders", timeout=2.0)  # healthy again, numbered from 1 again
        assert (status, body["ok"], body["order"]) == (200, True, 1)


def test_a_foreign_host_or_site_is_refused_on_every_route_and_the_services_own_clients_get_through() -> None:
    with serving("serve-pools") as s:
        for name in ("loan", "notification", "catalog"):
            port = s.port(name)
            for host in (
                f"evil.example:{port}",
                "127.0.0.1",
                f"127.0.0.1:{port + 1}",
                f"localhost.evil:{port}",
            ):
                status, body = http(port, "GET", "/admin/stats", headers={"Host": host})
                assert status == 403, (host, body)
                assert one_line_error(body).startswith(
                    f"Host must be 127.0.0.1:{port}, localhost:{port} or [::1]:{port}"
                )
        for headers in ({"Host": EVIL}, {"Sec-Fetch-Site": "cross-site"}, {"Origin": EVIL}):
            assert http(s.port("loan"), "GET", SHORT_ROUND, headers=headers)[0] == 403
        assert http(s.port("notification"), "GET", "/admin/stats")[1]["calls"] == 0  # no batch ran
        port = s.port("notification")  # the services' own clients and their own pages still get through
        for headers in (
            {},  # what curl or node sends: no Origin, no Sec-Fetch-Site
            {"Host": f"localhost:{port}"},
            {"Host": f"LOCALHOST:{port}"},
            {"Host": f"[::1]:{port}"},
            {"Origin": f"http://127.0.0.1:{port}", "Sec-Fetch-Site": "same-origin"},
            {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"},
            {"Sec-Fetch-Site": "none"},  # a URL typed into the address bar
        ):
            assert http(port, "POST", "/admin/reset", headers=headers)[0] == 200, headers


# --- 5. abandoned /run batches stop; the batches' queue is bounded -------------------------------------

LONG_BATCH = "/run?placement=separate&notif=1&cat=4"  # ceil(40 / 1) x 300 ms = 12 s
SHORT_ROUND = "/run?placement=separate&notif=40&cat=4"  # one 300 ms wave


def test_batches_wait_in_a_bounded_queue_the_excess_is_a_503_and_those_whose_clients_left_stop() -> None:
    with serving("serve-pools") as s:
        loan, notification = s.port("loan"), s.port("notification")
        running = open_request(loan, "GET", LONG_BATCH)
        until_sync(lambda: http(notification, "GET", "/admin/stats")[1]["open"] == 1, "one batch running")
        waiting = [open_request(loan, "GET", LONG_BATCH) for _ in range(placement.MAX_WAITING_RUNS)]
        until_sync(lambda: http(loan, "GET", "/admin/runs")[1]["waiting"] == 2, "two batches waiting")
        status, body = http(loan, "GET", SHORT_ROUND, timeout=5.0)
        assert status == 503
        assert one_line_error(body) == (
            "busy, try again: one batch is running and 2 are waiting, the most /run queues"
        )
        for sock in (running, *waiting):
            sock.close()
        until_sync(lambda: http(notification, "GET", "/admin/stats")[1]["open"] == 0, "every batch cancelled")
        calls = http(notification, "GET", "/admin/stats")[1]["calls"]
        started = time.monotonic()
        status, body = http(loan, "GET", SHORT_ROUND)
        assert status == 200 and body["notification"] == 40
        assert time.monotonic() - started < 12.0  # it waited for no abandoned 12 s batch
        assert calls < 40  # the running batch stopped part-way, and the waiting ones never ran


# --- 6. few file descriptors, and runs that would take hours ------------------------------------------


def _with_fd_limit(limit: int, code: str) -> subprocess.CompletedProcess[str]:
    script = (
        "import resource, asyncio\n"
        "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
        f"resource.setrlimit(resource.RLIMIT_NOFILE, ({limit}, hard))\n"
        "from bulkhead_lab.live.orders.load import OrdersLoad, run_orders\n" + textwrap.dedent(code)
    )
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)


def test_under_ulimit_256_a_run_of_200_orders_is_refused_with_one_line_saying_how_to_raise_it() -> None:
    done = _with_fd_limit(
        256,
        """
        try:
            asyncio.run(run_orders(load=OrdersLoad(orders=200, slow_latency=0.2)))
        except ValueError as exc:
            print(exc)
        """,
    )
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        "orders + stock_checks = 210 needs about 448 open sockets but this process may open only "
    )
    assert "(ulimit -n is 256); raise it, e.g. run `ulimit -n 1024`" in lines[0]


def test_under_ulimit_256_the_lessons_run_still_answers_every_order() -> None:
    done = _with_fd_limit(
        256,
        """
        run = asyncio.run(run_orders(load=OrdersLoad(slow_latency=0.6)))
        print(run.served, run.refused, run.count("served", "stock"))
        """,
    )
    assert done.stderr == ""
    assert done.stdout.split() == ["10", "10", "10"]


def test_a_run_planned_for_hours_is_refused_unless_allowed_and_says_how_long() -> None:
    from bulkhead_lab.live.orders.load import OrdersLoad, run_orders
    from bulkhead_lab.live.orders.service import OrderSettings

    settings = OrderSettings("separate", payment_timeout=100.0)
    with pytest.raises(ValueError) as info:
        asyncio.run(run_orders(settings, OrdersLoad(orders=10_000, slow_latency=60.0)))
    assert str(info.value) == (
        "allow_long must be True for a run this long: it would take about 33 h "
        "(ceil(10000 orders / 5 connections) x 60 s), over the 120 s a run may take unasked"
    )
    with pytest.raises(ValueError, match=r"^allow_long must be True .* about 3 h \(ceil\(calls / slots\)"):
        asyncio.run(run_placement("separate", 1, 4, calls=1000, notification_latency=10.0))
