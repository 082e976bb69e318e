"""The two foreground commands: ``serve-pools`` (lesson 003) and ``serve-orders`` (lesson 004).

``python -m bulkhead_lab serve-pools`` is the lesson's ``node services.mjs``: notification,
catalog and the loan service answering ``GET /run`` (:func:`serve_pools`).
``python -m bulkhead_lab serve-orders`` is lesson 004's Payment, Inventory and Order
Service (:func:`serve_orders`), in any of its variants (``--variant adaptive`` moves the
bulkhead's limit by ``--algorithm``) and either pool rule (``--pool-rule node``). Both
check their values first, bind 127.0.0.1 only, and run through
:func:`~.net.server.serve_foreground` until Ctrl-C or SIGTERM, then print
``<command>: stopped`` and exit 0.

They serve the lessons' own node scripts, which send no key, so their services are made
under :func:`~.net.key.open_to_this_machine` and their banner says so: any process on this
machine (another user's too) can reach them. A run from a notebook or the Python API is keyed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import socket
from collections.abc import Callable

from bulkhead_lab.live.net.dependency import Dependency
from bulkhead_lab.live.net.key import REACH, open_to_this_machine
from bulkhead_lab.live.net.server import (
    LOOPBACK,
    LoopbackServer,
    bind_loopback,
    check_host,
    check_port,
    serve_foreground,
)
from bulkhead_lab.live.orders.adaptive import DEFAULT_ALGORITHM, AdaptiveSettings
from bulkhead_lab.live.orders.service import (
    ADAPTIVE,
    SLOW_LATENCY,
    OrderService,
    OrderSettings,
    inventory,
    payment,
)
from bulkhead_lab.live.placement.batch import CATALOG_LATENCY, NOTIFICATION_LATENCY, loan_app

POOLS_PORTS = ("port", "notification_port", "catalog_port")
ORDERS_PORTS = ("port", "payment_port", "inventory_port")


# --- the values both commands take -----------------------------------------------------------


def check_ports(ports: dict[str, object]) -> dict[str, int]:
    """Each port 0 (a free one) or a TCP port, and no fixed port named twice; one line if not."""
    checked = {name: check_port(name, value) for name, value in ports.items()}
    fixed = [p for p in checked.values() if p]
    if len(set(fixed)) != len(fixed):
        raise ValueError(f"ports must differ (got {', '.join(f'{k} {v}' for k, v in checked.items())})")
    return checked


def orders_settings(ns: argparse.Namespace) -> OrderSettings:
    """The Order Service settings ``serve-orders`` names; a bad value is one line."""
    deadlines = {
        name: value
        for name in ("payment_timeout", "inventory_timeout")
        if (value := getattr(ns, name, None)) is not None
    }
    values = dict(
        pool=ns.pool,
        limit=ns.limit,
        queue=ns.queue,
        keepalive=bool(ns.keepalive),
        pool_rule=getattr(ns, "pool_rule", "aiohttp"),
        **deadlines,
    )
    if ns.variant == ADAPTIVE:
        return AdaptiveSettings(**values, algorithm=getattr(ns, "algorithm", DEFAULT_ALGORITHM))
    return OrderSettings(ns.variant, **values)


# --- serve-pools: the lesson's services.mjs ---------------------------------------------------


async def serve_pools(
    host: str = LOOPBACK,
    port: int = 8401,
    notification_port: int = 8402,
    catalog_port: int = 8403,
    *,
    ready: Callable[[str], None] | None = None,
    stop: asyncio.Event | None = None,
) -> None:
    """Serve notification, catalog and the loan service until ``stop`` is set (or cancelled).

    Every port is bound before any service answers; a busy one raises a one-line
    ValueError and whatever was bound is closed again.
    """
    check_host(host)
    check_ports(dict(zip(POOLS_PORTS, (port, notification_port, catalog_port), strict=True)))
    stop = stop or asyncio.Event()
    socks: list[socket.socket] = []
    try:  # bind all three before any answers: a busy port leaves nothing half-started
        for name, value in (
            ("port", port),
            ("notification port", notification_port),
            ("catalog port", catalog_port),
        ):
            socks.append(bind_loopback(value, host=host, name=name))
    except ValueError:
        for sock in socks:
            sock.close()
        raise
    loan_sock, notification_sock, catalog_sock = socks
    with open_to_this_machine():  # node's pooltests.mjs sends no key
        notification = Dependency("notification", NOTIFICATION_LATENCY, sock=notification_sock)
        catalog = Dependency("catalog", CATALOG_LATENCY, sock=catalog_sock)
        loan = LoopbackServer(loan_app(notification, catalog), sock=loan_sock, service="loan service")
    async with contextlib.AsyncExitStack() as stack:
        stack.callback(_close_all, socks)  # the servers close what they started; this closes the rest
        await stack.enter_async_context(notification)
        await stack.enter_async_context(catalog)
        await stack.enter_async_context(loan)
        if ready is not None:
            ready(
                f"serve-pools: loan {loan.url}/run, notification {notification.url} "
                f"({NOTIFICATION_LATENCY * 1000:.0f} ms), catalog {catalog.url} "
                f"({CATALOG_LATENCY * 1000:.0f} ms); {REACH}; Ctrl-C stops"
            )
        await stop.wait()


def _close_all(socks: list[socket.socket]) -> None:
    for sock in socks:
        if sock.fileno() != -1:
            sock.close()


def serve_pools_main(ns: argparse.Namespace) -> int:
    """``python -m bulkhead_lab serve-pools``: foreground until Ctrl-C or SIGTERM; 0 on a clean stop."""

    async def serve(stop: asyncio.Event) -> None:
        await serve_pools(
            ns.host,
            ns.port,
            ns.notification_port,
            ns.catalog_port,
            ready=lambda line: print(line, flush=True),
            stop=stop,
        )

    return serve_foreground("serve-pools", serve)


# --- serve-orders: lesson 004's three services --------------------------------------------------


async def serve_orders(
    settings: OrderSettings,
    *,
    host: str = LOOPBACK,
    port: int = 3001,
    payment_port: int = 3002,
    inventory_port: int = 3003,
    ready: Callable[[str], None] = print,
    stop: asyncio.Event | None = None,
) -> None:
    """Serve Payment, Inventory and Order Service until ``stop`` is set (or forever); a non-loopback
    ``host``, a bad port or one named twice is one line."""
    check_host(host)
    check_ports(dict(zip(ORDERS_PORTS, (port, payment_port, inventory_port), strict=True)))
    with open_to_this_machine():  # the lesson's node scripts send no key
        async with (
            payment(port=payment_port, host=host) as pay,
            inventory(port=inventory_port, host=host) as inv,
            OrderService(settings, pay.url, inv.url, port=port, host=host) as service,
        ):
            ready(f"Payment on {pay.url} (POST /pay: 20 ms, {SLOW_LATENCY:g} s when slow)")
            ready(f"Inventory on {inv.url} (GET /stock: 20 ms)")
            ready(f"Order Service on {service.url} ({settings.describe()})")
            ready(
                f"Deadlines: Payment {settings.payment_timeout:g} s, "
                f"Inventory {settings.inventory_timeout:g} s (then HTTP 504); "
                f"only 127.0.0.1 clients, no other web page (HTTP 403); {REACH}"
            )
            await (stop or asyncio.Event()).wait()


def serve_orders_main(ns: argparse.Namespace) -> int:
    """``python -m bulkhead_lab serve-orders``: foreground until Ctrl-C or SIGTERM; 0 on a clean stop."""
    settings = orders_settings(ns)

    async def serve(stop: asyncio.Event) -> None:
        await serve_orders(
            settings,
            host=ns.host,
            port=ns.port,
            payment_port=ns.payment_port,
            inventory_port=ns.inventory_port,
            ready=lambda line: print(line, flush=True),
            stop=stop,
        )

    return serve_foreground("serve-orders", serve)
