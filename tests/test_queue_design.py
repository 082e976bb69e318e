"""Notebook 07's exercise answers as model facts (bulkhead_lab/queues/design.py): the design found
works and the largest limit is the edge of the 90% band (dropping only expired work keeps the storm:
design.expired_only is test_queue_storm.py's drop-expired storm)."""

from __future__ import annotations

from bulkhead_lab.queues import design


def test_the_right_design_refuses_at_most_one_percent_and_recovers_and_a_long_queue_does_not() -> None:
    bound, timeout = design.a_right_design()
    assert design.works(bound, timeout)
    assert design.refused_share(bound, timeout) <= design.REFUSED_AT_MOST
    assert not design.works(40, 30)  # 40 waiting cannot all be answered inside 30 rounds


def test_the_largest_limit_answers_ninety_percent_and_one_more_does_not() -> None:
    n = design.largest_limit()
    assert design.goodput_share(n) >= design.ENOUGH > design.goodput_share(n + 1)
