"""The numbers notebook 01 shows: Little's Law, headroom, Erlang-B, and the seeded model beside them.

Each function returns plain data (a frozen dataclass, a pandas frame); :mod:`.figures`
draws it and :mod:`.panels` wires it to sliders. The formulas are
:mod:`bulkhead_lab.sizing`'s; the measured drop rates are seeded model runs memoised
(:mod:`bulkhead_lab.memo`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from bulkhead_lab import sizing
from bulkhead_lab.pool import lesson000
from bulkhead_lab.pool.arrivals import EVENT
from bulkhead_lab.pool.params import CYCLE, Params, split_label
from bulkhead_lab.pool.rounds import counters, occupancy
from bulkhead_lab.pool.sweep import compartment
from bulkhead_lab.validation import check_int, check_real

# What lessons 004 and 000 print about sizing, as they print it.
LESSON_004_IN_FLIGHT = 2  # lesson 004: "about 2 calls are in progress at any moment" (20/s x 0.1 s)
LESSON_004_LIMITS = (5, 6)  # lesson 004: "Set the limit a few times above that - say 5 or 6"
LESSON_000_IN_FLIGHT = 5.83  # lesson 000: "0.9722 arrivals/round times 6 rounds, that is, 5.83 slots"
LESSON_000_HEADROOM = 1.37  # lesson 000: "eight slots is 1.37 times that"
LESSON_000_UTILIZATION = {8: 0.729, 5: 1.167}  # lesson 000's sensitivity row


def _rate(dropped: int, responses: int) -> float:
    arrivals = dropped + responses
    return dropped / arrivals if arrivals else 0.0


@dataclass(frozen=True)
class LittleExample:
    """Little's Law for one flow: in flight, and the limit a few times above it."""

    name: str
    arrival_rate: float
    hold: float
    unit: str
    in_flight: float
    limits: tuple[int, ...]

    def sentence(self) -> str:
        return (
            f"{self.name}: {self.arrival_rate:g} calls/{self.unit} x {self.hold:g} {self.unit} = "
            f"{self.in_flight:g} in flight, so a limit of {' or '.join(map(str, self.limits))}."
        )


def order_service_example(rate: float = 20.0, hold: float = 0.1) -> LittleExample:
    """Lesson 004's Payment flow: 20 calls/s x 0.1 s = 2 in flight; limit 5 or 6 (2.5x or 3x)."""
    load = sizing.in_flight(rate, hold)
    limits = tuple(sizing.suggested_limit(rate, hold, f) for f in (2.5, 3.0))
    return LittleExample("Payment (lesson 004)", rate, hold, "s", round(load, 6), limits)


@dataclass(frozen=True)
class EventFlowSizing:
    """Lesson 000's event flow against its pool: load, headroom and utilization."""

    arrivals_per_round: float
    hold: int
    in_flight: float
    slots: int
    headroom: float
    utilization_at: dict[int, float]

    def sentence(self) -> str:
        u = " and ".join(f"{v:.3f} at {k} slots" for k, v in self.utilization_at.items())
        return (
            f"The event flow: {self.arrivals_per_round:.4f} arrivals/round x {self.hold} rounds = "
            f"{self.in_flight:.2f} slots in flight; {self.slots} slots is {self.headroom:.2f}x that. "
            f"Utilization {u}: above 1 the pool cannot carry its own usual load."
        )


def event_flow_sizing(base: Params = Params(), slots: int = 8) -> EventFlowSizing:
    """0.9722 arrivals/round x 6 rounds = 5.83 slots; 8 slots = 1.37x; utilization 0.729 and 1.167."""
    rate = base.event_rate / base.cycle
    return EventFlowSizing(
        arrivals_per_round=rate,
        hold=base.hold_event,
        in_flight=sizing.in_flight(rate, base.hold_event),
        slots=slots,
        headroom=sizing.headroom(rate, base.hold_event, slots),
        utilization_at={
            n: lesson000.event_pool_utilization(base, n) for n in lesson000.SENSITIVITY_EVENT_SLOTS
        },
    )


def beside_the_lessons(base: Params = Params()) -> pd.DataFrame:
    """Each sizing figure the lessons print, beside the same figure computed here."""
    payment = order_service_example()
    event = event_flow_sizing(base)
    rows = [
        ("Payment's calls in flight (lesson 004)", LESSON_004_IN_FLIGHT, f"{payment.in_flight:g}"),
        (
            "Payment's limit at 2.5x / 3x (lesson 004)",
            " or ".join(map(str, LESSON_004_LIMITS)),
            " or ".join(map(str, payment.limits)),
        ),
        ("event slots in flight (lesson 000)", LESSON_000_IN_FLIGHT, f"{event.in_flight:.2f}"),
        ("headroom of 8 event slots (lesson 000)", LESSON_000_HEADROOM, f"{event.headroom:.2f}"),
    ]
    for slots, value in LESSON_000_UTILIZATION.items():
        rows.append(
            (
                f"event pool utilization at {slots} slots (lesson 000)",
                value,
                f"{event.utilization_at[slots]:.3f}",
            )
        )
    frame = pd.DataFrame(rows, columns=["figure", "lesson", "computed here"]).set_index("figure")
    return frame.astype(str)


def one_flow_params(rate_per_s: float, hold_rounds: int, slots: int, cycle: float = CYCLE) -> Params:
    """The seeded model with one flow alone in a pool of ``slots``: the event flow, tracking rate 0.

    The tracking pool keeps one slot that nothing ever uses, so the event pool is exactly ``slots``.
    """
    check_int("slots", slots, 1, 1000)
    return Params(
        split=1,
        total=slots + 1,
        mode="healthy",
        tracking_rate=0.0,
        event_rate=rate_per_s,
        hold_event=hold_rounds,
        cycle=cycle,
    )


def simulated_blocking(rate_per_s: float, hold_rounds: int, slots: int) -> float:
    """The share of the one flow's arrivals the seeded model drops in a pool of ``slots``.

    The flow alone is one compartment of the sweep (exactly ``run(one_flow_params(...))``'s
    event counters, and far cheaper): every pool size shares one stream and one memo key.
    """
    check_int("slots", slots, 1, 1000)
    c = compartment(one_flow_params(rate_per_s, hold_rounds, 1), EVENT, slots)
    return _rate(c.dropped, c.responses)


def hold_in_rounds(hold_s: float, cycle: float = CYCLE) -> int:
    """A hold in seconds as the model's whole rounds (at least one)."""
    check_real("hold", hold_s, 0.0, 60.0, low_open=True)
    return max(1, round(hold_s * cycle))


@dataclass(frozen=True)
class LittleView:
    """Notebook 01's slider view: Little's Law, Erlang-B and the seeded model for one pool.

    *Headroom* has one meaning here: slots per call in flight (slots / in flight). The
    pool's own headroom is :attr:`pool_headroom`; :attr:`target_headroom` is the headroom
    the rule of thumb aims for, and :attr:`suggested_limit` the pool size it gives.
    """

    arrival_rate: float  # calls/s
    hold: float  # s
    hold_rounds: int
    slots: int
    target_headroom: float
    in_flight: float
    utilization: float
    pool_headroom: float
    suggested_limit: int
    erlang_b: float
    simulated: float
    curve: pd.DataFrame  # index slots; erlang-b, erlang-b (hold - 1/2 round), seeded model

    def table(self) -> pd.DataFrame:
        """The figures for the chosen pool, one row each, the two blocking numbers first."""
        rows = {
            "Erlang-B blocking": round(self.erlang_b, 4),
            "seeded model drop rate": round(self.simulated, 4),
            "in flight (Little's Law)": round(self.in_flight, 3),
            "pool size (slots)": self.slots,
            "utilization (in flight / slots)": round(self.utilization, 3),
            "headroom of this pool (slots / in flight)": round(self.pool_headroom, 2),
            f"suggested limit (headroom {self.target_headroom:g}x)": self.suggested_limit,
            "arrival rate (calls/s)": self.arrival_rate,
            "hold (s)": self.hold,
            "hold (rounds)": self.hold_rounds,
        }
        return pd.DataFrame({"value": pd.Series(rows, dtype=object)})


MAX_POOL = 64  # the largest pool the view draws
MAX_TARGET_HEADROOM = 5.0  # the target headroom slider's top


def pool_sizes_shown(in_flight: float, slots: int) -> int:
    """How many pool sizes the curve covers: past the pool and every limit the headroom slider can
    suggest (up to 5x the load), rounded up to 16, 32 or 64, so the axis rescales seldom (never
    when only the headroom moves)."""
    wanted = max(slots + 4, math.ceil(MAX_TARGET_HEADROOM * in_flight) + 2)
    return next(n for n in (16, 32, MAX_POOL) if n >= wanted or n == MAX_POOL)


def littles_law_view(
    arrival_rate: float = 97.22,
    hold: float = 0.06,
    slots: int = 8,
    target_headroom: float = 2.5,
    max_slots: int | None = None,
) -> LittleView:
    """In flight = rate x hold, and the blocking of a pool of ``slots``: Erlang-B against the model.

    ``arrival_rate`` is calls/s and ``hold`` seconds; the model runs at 100 rounds/s, so the
    hold is rounded to whole rounds there. The curve covers pool sizes 1..``max_slots``
    (default: a little past the pool, twice the load and the suggested limit, so all three
    stay in view).
    """
    check_real("arrival_rate", arrival_rate, 0.0, 1000.0, low_open=True)
    check_int("slots", slots, 1, MAX_POOL)
    check_real("target_headroom", target_headroom, 1.0, MAX_TARGET_HEADROOM)
    rounds = hold_in_rounds(hold)
    per_round = arrival_rate / CYCLE
    load = sizing.in_flight(arrival_rate, hold)
    suggested = sizing.suggested_limit(arrival_rate, hold, target_headroom)
    if max_slots is None:
        max_slots = pool_sizes_shown(load, slots)
    check_int("max_slots", max_slots, 1, MAX_POOL)
    sizes = range(1, max_slots + 1)
    offered = per_round * rounds  # erlangs, in the model's units
    curve = pd.DataFrame(
        {
            "Erlang-B": [sizing.erlang_b(n, offered) for n in sizes],
            "Erlang-B, hold - 1/2 round": [sizing.erlang_b(n, per_round * (rounds - 0.5)) for n in sizes],
            "seeded model": [simulated_blocking(arrival_rate, rounds, n) for n in sizes],
        },
        index=pd.Index(sizes, name="slots"),
    )
    return LittleView(
        arrival_rate=arrival_rate,
        hold=hold,
        hold_rounds=rounds,
        slots=slots,
        target_headroom=target_headroom,
        in_flight=load,
        utilization=sizing.utilization(arrival_rate, hold, slots),
        pool_headroom=sizing.headroom(arrival_rate, hold, slots),
        suggested_limit=suggested,
        erlang_b=sizing.erlang_b(slots, offered),
        simulated=simulated_blocking(arrival_rate, rounds, slots),
        curve=curve,
    )


@dataclass(frozen=True)
class PoolSizeCost:
    """What too small and too big cost, per event pool size, out of the same 32 slots."""

    frame: pd.DataFrame  # index pool split; one row per event pool size, the single pool last
    total: int
    start: int


def pool_size_cost(
    base: Params = Params(), event_slots: tuple[int, ...] = (4, 5, 6, 8, 10, 12, 16, 24)
) -> PoolSizeCost:
    """Too small and too big, in the model's numbers, for each event pool size out of the 32 slots.

    Too small: the event flow's own healthy-day drops (a utilization near or above 1).
    Too big: on the slowdown day the slow events fill whatever compartment they are given,
    so a bigger event pool lets them hold more of the 32 slots, and the tracking pool
    that gave those slots up drops more (the same number on both days: its compartment
    never sees the slowdown). The single pool is the limit case: no wall at all.
    """
    rows = []
    after = slice(base.start, base.rounds)
    layouts: list[tuple[int | None, str]] = []
    for n in event_slots:
        check_int("event_slots", n, 1, base.total - 1)
        layouts.append((base.total - n, str(n)))
    layouts.append((None, f"all {base.total}, shared"))
    for split, slots in layouts:
        h = counters(base.with_(split=split, mode="healthy"))
        y = counters(base.with_(split=split, mode="slowdown"))
        held = occupancy(base.with_(split=split, mode="slowdown")).event[after]
        mean_held = sum(held) / len(held) if held else math.nan
        rows.append(
            {
                "pool split": split_label(split, base.total),
                "event slots": slots,
                "healthy event drop %": round(100 * _rate(h.event_dropped, h.event_responses), 2),
                "slowdown: slots slow events hold": round(mean_held, 1),
                "share of all slots": f"{mean_held / base.total:.0%}",
                "tracking dropped, healthy day": h.tracking_dropped,
                "tracking dropped, slowdown day": y.tracking_dropped,
            }
        )
    return PoolSizeCost(pd.DataFrame(rows).set_index("pool split"), base.total, base.start)
