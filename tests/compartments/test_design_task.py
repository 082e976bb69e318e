"""The design task: a small day traced by hand, the checker on a design that meets the SLOs and one that does
not, and bad designs refused in one line."""

from __future__ import annotations

import pytest

from bulkhead_lab.compartments import design
from bulkhead_lab.compartments.design import Compartment, Design, Flow
from bulkhead_lab.course.judges import compartment_design as checker

ONE_SLOT = Compartment(1)
FLOWS = tuple(Flow(name, 1.0, 1.0, slo_latency=0.6, slo_target=0.5) for name in design.FLOWS)


def _play(
    checkout: Compartment,
    shared: int,
    calls: list[tuple[float, int, float]],
    search: Compartment = ONE_SLOT,
) -> tuple[design.FlowResult, ...]:
    return design.play(Design(checkout, search, Compartment(1), shared=shared), FLOWS, calls)


def test_a_small_day_traced_by_hand_reserve_then_shared_then_queue_then_refused() -> None:
    # checkout: 1 reserved, 1 waiting place, a 1-s timeout; 1 shared slot; SLO: answered within 0.6 s
    calls = [
        (0.0, 0, 2.0),  # A: the reserved slot; its 2-s call outlives the 1-s timeout: cancelled at 1.0
        (0.1, 0, 0.5),  # B: the shared slot, answered at 0.6 (0.5 s: within the SLO)
        (0.2, 0, 0.3),  # C: waits; B's shared slot frees at 0.6, C runs 0.6-0.9: 0.7 s in all, late
        (0.3, 0, 0.1),  # D: both slots and the waiting place taken: refused at once
        (1.5, 0, 0.2),  # E: A was cancelled at 1.0, so the reserved slot is free: answered at 1.7
    ]
    r = _play(Compartment(reserved=1, queue=1, timeout=1.0), shared=1, calls=calls)[0]
    assert (r.calls, r.within, r.late, r.refused, r.timed_out) == (5, 2, 1, 1, 1)


def test_a_waiter_whose_slot_never_frees_in_time_gives_up_at_its_timeout() -> None:
    calls = [
        (0.0, 1, 5.0),  # a search call takes the one shared slot for 5 s (search has no reserve here)
        (0.1, 0, 0.1),  # checkout has no reserve: it waits, and gives up at 1.1
        (2.0, 1, 0.1),  # a later search call finds the shared slot still busy, and no waiting place
    ]
    checkout, search, _ = _play(Compartment(0, queue=1, timeout=1.0), 1, calls, search=Compartment(0))
    assert (checkout.calls, checkout.timed_out, checkout.within) == (1, 1, 0)
    assert (search.calls, search.late, search.refused) == (2, 1, 1)


SOFT = Design(Compartment(9, 2, 0.6), Compartment(13, 4, 0.4), Compartment(8, 2, 8.0), shared=6)
ONE_POOL = Design(Compartment(), Compartment(), Compartment(), shared=36)


def test_the_checker_says_a_soft_partitioned_design_with_timeouts_meets_every_slo() -> None:
    meets, line = checker.checked(SOFT)
    assert meets
    assert line.startswith(
        "On a day you have not seen, your 36-slot design (timeouts: checkout 0.6 s, search 0.4 s, "
        "reports 8 s) meets checkout ("
    )
    assert "misses" not in line and "\n" not in line


def test_the_checker_says_one_pool_of_36_misses_every_slo_when_reports_hangs() -> None:
    results = {r.name: r for r in design.run_day(ONE_POOL, checker.CHECK_SEED)}
    assert not any(r.meets for r in results.values())
    meets, line = checker.checked(ONE_POOL)
    assert not meets
    assert "(timeouts: checkout none, search none, reports none)" in line
    assert "misses checkout (" in line and "search (" in line and "reports (" in line


# designs a learner may try with no short timeout for reports, each spending the slots otherwise
NO_REPORTS_TIMEOUT = (
    Design(Compartment(9, 2, 0.6), Compartment(13, 4, 0.4), Compartment(8, 2), shared=6),
    Design(Compartment(9, 2, 0.6), Compartment(13, 4, 0.4), Compartment(14, 8)),  # reports' reserve larger
    Design(Compartment(9, 2, 0.6), Compartment(13, 4, 0.4), Compartment(2, 40), shared=12),  # a long queue
    Design(Compartment(4, 0, 0.6), Compartment(10, 0, 0.4), Compartment(22, 0)),  # most slots to reports
    Design(Compartment(9, 2, 0.6), Compartment(13, 4, 0.4), Compartment(8, 2, 120.0), shared=6),  # 2 min
)


@pytest.mark.parametrize("d", NO_REPORTS_TIMEOUT, ids=lambda d: checker.timeouts(d) + f", {d.slots} slots")
def test_a_design_without_a_short_timeout_for_reports_misses_its_slo_whatever_its_sizes(d: Design) -> None:
    results = {r.name: r for r in design.run_day(d, checker.CHECK_SEED)}
    assert not results["reports"].meets, results["reports"]
    assert results["reports"].share < 0.72  # well under its 75%: the hung calls hold the slots for minutes


def test_the_day_the_checker_runs_is_not_the_day_the_notebook_shows() -> None:
    assert design.PRACTICE_SEED != checker.CHECK_SEED
    assert design.run_day(SOFT, design.PRACTICE_SEED) != design.run_day(SOFT, checker.CHECK_SEED)


def test_a_design_checked_or_practised_twice_is_the_same_kept_answer() -> None:
    assert checker.checked(SOFT) is checker.checked(SOFT)
    assert design.practice(SOFT) == design.run_day(SOFT, design.PRACTICE_SEED)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: Design(Compartment(20), Compartment(20), Compartment(0)),
            r"the design must use at most the service's 36 slots \(got 40\)",
        ),
        (
            lambda: Design(Compartment(10), Compartment(10), Compartment(0)),
            r"reports must have a reserved or a shared slot to run in \(got none\)",
        ),
        (lambda: Compartment(reserved=-1), r"reserved must be an integer in 0\.\.1000 \(got -1\)"),
        (lambda: Compartment(timeout=0), r"timeout must be a number > 0 and <= 600 \(got 0\)"),
        (
            lambda: Design(Compartment(), Compartment(), "8 slots", shared=4),
            r"reports must be a Compartment\(reserved, queue, timeout\) \(got '8 slots'\)",
        ),
    ],
)
def test_a_bad_design_is_refused_in_one_line(make, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{message}$"):
        design.run_day(make())
