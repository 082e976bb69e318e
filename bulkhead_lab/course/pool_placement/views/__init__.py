"""Notebook 03's numbers: lesson 003's batches in tables beside the lesson's (:mod:`.batches`), its
claims checked (:mod:`.claims`), the code cost (:mod:`.code`) and the lesson's own numbers
(:mod:`.lesson003`); the notebook reads them all as ``views``."""

from bulkhead_lab.course.pool_placement.views import lesson003
from bulkhead_lab.course.pool_placement.views.batches import (
    WORDS,
    batch_facts,
    batch_table,
    describe,
    ideal_table,
    ideal_worked,
    placement_table,
    run,
    run_lesson,
    sizing_table,
    slots_label,
)
from bulkhead_lab.course.pool_placement.views.claims import (
    claims_count,
    claims_table,
    lesson_claims,
    placement_claims,
    sizing_claims,
)
from bulkhead_lab.course.pool_placement.views.code import code_cost_table
from bulkhead_lab.live.placement.code import call_sites_source, code_facts, pool_definition_source
from bulkhead_lab.live.placement.lesson import (
    NO_POOL,
    PLACEMENT_ROWS,
    SEPARATE,
    SHARED,
    LessonRun,
    Rows,
    expected_catalog_before,
    expected_notification_peak,
)

__all__ = [
    "NO_POOL",
    "PLACEMENT_ROWS",
    "SEPARATE",
    "SHARED",
    "WORDS",
    "LessonRun",
    "Rows",
    "batch_facts",
    "batch_table",
    "call_sites_source",
    "claims_count",
    "claims_table",
    "code_facts",
    "code_cost_table",
    "describe",
    "expected_catalog_before",
    "expected_notification_peak",
    "ideal_table",
    "ideal_worked",
    "lesson003",
    "lesson_claims",
    "placement_claims",
    "placement_table",
    "pool_definition_source",
    "run",
    "run_lesson",
    "sizing_claims",
    "sizing_table",
    "slots_label",
]
