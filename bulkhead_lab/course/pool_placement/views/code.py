"""The code cost (:func:`~bulkhead_lab.live.placement.code.code_facts`) beside lesson 003's line
(:data:`.lesson003.CODE_COST`)."""

from __future__ import annotations

import pandas as pd

from bulkhead_lab.course.pool_placement.views import lesson003
from bulkhead_lab.live.placement.code import CodeFacts, code_facts


def code_cost_table(facts: CodeFacts | None = None) -> pd.DataFrame:
    """The code cost beside lesson 003's: lines, places, call sites and pool-for expressions."""
    facts = facts or code_facts()
    lesson = lesson003.CODE_COST
    rows = [
        ("pool definition, lines", facts.cost.block_lines, lesson.block_lines),
        ("places a pool is defined", facts.places, 1),
        ("outbound call sites", facts.cost.call_sites, lesson.call_sites),
        ("call sites that name a placement", int(facts.call_sites_name_a_placement), 0),
        ("pool_for(port) expressions (poolFor in the lesson)", facts.cost.pool_for_expressions,
         lesson.pool_for_expressions),
    ]  # fmt: skip
    frame = pd.DataFrame(rows, columns=["counted in the source", "here", "lesson 003"])
    return frame.set_index("counted in the source")
