"""The command line: ``bulkhead-lab`` and ``python -m bulkhead_lab``.

``reproduce`` prints lesson 000's output; ``simulate`` runs the seeded model once;
``serve-pools`` and ``serve-orders`` run lesson 003's and lesson 004's services in the
foreground; ``hub-setup`` and ``notebooks`` set a class up on a shared JupyterHub
(:mod:`bulkhead_lab.classroom`). A bad value is one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import fields

from bulkhead_lab import classroom
from bulkhead_lab.pool.params import Params
from bulkhead_lab.pool.rounds import run

# What one simulate costs: a round ~1.5 us and ~64 bytes, an arrival ~0.8 us and ~17 bytes (the
# slower of two measurements: 1,000,000 rounds at 10,000 arrivals/s took 78 s and 1.7 GB on one
# machine, 0.4 us and 9 bytes an arrival on another). Work over these bounds needs --force.
ROUND_SECONDS, ARRIVAL_SECONDS = 1.5e-6, 0.8e-6
ROUND_BYTES, ARRIVAL_BYTES = 64, 17
MAX_WORK_SECONDS = 30.0
MAX_WORK_BYTES = 1e9


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (no usage block) and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def _simulate_args(p: argparse.ArgumentParser) -> None:
    d = Params()
    add = p.add_argument
    add(
        "--split",
        type=int,
        default=None,
        help="tracking compartment slots (events get the rest); absent = one shared pool",
    )
    add("--mode", default=d.mode, help="healthy or slowdown (default %(default)s)")
    add("--seed", type=int, default=d.seed, help="generator seed (default %(default)s)")
    add("--total", type=int, default=d.total, help="slots in all (default %(default)s)")
    add("--rounds", type=int, default=d.rounds, help="rounds to run (default %(default)s)")
    add("--start", type=int, default=d.start, help="failure round (default %(default)s)")
    add("--cycle", type=float, default=d.cycle, help="rounds per second (default %(default)s)")
    add("--tracking-rate", type=float, default=d.tracking_rate, help="tracking req/s")
    add("--event-rate", type=float, default=d.event_rate, help="event req/s")
    add("--hold-tracking", type=int, default=d.hold_tracking, help="tracking hold, rounds")
    add("--hold-event", type=int, default=d.hold_event, help="event hold, rounds")
    add("--slow", type=int, default=d.slow, help="event hold during the slowdown, rounds")
    add("--json", action="store_true", help="print one JSON object of the six counters")
    add("--force", action="store_true", help="run even when the work would take minutes or gigabytes")


def _params(ns: argparse.Namespace) -> Params:
    """The model's parameters from ``simulate``'s options (each option is the field of that name)."""
    return Params(**{f.name: getattr(ns, f.name) for f in fields(Params)})


def _cmd_reproduce(ns: argparse.Namespace) -> int:
    from bulkhead_lab.pool.lesson000 import report

    sys.stdout.write(report())
    return 0


def planned_work(params: Params) -> tuple[float, float, float]:
    """(seconds, bytes, expected arrivals) one run of the model will take, estimated before it runs:
    ``rounds x (1 + expected arrivals a round)`` units of work."""
    arrivals = params.rounds * (params.tracking_rate + params.event_rate) / params.cycle
    seconds = params.rounds * ROUND_SECONDS + arrivals * ARRIVAL_SECONDS
    return seconds, params.rounds * ROUND_BYTES + arrivals * ARRIVAL_BYTES, arrivals


def check_work(params: Params, force: bool) -> None:
    """Refuse, with one line and the figures, a simulate that would take minutes or gigabytes."""
    seconds, nbytes, arrivals = planned_work(params)
    if force or (seconds <= MAX_WORK_SECONDS and nbytes <= MAX_WORK_BYTES):
        return
    raise ValueError(
        f"--force is needed for this much work: about {seconds:.0f} s and {nbytes / 1e9:.1f} GB "
        f"({params.rounds} rounds x {arrivals / params.rounds:.1f} arrivals a round; refused over "
        f"{MAX_WORK_SECONDS:g} s or {MAX_WORK_BYTES / 1e9:g} GB); or lower --rounds or the rates"
    )


def _cmd_simulate(ns: argparse.Namespace) -> int:
    params = _params(ns)
    check_work(params, ns.force)
    counters = run(params)
    if ns.json:
        import json  # here, not at the top: `reproduce` starts without it

        print(json.dumps(counters.as_dict()))
        return 0
    from bulkhead_lab.pool.lesson000 import average_busy, utilization

    kind = "single pool" if params.split is None else "bulkhead"
    slots = f"{params.total}" if params.split is None else f"{params.split}/{params.total - params.split}"
    print(f"{kind} ({slots}), {params.mode} day, seed {params.seed}, {params.rounds} rounds")
    for name, value in counters.as_dict().items():
        print(f"  {name.replace('_', ' '):<22}{value:>10}")
    print(f"  {'average busy slots':<22}{average_busy(counters, params.rounds):>10.2f}")
    print(f"  {'utilization':<22}{utilization(counters, params.rounds, params.total):>10.3f}")
    return 0


def _serve_pools_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to bind (loopback only)")
    p.add_argument("--port", type=int, default=8401, help="loan service port")
    p.add_argument("--notification-port", type=int, default=8402)
    p.add_argument("--catalog-port", type=int, default=8403)


def _serve_orders_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--variant", required=True, help="shared, separate, limited or adaptive")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (loopback only)")
    p.add_argument("--port", type=int, default=3001, help="Order Service port")
    p.add_argument("--payment-port", type=int, default=3002)
    p.add_argument("--inventory-port", type=int, default=3003)
    p.add_argument("--pool", type=int, default=10, help="shared pool size (variant shared)")
    p.add_argument("--limit", type=int, default=5, help="per-dependency pool / bulkhead limit")
    p.add_argument("--queue", type=int, default=5, help="bulkhead waiting places (limited)")
    p.add_argument("--keepalive", action="store_true", help="keep idle connections open")
    p.add_argument(
        "--pool-rule",
        default="aiohttp",
        help="what counts against a pool's limit: aiohttp (connections in use, the default) or node "
        "(every socket owned, idle kept-alive ones included, as Node's maxTotalSockets)",
    )
    p.add_argument(
        "--algorithm",
        default="Gradient2",
        help="adaptive only: the limiter moving the bulkhead's limit: Gradient2 (default), Vegas, AIMD "
        "or Envoy",
    )
    # None: the Order Service's own default (10 s), kept in one place, live/orders/service.py
    p.add_argument(
        "--payment-timeout",
        type=float,
        default=None,
        help="seconds a Payment call may take once sent, then HTTP 504 (default 10)",
    )
    p.add_argument(
        "--inventory-timeout",
        type=float,
        default=None,
        help="seconds an Inventory call may take once sent, then HTTP 504 (default 10)",
    )


def _cmd_serve(ns: argparse.Namespace) -> int:
    from bulkhead_lab.live import serve  # here, not at the top: the other commands start without aiohttp

    return serve.serve_pools_main(ns) if ns.command == "serve-pools" else serve.serve_orders_main(ns)


COMMANDS = {
    "reproduce": ("print lesson 000's output, byte for byte", None, _cmd_reproduce),
    "simulate": ("run the seeded model once", _simulate_args, _cmd_simulate),
    "serve-pools": (
        "lesson 003's loan, notification and catalog services",
        _serve_pools_args,
        _cmd_serve,
    ),
    "serve-orders": (
        "lesson 004's Order, Payment and Inventory services",
        _serve_orders_args,
        _cmd_serve,
    ),
    "hub-setup": (
        "a shared JupyterHub: the lab settings and the course's notebooks into its environment",
        classroom.hub_setup_args,
        classroom.hub_setup,
    ),
    "notebooks": (
        "your own copy of the course's notebooks, or one reset to the course's (--reset 04)",
        classroom.notebooks_args,
        classroom.notebooks,
    ),
}


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="bulkhead-lab", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, (help_text, add_args, func) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if add_args is not None:
            add_args(p)
        p.set_defaults(func=func)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (2 for any bad value)."""
    ns = build_parser().parse_args(argv)
    try:
        return ns.func(ns)
    except ValueError as exc:
        print(f"bulkhead-lab {ns.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
