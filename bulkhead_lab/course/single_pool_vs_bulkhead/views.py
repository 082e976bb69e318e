"""The tables notebook 02 shows beside its own cells: refusals per layout, the trade-off against every
split, one round's compartments, and lesson 000's figures (the appendix).

A table that takes ``run_day`` runs the notebook's own day (its cells define the round, exported to
:mod:`bulkhead_lab.pool.rounds`); the slider views replay the package's memoised runs. A *layout* is
a split: ``None`` is one shared pool, ``n`` is ``n`` tracking and ``total - n`` event slots.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial

import pandas as pd

from bulkhead_lab.course.ui.claim_table import Claim, count, exact, table
from bulkhead_lab.pool import lesson000
from bulkhead_lab.pool.params import LESSON_SPLIT, MODES, ROUNDS, TOTAL, Counters, Params, split_label
from bulkhead_lab.pool.rounds import counters, occupancy
from bulkhead_lab.pool.sweep import split_counters
from bulkhead_lab.validation import check_int

LESSON_SPLITS: tuple[int, ...] = tuple(s for s in lesson000.SIZING_SPLITS if s is not None)  # 28, 24, 20, 16
SENSITIVITY_SPLIT = lesson000.SENSITIVITY_SPLIT  # 27/5
LESSON = Params(split=LESSON_SPLIT)  # the lesson's knobs with its 24/8 bulkhead


def counters_table(days: Mapping[tuple[int | None, str], Counters]) -> pd.DataFrame:
    """Lesson 000's counters, one row per layout and day (``days``: ``(split, mode)`` to its counters):
    a table, so that no row wraps in a narrow window."""
    rows = {
        (split_label(split), mode): {
            "tracking served": c.tracking_responses,
            "tracking dropped": c.tracking_dropped,
            "events served": c.event_responses,
            "events dropped": c.event_dropped,
            "idle slots": c.idle,
            "average busy slots": round(c.busy_rounds / ROUNDS, 2),
        }
        for (split, mode), c in days.items()
    }
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index = pd.MultiIndex.from_tuples(list(rows), names=["layout", "day"])
    return frame


def healthy_cost(single: Counters, bulkhead: Counters) -> pd.DataFrame:
    """The healthy day in one pool and under the bulkhead, and the bulkhead's difference, a column each:
    what each served and refused, the idle slots beside its refusals, and how many slots were busy.

    The busy slots fall under the bulkhead because it serves fewer requests (it refuses more), not
    because it does the same work with fewer slots: the difference column says both.
    """

    def numbers(c: Counters) -> dict[str, float]:
        refused = c.tracking_dropped + c.event_dropped
        return {
            "served": c.tracking_responses + c.event_responses,
            "refused": refused,
            "tracking refused": c.tracking_dropped,
            "events refused": c.event_dropped,
            "idle slots": c.idle,
            "idle slots per refusal": c.idle / refused if refused else 0.0,
            "average busy slots": c.busy_rounds / ROUNDS,
            "utilization": c.busy_rounds / ROUNDS / TOTAL,
        }

    places = {"idle slots per refusal": 2, "average busy slots": 2, "utilization": 3}
    one, wall = numbers(single), numbers(bulkhead)

    def shown(values: dict[str, float], signed: bool = False) -> dict[str, str]:
        sign = "+" if signed else ""
        return {k: f"{v:{sign}.{places.get(k, 0)}f}" for k, v in values.items()}

    difference = shown({k: wall[k] - one[k] for k in one}, signed=True)
    difference["idle slots per refusal"] = ""  # a difference of two ratios says nothing here
    label = split_label(LESSON_SPLIT)
    columns = {split_label(None): shown(one), label: shown(wall), f"{label} - single pool": difference}
    return pd.DataFrame(columns).rename_axis("healthy day")  # a figure a row: narrow enough for any window


def _share(dropped: int, served: int) -> str:
    return f"{dropped / (dropped + served):.2%}" if dropped + served else "-"


def refusals(run_day: Callable[[Params], Counters], layouts: Mapping[str, Params]) -> pd.DataFrame:
    """Each layout's healthy-day refusals per flow, and its tracking drops on the slowdown day."""
    rows = {}
    for name, params in layouts.items():
        h, y = (run_day(params.with_(mode=mode)) for mode in MODES)
        rows[name] = {
            "slots": params.total,
            "tracking refused, healthy": _share(h.tracking_dropped, h.tracking_responses),
            "events refused, healthy": _share(h.event_dropped, h.event_responses),
            "tracking dropped, slowdown": y.tracking_dropped,
        }
    return pd.DataFrame(rows).T.rename_axis("layout")


@dataclass(frozen=True)
class TradeoffView:
    """Drops per flow against split on both days, with one split marked."""

    split: int | None
    sweep: pd.DataFrame  # index: split 1..total-1
    single: pd.Series  # the same columns for the single pool

    def at(self, split: int | None) -> pd.Series:
        """The sweep's row for one layout (``None``: the single pool)."""
        return self.single if split is None else self.sweep.loc[split]

    def table(self) -> pd.DataFrame:
        """The rows a learner reads: single pool, the lesson's splits and the marked split."""
        marks: list[int | None] = [None, *sorted({*LESSON_SPLITS, SENSITIVITY_SPLIT}, reverse=True)]
        if self.split not in marks:
            marks.append(self.split)
        frame = pd.DataFrame({split_label(s): self.at(s) for s in marks}).T
        return frame.rename_axis("pool split").astype(int)


SWEEP_COLUMNS = (  # "healthy tracking dropped", ..., "slowdown idle slots": as _row orders them
    *(f"{day} {flow} dropped" for day in MODES for flow in ("tracking", "event")),
    *(f"{day} idle slots" for day in MODES),
)


def _row(h: Counters, y: Counters) -> list[int]:
    return [h.tracking_dropped, h.event_dropped, y.tracking_dropped, y.event_dropped, h.idle, y.idle]


def tradeoff_view(params: Params = LESSON) -> TradeoffView:
    """Every split 1..total-1 on both days (the trade-off), marking ``params.split``."""
    days = (split_counters(params.with_(mode=mode)) for mode in MODES)
    data = [_row(h, y) for h, y in zip(*days, strict=True)]
    splits = pd.Index(range(1, params.total), name="split")
    sweep = pd.DataFrame(data, index=splits, columns=list(SWEEP_COLUMNS))
    single = _row(*(counters(params.with_(mode=mode, split=None)) for mode in MODES))
    return TradeoffView(params.split, sweep, pd.Series(single, index=list(SWEEP_COLUMNS)))


@dataclass(frozen=True)
class CompartmentView:
    """Every pool's slots at one round of the slowdown day: the step-through's picture."""

    round: int
    start: int
    frame: pd.DataFrame  # index pool; columns layout, slots, tracking, event, busy, free

    @property
    def failing(self) -> bool:
        return self.round >= self.start


def compartment_view(round: int = LESSON.start + 100, params: Params = LESSON) -> CompartmentView:
    """Every pool's slots at the start of ``round`` (slowdown day): busy by flow, and free.

    In the single pool both flows hold slots of the one pool; under a split each compartment
    holds one flow only.
    """
    check_int("round", round, 0, params.rounds - 1)
    total = params.total
    shared = occupancy(params.with_(mode="slowdown", split=None))
    rows = {f"single pool ({total})": ("single pool", total, shared.tracking[round], shared.event[round])}
    if params.split is not None:
        split, occ = params.split, occupancy(params.with_(mode="slowdown"))
        label = split_label(split, total)
        rows[f"tracking pool ({split})"] = (label, split, occ.tracking[round], 0)
        rows[f"event pool ({total - split})"] = (label, total - split, 0, occ.event[round])
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=["layout", "slots", "tracking", "event"])
    frame["busy"] = frame["tracking"] + frame["event"]
    frame["free"] = frame["slots"] - frame["busy"]
    return CompartmentView(round, params.start, frame.rename_axis("pool"))


# --- the appendix: lesson 000's printout and figures ------------------------------------------------


@dataclass(frozen=True)
class Printout:
    """Lesson 000's printed text: its plain form byte for byte (what nbval compares), its HTML form
    in a box that scrolls sideways instead of breaking each 180-character row in two."""

    text: str

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        style = "white-space: pre; overflow-x: auto; font-size: 11px; line-height: 1.3; margin: 0"
        return f'<pre style="{style}">{html.escape(self.text)}</pre>'


def lesson_printout() -> Printout:
    """``bulkhead-run.mjs``'s output, byte for byte (:func:`lesson000.report`)."""
    return Printout(lesson000.report())


def lesson_claims(base: Params = Params()) -> list[Claim]:
    """Every figure lesson 000 states in its text, beside the same figure computed by the model here."""
    here = lesson000.stated_here(base)
    return [exact(*said, now) for said, now in zip(lesson000.STATED, here, strict=True)]


claims_table = partial(table, lesson="lesson 000", appendix=True)  # numbered, where, reproduced or not
claims_count = partial(count, lesson="lesson 000")  # how many the model reproduces (exactly: it is seeded)
