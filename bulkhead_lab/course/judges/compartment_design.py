"""Notebook 09's design task, checked: a learner's :class:`~bulkhead_lab.compartments.design.Design` played
on a day the notebook has not shown (:data:`CHECK_SEED`: the same traffic with other seeded arrivals and
latencies, so a design tuned to the practice day's last call may miss), and one line saying which SLOs it
meets there and by how much each fell short."""

from __future__ import annotations

from bulkhead_lab.compartments.design import FLOWS, MAX_TIMEOUT, Design, FlowResult, run_day
from bulkhead_lab.memo import Memo

CHECK_SEED = 9  # the day the checker runs: not design.PRACTICE_SEED, the one the notebook shows


def verdict(results: tuple[FlowResult, ...]) -> str:
    """One line: which SLOs the day met, and by how much each fell short."""
    met = [r for r in results if r.meets]
    missed = [r for r in results if not r.meets]
    said = lambda r, sign: f"{r.name} ({r.share:.2%} {sign} {r.slo_target:.1%})"  # noqa: E731
    parts = []
    if met:
        parts.append("meets " + ", ".join(said(r, ">=") for r in met))
    if missed:
        parts.append("misses " + ", ".join(said(r, "<") for r in missed))
    return "; ".join(parts) + "."


def timeout_words(timeout: float) -> str:
    """A timeout in words, with its unit: ``'0.6 s'``, or ``'none'`` for :data:`MAX_TIMEOUT`."""
    return "none" if timeout >= MAX_TIMEOUT else f"{timeout:g} s"


def timeouts(design: Design) -> str:
    """Each flow's timeout in words: ``'checkout 0.6 s, search 0.4 s, reports none'``."""
    pairs = zip(FLOWS, design.compartments, strict=True)
    return ", ".join(f"{name} {timeout_words(c.timeout)}" for name, c in pairs)


_checks: Memo[Design, tuple[bool, str]] = Memo("design checks", 64)


def checked(design: Design) -> tuple[bool, str]:
    """The checker: whether ``design`` meets every SLO on the day the learner has not seen, and one line
    (kept: a learner checking the same design again replays nothing)."""

    def run() -> tuple[bool, str]:
        results = run_day(design, CHECK_SEED)
        line = (
            f"On a day you have not seen, your {design.slots}-slot design (timeouts: {timeouts(design)}) "
            f"{verdict(results)}"
        )
        return all(r.meets for r in results), line

    return _checks.get(design, run)
