"""Notebook 09's exercises: predict, then move the slider; the design task, checked on a day you have
not seen (:mod:`bulkhead_lab.course.judges.compartment_design`); and a soft partition of the learner's
own, judged answer by answer against section 1's rule in every state of many pools
(:mod:`bulkhead_lab.course.judges.soft_partition`). Every right answer is computed by the package's
models."""

from __future__ import annotations

import re

from bulkhead_lab.compartments import design, partition_sweep, partitions
from bulkhead_lab.compartments.design import Compartment, Design
from bulkhead_lab.compartments.partition_sweep import first_costly_share, keep_as_good_as_the_wall
from bulkhead_lab.course.judges import soft_partition
from bulkhead_lab.course.judges.compartment_design import checked, timeout_words
from bulkhead_lab.course.sharing_compartments import views
from bulkhead_lab.course.ui import exercise as ui
from bulkhead_lab.course.ui.exercise import Exercise, NotUnderstood, read_number, read_whole

# 1: the first reserved share at which the healthy day drops more than the single pool


def read_eighths(answer: object) -> int:
    """A share in eighths: ``'4/8'``, ``4``, ``0.5``, ``'50%'``, ``'half'``."""
    if isinstance(answer, str):
        text = answer.strip().lower()
        if "half" in text:
            return 4
        if match := re.fullmatch(r"(\d+)\s*/\s*8", text):
            return _eighths(int(match.group(1)))
        if text.endswith("%"):
            return _eighths(round(read_number(text) / 100 * 8))
    value = read_number(answer, "a share in eighths, like 3/8")
    return _eighths(round(value * 8) if 0 < value < 1 else int(value) if value == int(value) else -1)


def _eighths(k: int) -> int:
    if not 0 <= k <= 8:
        raise NotUnderstood("this asks for a share from 0/8 (all shared) to 8/8 (all reserved), like 3/8.")
    return k


def _share_1(k: int) -> dict[str, object]:
    drops, single = partition_sweep.healthy_drops, partition_sweep.healthy_drops(0.0)
    return {
        "layout": partition_sweep.soft_label(k / 8),
        "drops": drops(k / 8),
        "single": single,
        "limit": round(single * (1 + partition_sweep.MARGIN)),
        "margin": f"{partition_sweep.MARGIN:.0%}",
        "over": f"{(drops(k / 8) - single) / single:+.0%}",
    }


exercise_1 = Exercise(
    1,
    "When does reserving cost?",
    read=read_eighths,
    right=lambda: first_costly_share(),
    figures=_share_1,
    right_says="at {value}/8 ({layout}) the healthy day drops {drops}, the single pool {single} ({over}, "
    "past the {margin} margin). Below it, reserving costs less than another seed's day moves the count.",
    otherwise=(
        "{value}/8 drops {drops}, past {limit}, but a smaller share already does.",
        "at {value}/8 the healthy day drops {drops} against the single pool's {single} ({over}): within the "
        "{margin} margin (at most {limit}).",
    ),
    hint="move the reserved share up one eighth at a time and add the healthy day's two drop counts; "
    "compare with the margin's line above.",
    worked=("{right}/8.", lambda a: views.soft_table()),
    placeholder="eighths, like 3/8",
)

# 2: the fewest slots kept back for tracking that protect it as well as 24/8 on the slowdown day


def _keep_2(keep: int) -> dict[str, object]:
    _, split = partition_sweep.lesson_layouts()
    days = partition_sweep.shed_days(keep)
    wall = split["slowdown"].tracking_dropped
    return {
        "tracking": days["slowdown"].tracking_dropped,
        "events": days["healthy"].event_dropped,
        "wall": wall,
        "limit": int(wall * (1 + partition_sweep.MARGIN)),
        "margin": f"{partition_sweep.MARGIN:.0%}",
        "wall_events": split["healthy"].event_dropped,
    }


exercise_2 = Exercise(
    2,
    "Shedding as well as a wall",
    read=lambda a: read_whole(a, 0, partition_sweep.KEEPS[-1], "the slots kept back for tracking"),
    right=lambda: keep_as_good_as_the_wall(),
    figures=_keep_2,
    right_says="keeping {value} drops {tracking} tracking calls (24/8: {wall}; within the {margin} margin, "
    "at most {limit}); the price is {events} events dropped on the healthy day (24/8: {wall_events}).",
    otherwise=(
        "{value} protects tracking ({tracking} dropped, at most {limit}), but fewer slots kept do too.",
        "keeping {value}, the slowdown day drops {tracking} tracking calls, more than {limit} (24/8's {wall} "
        "and the {margin} margin).",
    ),
    hint="move 'slots kept for tracking' and compare the slowdown day's tracking drops with the 24/8 line "
    "and the margin.",
    worked=("{right} slots.", lambda a: views.shed_table()),
    placeholder="slots",
)


# 3: the design task

WORKED = Design(Compartment(9, 2, 0.6), Compartment(13, 4, 0.4), Compartment(8, 2, 8.0), shared=6)
_TYPED = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*/\s*(?:(none)|([\d.]+)\s*(ms|s)?)\s*$", re.I)
TYPED_FORM = "'9/2/0.6, 13/4/0.4, 8/2/8, 6'"


def read_design(answer: object) -> Design:
    """A :class:`Design`, or typed as ``'9/2/0.6, 13/4/0.4, 8/2/8, 6'``: reserved/queue/timeout for
    checkout, search and reports, then the shared slots. A timeout is in seconds (``8``, ``8 s``), or in
    milliseconds with ``ms`` (``600ms``); ``none`` is no timeout (the whole day's 600 s)."""
    try:
        if isinstance(answer, Design):
            return design.check_fits(answer)
        if isinstance(answer, str):
            parts = [p for p in re.split(r"[,;]", answer) if p.strip()]
            if len(parts) != 4:
                raise NotUnderstood(
                    f"type four parts: reserved/queue/timeout for checkout, search and reports, "
                    f"then the shared slots, like {TYPED_FORM}."
                )
            checkout, search, reports = (_compartment(p) for p in parts[:3])
            shared = int(read_number(parts[3], "the shared slots"))
            return design.check_fits(Design(checkout, search, reports, shared=shared))
    except NotUnderstood:
        raise
    except (ValueError, TypeError) as err:
        raise NotUnderstood(f"{err}.") from None
    raise NotUnderstood(f"{answer!r} is not a design: pass views.Design(...) or type {TYPED_FORM}.")


def _compartment(text: str) -> Compartment:
    match = _TYPED.match(text)
    if match is None:
        raise NotUnderstood(
            f"{text.strip()!r} is not reserved/queue/timeout, like 9/2/0.6 (the timeout in seconds)."
        )
    reserved, queue, none, number, unit = match.groups()
    if none:
        return Compartment(int(reserved), int(queue))
    timeout = float(number) / (1000 if unit and unit.lower() == "ms" else 1)
    return Compartment(int(reserved), int(queue), timeout)


def spelled(d: Design) -> str:
    """A design in words: each flow's reserve, waiting places and timeout, then the shared slots."""
    flows = [
        f"{name} {c.reserved} reserved, {c.queue} waiting, timeout {timeout_words(c.timeout)}"
        for name, c in zip(design.FLOWS, d.compartments, strict=True)
    ]
    return "; ".join(flows) + f"; {d.shared} shared"


exercise_3 = Exercise(
    3,
    "Design the compartments",
    read=read_design,
    right=lambda: WORKED,
    right_when=lambda a: checked(a.value)[0],
    figures=lambda d: {"line": checked(d)[1]},
    right_says="{line}",
    otherwise="{line}",
    hint="size each reserve from its flow's calls in flight in its busiest minute (Little, then Erlang-B), "
    "give search room for its surge, and give reports a timeout in seconds near its SLO's, so its hung "
    "calls cannot hold their slots for minutes.",
    worked=(
        lambda a: f"One design that meets every SLO: {spelled(WORKED)}. On the day you saw:",
        lambda a: views.try_design(WORKED),
        "{line}",
    ),
    placeholder="9/2/0.6, 13/4/0.4, 8/2/8, 6",
)


# 4: write the soft partition: every answer in every state of many pools, against section 1's rule

exercise_4 = write_soft_partition = Exercise(
    4,
    "Write the soft partition",
    read=ui.judged(soft_partition.check, "function"),
    hint="a call may take a free slot of its own reserve (busy[flow] < reserved[flow]); else one of the "
    "shared rest, while what all flows hold beyond their reserves is under total - sum(reserved).",
    worked=(
        "**The course's own rule** (section 1's cell, `bulkhead_lab.compartments.partitions`):",
        ui.source(partitions.soft_partition),
    ),
    placeholder="your function's name",
    typed="my_soft_partition",
)
